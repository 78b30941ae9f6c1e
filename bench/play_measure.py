"""What bench/play_speed.py measures beside the clients' timings, read from Linux's /proc while
the load runs: the CPU and memory (RSS) of gunicorn's workers, the whole machine's busy share,
the workers' garbage-collector pauses (logged by bench/gunicorn_probe.py) and the size of the
rooms' stored states; and the two sums taken of them, a percentile and a least-squares slope.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any


def _cpu_of(pid: int | str) -> float | None:
    """CPU seconds (user + system) so far of one process, or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workers_of(master: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{master}/task/{master}/children").read_text().split()]
    except OSError:
        return []


def worker_cpu(master: int) -> dict[int, float]:
    """CPU seconds (user + system) so far of each of gunicorn's workers, by pid."""
    return {pid: cpu for pid in workers_of(master) if (cpu := _cpu_of(pid)) is not None}


def cpu_seconds(master: int) -> float:
    """CPU time (user + system) used so far by gunicorn's workers (Linux /proc)."""
    total = 0.0
    try:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    except OSError:
        return float("nan")
    for pid in [str(master), *children]:
        total += _cpu_of(pid) or 0.0
    return total


def _probe_log(log_dir: Path, name: str, since: float,
               kinds: tuple[type, ...]) -> dict[int, list[tuple[Any, ...]]]:
    """The rows bench/gunicorn_probe.py wrote to ``name.<pid>`` since ``since`` (each row's first
    field is the wall time), by worker pid; each field read as the type in ``kinds``."""
    found: dict[int, list[tuple[Any, ...]]] = {}
    for path in log_dir.glob(f"{name}.*"):
        rows = []
        for line in path.read_text().splitlines():
            row = tuple(kind(field) for kind, field in zip(kinds, line.split(), strict=True))
            if row[0] >= since:
                rows.append(row)
        found[int(path.suffix[1:])] = rows
    return found


def gc_pauses(log_dir: Path, since: float) -> dict[int, list[tuple[Any, ...]]]:
    """The workers' garbage-collector pauses of 10 ms or more since ``since``: by pid,
    (wall time, generation, ms)."""
    return _probe_log(log_dir, "gc", since, (float, int, float))


def python_blocks(log_dir: Path, since: float) -> dict[int, list[tuple[Any, ...]]]:
    """The workers' memory as their allocators see it since ``since`` (logged every 15 s by
    bench/gunicorn_probe.py): by pid, (wall time, Python memory blocks in use, SQLite bytes,
    pymalloc arenas in use, bytes in pymalloc's allocated blocks, bytes glibc's malloc has handed
    out, free bytes it keeps); -1 where a figure is not available."""
    return _probe_log(log_dir, "blocks", since, (float, int, int, int, int, int, int))


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, every process's (Linux /proc/stat:
    idle and iowait are not busy)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    return (sum(fields) - fields[3] - fields[4]) / tick, sum(fields) / tick


def stored_states_mb() -> float:
    """MB of engine state JSON the rooms hold now (SQLite only: NaN on PostgreSQL). Each worker
    keeps the newest parsed state of the rooms it serves, so its memory follows this."""
    import sqlite3

    if os.environ.get("DATABASE_URL"):
        return float("nan")
    path = Path(os.environ["KARTOTHEK_VAR_DIR"]) / "kartothek.sqlite3"
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return (db.execute("SELECT total(length(state_json)) FROM games_room").fetchone()[0]) / 2**20
    except sqlite3.Error:
        return float("nan")


def sampled(server: Any, run: Any, every: float) -> tuple[Any, list[tuple[float, float]],
                                                         list[tuple[float, float, float, float]],
                                                         list[tuple[float, float]]]:
    """Run ``run()`` in a thread while sampling the workers' RSS every ``every`` seconds; also
    ``(seconds, server CPU, machine busy, machine all)`` and the rooms' stored states (MB)."""
    import threading

    samples: list[tuple[float, float]] = []
    cpu: list[tuple[float, float, float, float]] = []
    states: list[tuple[float, float]] = []
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(run()))
    begun = time.monotonic()
    thread.start()

    def sample() -> None:
        at = time.monotonic() - begun
        samples.append((at, rss_mb(workers_of(server.pid))))
        cpu.append((at, cpu_seconds(server.pid), *machine_busy()))
        states.append((at, stored_states_mb()))

    while thread.is_alive():
        sample()
        thread.join(timeout=every)
    sample()
    return result[0], samples, cpu, states


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000


def slope(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) samples, in MB per minute."""
    if len(samples) < 2:
        return 0.0
    xs, ys = [t for t, _ in samples], [m for _, m in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0
