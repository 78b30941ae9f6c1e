"""Django's SQLite backend, with one change: the write transactions of a process queue on a
lock of that process before they ask SQLite for its write lock.

Play writes run in ``BEGIN IMMEDIATE`` transactions (settings: SQLite has no row locks), so
two writers of one database never interleave. But a writer that finds SQLite's lock taken
does not wake when it is freed: SQLite's busy handler sleeps and tries again after 1, 2, 5,
10, … up to 100 ms. Under the play bench's 1,000 players the request threads of a worker
spent a third of their time in those sleeps while the lock itself was free most of the time.
Threads of the same process now wait on a ``threading.Lock``, which hands over the moment the
holder commits; only writers of another process still meet SQLite's own waiting. A thread
that cannot get the process lock within the connection's busy timeout goes on to SQLite as
before, so nothing can wait longer than it did.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db.backends.sqlite3 import base

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _writer_lock(name: str) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(name, threading.Lock())


class DatabaseWrapper(base.DatabaseWrapper):
    _holds_writer_lock = False

    def _writer(self) -> threading.Lock:
        return _writer_lock(str(self.settings_dict["NAME"]))

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
            return super()._close()
        finally:
            self._release_writer()
