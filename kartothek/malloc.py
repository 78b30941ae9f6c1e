"""The app server process's memory allocator: at most a few glibc malloc arenas.

Under ASGI, Django runs each ordinary request's sync code in a thread of its own, and glibc
gives busy threads arenas of their own (up to eight per core), where freed memory stays in
pieces. In a probe of the play load (one process serving 360 players for four minutes, on a
loaded machine) the
Python objects it held did not grow, while its resident memory did: with the default arenas it
rose from 165 to 185 MB between the first and the fourth minute, with two arenas from 147 to
160 MB. The same effect as ``MALLOC_ARENA_MAX=2`` in the environment, set from the process
itself, so every way of starting it (``make run``, ``make serve``, a systemd unit, the
benchmarks) gets it.

Freed memory inside an arena still counts as the process's until glibc hands whole pages of it
back, which it does on its own only at the top of the heap. ``start_trimming`` calls
``malloc_trim(0)`` every ``KARTOTHEK_MALLOC_TRIM`` seconds (default 30, ``0`` off) on a thread
of the server process, which returns every free page. In a probe of the play bench's 1,020
players (two workers, five minutes) the Python objects and SQLite's own memory stayed level
while a worker's resident memory rose by ~5 MB a minute; trimming every 30 s gave 4–10 MB
back each time and the resident memory levelled off after the second minute.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time

M_ARENA_MAX = -8  # glibc's malloc.h


def limit_arenas() -> int | None:
    """Apply ``KARTOTHEK_MALLOC_ARENAS`` (default 2; ``0`` keeps glibc's default) before the
    process starts its threads; returns the limit set, ``None`` where nothing was changed
    (turned off, not glibc, or the environment already says ``MALLOC_ARENA_MAX``)."""
    raw = os.environ.get("KARTOTHEK_MALLOC_ARENAS", "2").strip()
    if not raw.isascii() or not raw.isdigit():
        raise ValueError(f"KARTOTHEK_MALLOC_ARENAS must be a whole number, not {raw!r}.")
    arenas = int(raw)
    if arenas == 0 or "MALLOC_ARENA_MAX" in os.environ:
        return None
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018  (glibc only: musl has no such arenas)
    except (OSError, AttributeError, TypeError):
        return None
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return arenas if mallopt(M_ARENA_MAX, arenas) == 1 else None


def trim_interval() -> float:
    """``KARTOTHEK_MALLOC_TRIM`` in seconds (default 30; ``0``: no trimming)."""
    raw = os.environ.get("KARTOTHEK_MALLOC_TRIM", "").strip() or "30"
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise ValueError("KARTOTHEK_MALLOC_TRIM must be a number of seconds (0 turns it off), "
                         f"not {raw!r}.")
    return value


def trim() -> bool:
    """Hand every free page of glibc's heaps back to the system now; ``False`` where there is
    no glibc (or nothing could be given back)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        malloc_trim = libc.malloc_trim
    except (OSError, AttributeError, TypeError):
        return False
    malloc_trim.argtypes = [ctypes.c_size_t]
    return bool(malloc_trim(0))


_TRIMMER: tuple[int, threading.Thread] | None = None
_TRIMMER_GUARD = threading.Lock()


def start_trimming(every: float | None = None) -> threading.Thread | None:
    """Start this process's trimming thread (once per process: a forked child starts its own);
    ``every`` defaults to ``KARTOTHEK_MALLOC_TRIM``. Returns the thread, ``None`` when off."""
    global _TRIMMER
    seconds = trim_interval() if every is None else every
    if seconds <= 0:
        return None
    with _TRIMMER_GUARD:
        if _TRIMMER is not None and _TRIMMER[0] == os.getpid() and _TRIMMER[1].is_alive():
            return _TRIMMER[1]

        def run() -> None:
            me = threading.current_thread()
            while _TRIMMER is not None and _TRIMMER[1] is me:  # until replaced (tests)
                time.sleep(seconds)
                trim()

        thread = threading.Thread(target=run, name="kartothek-malloc-trim", daemon=True)
        _TRIMMER = (os.getpid(), thread)
        thread.start()
        return thread
