"""Django's SQLite backend, with two changes: the write transactions of a process queue on a
lock of that process before they ask SQLite for its write lock, and a closed connection is kept
for the next request of the process instead of being thrown away.

Play writes run in ``BEGIN IMMEDIATE`` transactions (settings: SQLite has no row locks), so
two writers of one database never interleave. But a writer that finds SQLite's lock taken
does not wake when it is freed: SQLite's busy handler sleeps and tries again after 1, 2, 5,
10, … up to 100 ms. Under the play bench's 1,000 players the request threads of a worker
spent a third of their time in those sleeps while the lock itself was free most of the time.
Threads of the same process now wait on a ``threading.Lock``, which hands over the moment the
holder commits; only writers of another process still meet SQLite's own waiting. A thread
that cannot get the process lock within the connection's busy timeout goes on to SQLite as
before, so nothing can wait longer than it did.

Under ASGI every request runs its database work in a thread of its own, so Django's persistent
connections (``CONN_MAX_AGE``) are never used twice and each request opens the file afresh:
opening it, Django's functions and pragmas, and the first statement's reading of the whole
schema (some 270 tables, indexes and triggers) took 1.5 ms, where the play mode's poll query
takes 0.01 ms. A connection closed outside a transaction now goes back to a small pool of its
process (``KARTOTHEK_SQLITE_POOL`` idle connections per database, 8 by default, ``0`` turns it
off); the next request's connect takes it from there. A connection closed inside a transaction
is really closed (SQLite rolls it back), the pool is emptied in a forked child, and an in-memory
database is never pooled (Django never closes those).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any

from django.conf import settings
from django.db.backends.sqlite3 import base

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


_POOLS: dict[str, list[sqlite3.Connection]] = {}
_POOLS_GUARD = threading.Lock()


def _writer_lock(name: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(name, threading.Lock())


def _forget_pools() -> None:
    """In a forked child: the parent's connections are not the child's to use (or close)."""
    _POOLS.clear()


os.register_at_fork(after_in_child=_forget_pools)


def pool_size() -> int:
    return max(0, int(getattr(settings, "KARTOTHEK_SQLITE_POOL", 8)))


def idle_connections(name: str) -> int:
    """How many closed connections to the database file ``name`` wait in this process's pool."""
    with _POOLS_GUARD:
        return sum(len(pool) for key, pool in _POOLS.items() if key.startswith(f"{name}\x00"))


class DatabaseWrapper(base.DatabaseWrapper):
    _holds_writer_lock = False
    _pooled_as: str | None = None  # the pool the open connection goes back to when closed

    def _writer(self) -> threading.Lock:
        return _writer_lock(str(self.settings_dict["NAME"]))

    def _pool_key(self, conn_params: dict[str, Any]) -> str | None:
        if self.is_in_memory_db() or not pool_size():
            return None
        return f"{self.settings_dict['NAME']}\x00{sorted(conn_params.items())!r}"

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        key = self._pool_key(conn_params)
        if key is not None:
            with _POOLS_GUARD:
                pool = _POOLS.get(key)
                kept = pool.pop() if pool else None
            if kept is not None:
                self._pooled_as = key
                kept.execute("PRAGMA foreign_keys = ON")  # as a new one (a migration turns it off)
                return kept
        conn = super().get_new_connection(conn_params)
        self._pooled_as = key
        return conn

    def _keep(self) -> bool:
        """Put the open connection back in the pool (``False``: it must really be closed)."""
        conn, key = self.connection, self._pooled_as
        if conn is None or key is None or conn.in_transaction:
            return False
        with _POOLS_GUARD:
            pool = _POOLS.setdefault(key, [])
            if len(pool) >= pool_size():
                return False
            pool.append(conn)
        return True

    def _start_transaction_under_autocommit(self) -> None:
        if self.transaction_mode != "IMMEDIATE" or self.is_in_memory_db():
            super()._start_transaction_under_autocommit()
            return
        timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
        self._holds_writer_lock = self._writer().acquire(timeout=timeout)
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_writer()
            raise

    def _release_writer(self) -> None:
        if self._holds_writer_lock:
            self._holds_writer_lock = False
            self._writer().release()

    def _commit(self) -> Any:
        try:
            return super()._commit()
        finally:
            self._release_writer()

    def _rollback(self) -> Any:
        try:
            return super()._rollback()
        finally:
            self._release_writer()

    def _close(self) -> Any:
        try:
            if self._keep():
                return None
            return super()._close()
        finally:
            self._release_writer()
