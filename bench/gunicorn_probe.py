"""gunicorn hooks for bench/play_speed.py only (passed with ``--config``): each worker writes
the pauses of Python's cyclic garbage collector (all threads stop while it runs) of 10 ms or
more to ``$KARTOTHEK_BENCH_GC_LOG.<pid>``, one line each: wall time, generation, milliseconds.
The bench reads them back and prints them beside the latencies they explain. Every 15 s each
worker also writes to ``blocks.<pid>`` beside it how many memory blocks Python's objects hold
(``sys.getallocatedblocks()``: live objects, apart from the free pages the allocator keeps) and
the bytes SQLite holds in the process (``sqlite3_memory_used()``: its page caches and schemas)."""

import ctypes
import ctypes.util
import gc
import os
import sys
import threading
import time


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

    def count() -> None:
        while True:
            blocks.write(f"{time.time():.3f} {sys.getallocatedblocks()} {sqlite.sqlite3_memory_used()}\n")
            time.sleep(15)

    threading.Thread(target=count, name="bench-blocks", daemon=True).start()
