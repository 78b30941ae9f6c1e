"""gunicorn hooks for bench/play_speed.py only (passed with ``--config``): each worker writes
the pauses of Python's cyclic garbage collector (all threads stop while it runs) of 10 ms or
more to ``$KARTOTHEK_BENCH_GC_LOG.<pid>``, one line each: wall time, generation, milliseconds.
The bench reads them back and prints them beside the latencies they explain. Every 15 s each
worker also writes to ``blocks.<pid>`` beside it how many memory blocks Python's objects hold
(``sys.getallocatedblocks()``: live objects, apart from the free pages the allocator keeps) and
the bytes SQLite holds in the process (``sqlite3_memory_used()``: its page caches and schemas),
and what the two allocators hold: Python's object allocator (pymalloc) its arenas of 1 MiB in
use and the bytes in its allocated blocks (``sys._debugmallocstats()``), glibc's malloc the bytes
it has handed out and the free bytes it keeps (``mallinfo2()``; after ``malloc_trim`` most of
those are no longer resident). A resident size that grows while the live figures stay level is
free memory an allocator keeps in pieces."""

import ctypes
import ctypes.util
import gc
import os
import re
import sys
import tempfile
import threading
import time


class _MallInfo2(ctypes.Structure):  # glibc's struct mallinfo2 (malloc.h), every field a size_t
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _pymalloc() -> tuple[int, int]:
    """(arenas in use, bytes in allocated blocks) of pymalloc, read from the statistics
    ``sys._debugmallocstats()`` writes to the C stderr (caught in a file for the moment)."""
    with tempfile.TemporaryFile() as caught:
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        text = caught.read().decode(errors="replace")
    arenas = re.search(r"# arenas allocated current\s*=\s*([\d,]+)", text)
    used = re.search(r"# bytes in allocated blocks\s*=\s*([\d,]+)", text)
    return (int(arenas.group(1).replace(",", "")) if arenas else -1,
            int(used.group(1).replace(",", "")) if used else -1)


def post_worker_init(worker):  # type: ignore[no-untyped-def]
    path = os.environ.get("KARTOTHEK_BENCH_GC_LOG")
    if not path:
        return
    out = open(f"{path}.{os.getpid()}", "a", buffering=1)  # noqa: SIM115  # the worker's life
    began = [0.0]

    def probe(phase, info):  # type: ignore[no-untyped-def]
        if phase == "start":
            began[0] = time.perf_counter()
            return
        took = (time.perf_counter() - began[0]) * 1000
        if took >= 10:
            out.write(f"{time.time():.3f} {info['generation']} {took:.1f}\n")

    gc.callbacks.append(probe)
    blocks = open(os.path.join(os.path.dirname(path), f"blocks.{os.getpid()}"), "a", buffering=1)  # noqa: SIM115

    sqlite = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")  # the one _sqlite3 uses
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    mallinfo2 = getattr(libc, "mallinfo2", None)  # glibc 2.33 or later
    if mallinfo2 is not None:
        mallinfo2.restype = _MallInfo2

    def count() -> None:
        while True:
            arenas, in_blocks = _pymalloc()
            glibc = mallinfo2() if mallinfo2 is not None else None
            handed, kept = (glibc.uordblks + glibc.hblkhd, glibc.fordblks) if glibc else (-1, -1)
            blocks.write(f"{time.time():.3f} {sys.getallocatedblocks()} {sqlite.sqlite3_memory_used()} "
                         f"{arenas} {in_blocks} {handed} {kept}\n")
            time.sleep(15)

    threading.Thread(target=count, name="bench-blocks", daemon=True).start()
