"""The throw-away folder of one benchmark run (its database, media and logs): made by the
process that starts the run, reused by the processes it starts (they import the bench again)
and by a bench it imports, and removed when the starting process exits."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def use_scratch_folder(prefix: str) -> str:
    """Point ``KARTOTHEK_VAR_DIR`` at this run's folder, making it if this process starts the run."""
    folder = os.environ.get("KARTOTHEK_BENCH_DIR")
    if not folder:
        folder = os.environ["KARTOTHEK_BENCH_DIR"] = tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["KARTOTHEK_VAR_DIR"] = folder
    return folder
