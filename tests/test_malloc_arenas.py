"""The app server limits glibc's malloc arenas (kartothek/malloc.py): many busy threads share
two arenas instead of getting one each, which kept a worker's memory creeping up."""

import ctypes
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Busy threads that allocate at the same time, then glibc's own account of its arenas
# (malloc_info writes one <heap nr="…"> per arena).
PROBE = textwrap.dedent("""
    import ctypes, ctypes.util, sys, threading, tempfile
    sys.path.insert(0, sys.argv[1])
    from kartothek.malloc import limit_arenas
    print("limit", limit_arenas())
    start = threading.Barrier(16)
    def churn():
        start.wait()
        for _ in range(3000):
            blocks = [bytearray(2000) for _ in range(20)]
            del blocks
    threads = [threading.Thread(target=churn) for _ in range(16)]
    [t.start() for t in threads]
    keep = threads  # alive until counted: each thread keeps its arena attached
    [t.join() for t in threads]
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    with tempfile.NamedTemporaryFile(suffix=".xml") as out:
        handle = libc.fopen(out.name.encode(), b"w")
        libc.malloc_info(0, handle)
        libc.fclose(handle)
        print("heaps", open(out.name).read().count("<heap nr="))
""")


def arenas(**env: str) -> tuple[str, int]:
    environment = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"} | env
    out = subprocess.run([sys.executable, "-c", PROBE, str(ROOT)], env=environment,
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return out[0].split()[1], int(out[1].split()[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_sixteen_busy_threads_share_two_arenas_under_the_default_limit():
    limit, heaps = arenas()
    assert limit == "2"
    assert heaps <= 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas")
def test_the_limit_can_be_turned_off_and_glibc_then_makes_more_arenas():
    limit, heaps = arenas(KARTOTHEK_MALLOC_ARENAS="0")
    assert limit == "None"
    assert heaps > 2  # what the limit prevents (so the first test can fail)


def test_a_limit_that_is_not_a_number_is_refused_with_its_name(monkeypatch):
    from kartothek.malloc import limit_arenas

    monkeypatch.setenv("KARTOTHEK_MALLOC_ARENAS", "two")
    with pytest.raises(ValueError, match="KARTOTHEK_MALLOC_ARENAS"):
        limit_arenas()


def test_trimming_hands_free_heap_pages_back():
    from kartothek.malloc import trim

    if not hasattr(ctypes.CDLL(None), "gnu_get_libc_version"):
        pytest.skip("glibc only")
    # many small blocks freed in the middle of the heap: only a trim returns their pages
    keep = []
    for n in range(20000):
        block = bytearray(4000)
        if n % 50 == 0:
            keep.append(block)
    del block
    assert trim() is True


def test_the_trimming_thread_runs_once_per_process_and_trims_on_its_interval(monkeypatch):
    from kartothek import malloc

    calls: list[float] = []
    monkeypatch.setattr(malloc, "trim", lambda: calls.append(1.0) or True)
    monkeypatch.setattr(malloc, "_TRIMMER", None)
    thread = malloc.start_trimming(0.01)
    assert thread is not None and thread.daemon and thread.name == "kartothek-malloc-trim"
    assert malloc.start_trimming(0.01) is thread  # the same process: the same thread
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(calls) >= 3
    monkeypatch.setattr(malloc, "_TRIMMER", None)  # a replaced thread ends after its sleep
    thread.join(timeout=1)
    assert not thread.is_alive()


@pytest.mark.parametrize("raw", ["-1", "soon", "inf", "nan"])
def test_a_wrong_trim_interval_is_refused_with_its_name(monkeypatch, raw):
    from kartothek.malloc import trim_interval

    monkeypatch.setenv("KARTOTHEK_MALLOC_TRIM", raw)
    with pytest.raises(ValueError, match="KARTOTHEK_MALLOC_TRIM must be a number of seconds"):
        trim_interval()


def test_trimming_can_be_turned_off(monkeypatch):
    from kartothek.malloc import start_trimming, trim_interval

    monkeypatch.setenv("KARTOTHEK_MALLOC_TRIM", "0")
    assert trim_interval() == 0 and start_trimming() is None
