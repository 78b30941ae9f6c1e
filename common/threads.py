"""Thread pools kept per process: made on first use in the process that uses them, since a
pool made before a fork (gunicorn's workers are forks) has no threads in the child."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

_POOLS: dict[str, tuple[int, ThreadPoolExecutor]] = {}
_LOCK = threading.Lock()


def process_pool(name: str, size: int) -> ThreadPoolExecutor:
    """This process's pool called ``name`` (threads named ``kartothek-<name>``), of ``size``
    threads (at least one), made on the first call in this process."""
    pid = os.getpid()
    found = _POOLS.get(name)
    if found is None or found[0] != pid:
        with _LOCK:
            found = _POOLS.get(name)
            if found is None or found[0] != pid:
                found = _POOLS[name] = (pid, ThreadPoolExecutor(
                    max(1, size), thread_name_prefix=f"kartothek-{name}"))
    return found[1]
