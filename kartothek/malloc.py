"""The app server process's memory allocator: at most a few glibc malloc arenas.

Under ASGI, Django runs each ordinary request's sync code in a thread of its own, and glibc
gives busy threads arenas of their own (up to eight per core). Freed memory stays in those
arenas in pieces, so a worker's resident memory kept creeping up under the play bench (about
4 MB/min at 360 players in one process) while the Python objects it held did not grow.
Two arenas keep the same throughput for a program whose threads mostly wait for the GIL or
the database, and the memory flat. The same effect as ``MALLOC_ARENA_MAX=2`` in the
environment, set from the process itself, so every way of starting it (``make run``,
``make serve``, a systemd unit, the benchmarks) gets it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

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
