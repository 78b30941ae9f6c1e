"""Django's SQLite backend, with two changes: the write transactions of a process queue on a
lock of that process before they ask SQLite for its write lock, and a closed connection is kept
for the next request of the process instead of being thrown away.

Play writes run in ``BEGIN IMMEDIATE`` transactions (settings: SQLite has no row locks), so
two writers of one database never interleave. But a writer that finds SQLite's lock taken
does not wake when it is freed: SQLite's busy handler sleeps and tries again after 1, 2, 5,
10, … up to 100 ms. Under the play bench's 1,000 players the request threads of a worker
spent a third of their time in those sleeps while the lock itself was free most of the time.
Threads of the same process now wait on a ``threading.Lock``, which hands over the moment the
holder commits. The one thread of each process that holds it then waits on a lock shared by
all processes of the database, an ``flock`` on a file beside it (``NAME-writers``), which the
kernel hands over the moment its holder lets go, and frees if its process dies. Without it the
app servers' writers still met in SQLite's sleeps: py-spy on a worker under the play bench
showed the lock holder sleeping in ``BEGIN IMMEDIATE`` for 28 % of its transaction time while
the other worker wrote on, and that worker's other writers queued behind it. A writer that
cannot get either lock within the connection's busy timeout goes on to SQLite as before, so
nothing waits longer than it did.

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

import fcntl
import os
import sqlite3
import threading
import time
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


def _lock_file(name: str) -> str:
    return f"{name}-writers"


def _take_file_lock(path: str, timeout: float) -> int | None:
    """An exclusive ``flock`` on ``path`` (created if need be) within ``timeout`` seconds: the
    descriptor that holds it (closing it lets go), or ``None`` after the timeout. Each call
    opens the file afresh, so each holder has a lock of its own. A wait that times out leaves
    its waiting thread to let go of the lock as soon as the kernel hands it over."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return fd
    except BlockingIOError:
        pass
    except BaseException:
        os.close(fd)
        raise
    # flock itself cannot time out: a helper thread waits in the kernel, this one on an Event
    handed = threading.Event()
    guard = threading.Lock()
    outcome: dict[str, bool] = {"gave_up": False, "failed": False}

    def wait() -> None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            outcome["failed"] = True
        with guard:
            handed.set()
            keep = not (outcome["gave_up"] or outcome["failed"])
        if not keep:
            os.close(fd)  # nobody wants it any more (or the wait failed): let go at once

    threading.Thread(target=wait, name="kartothek-sqlite-writers", daemon=True).start()
    handed.wait(timeout)
    with guard:
        if handed.is_set() and not outcome["failed"]:
            return fd
        outcome["gave_up"] = True
    return None


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
    _writers_fd: int | None = None  # the flock shared by the database's processes, when held
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
        began = time.monotonic()
        self._holds_writer_lock = self._writer().acquire(timeout=timeout)
        try:
            if self._holds_writer_lock:
                left = max(0.0, timeout - (time.monotonic() - began))
                self._writers_fd = _take_file_lock(_lock_file(str(self.settings_dict["NAME"])), left)
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._release_writer()
            raise

    def _release_writer(self) -> None:
        if self._writers_fd is not None:
            fd, self._writers_fd = self._writers_fd, None
            os.close(fd)  # lets go of the processes' lock
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
