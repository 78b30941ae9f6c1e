"""Play mode under load, the scenarios and their report: gunicorn on loopback (`make serve`'s
server), rooms of players on it, and what their timings, the server's CPU and memory, and the
database show afterwards, checked against the targets.

    python bench/play_speed.py [--rooms 50] [--players 6] [--duration 60] [--every 1]
                               [--big-rooms 170] [--big-duration 300] [--big-every 4]
                               [--big-warm-up 480] [--workers 2] [--act-chance 0.5]
                               [--postgres URL] [--only a|b] [--quick] [--seed bench]

Prepares a throw-away SQLite database (or the given empty PostgreSQL one) with a release of
each game (the engine tests' small packs) and opens rooms (the four games in turn) through the
API. Scenario a: --rooms rooms of --players seats with pushed updates (every seat keeps its
room's event stream open, a move every --every seconds a room), then the same rooms polling
once a second as the baseline. Scenario b: --big-rooms rooms of 6 with pushed updates and a
move every --big-every seconds, whose workers' memory is watched after a warm-up that lasts
until the rooms' first games have ended: the 170 games start in the same second and their logs
grow together until then (the bench prints the rooms' stored states by minute; they peak at
minute 7), and that peak sets the allocators' high water, which later games reuse. The players
are bench/play_load.py (in a process of their own), the server's CPU, memory, collector pauses
and the rooms' stored states bench/play_measure.py. gunicorn is stopped at the end, also on
errors and Ctrl-C.

Targets on the 2-core machine: a: every other seat learns of a move with p99 below 150 ms,
action p99 below 100 ms, 0 errors; b: learns p99 below 250 ms, 0 errors, worker memory flat
(under 1 MB a minute).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-play-")
# Every simulated player comes from one address (loopback): the per-client limits are off; the
# per-room limits stay as deployed.
os.environ["KARTOTHEK_PLAY_RATE_LIMIT"] = "0"
os.environ["KARTOTHEK_PLAY_WRITE_LIMIT"] = "0"
os.environ["KARTOTHEK_PLAY_STREAMS_PER_CLIENT"] = "0"
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
os.environ.pop("DATABASE_URL", None)

from play_load import in_client_process, open_rooms  # noqa: E402
from play_measure import (  # noqa: E402
    cpu_seconds,
    gc_pauses,
    percentile,
    python_blocks,
    sampled,
    slope,
    worker_cpu,
)
from serve_speed import HOST, free_port, gunicorn_version, machine, stop, wait_until_up  # noqa: E402


def prepare() -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from exports.models import Release
    from exports.packs import canonical, sha256
    from tests.engines.packs import sauschwer_pack, sign_pack, slogan_pack, symbols_pack

    call_command("migrate", verbosity=0)
    for game, pack in (("symbols", symbols_pack()), ("sign", sign_pack()), ("slogan", slogan_pack()),
                       ("sauschwer", sauschwer_pack())):
        pack = {**pack, "language": "en", "content_version": 1}
        data = canonical(pack)
        Release.objects.create(game=game, language="en", version=1, sha256=sha256(data),
                               body_sha256=pack["sha256"], size=len(data), data=data)
    connections.close_all()


def start_server(port: int, log: Path, workers: int, database_url: str = ""):  # type: ignore[no-untyped-def]
    """`make serve`'s server: gunicorn with uvicorn workers on kartothek.asgi."""
    import subprocess

    env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": HOST, "DATABASE_URL": database_url,
           "KARTOTHEK_BENCH_GC_LOG": str(log.parent / "gc")}
    command = [sys.executable, "-m", "gunicorn", "kartothek.asgi:application",
               "--config", str(ROOT / "bench" / "gunicorn_probe.py"),
               "--bind", f"{HOST}:{port}", "--workers", str(workers),
               "--worker-class", "uvicorn_worker.UvicornWorker", "--keep-alive", "5",
               "--chdir", str(ROOT), "--error-logfile", str(log), "--log-level", "warning",
               "--graceful-timeout", "3"]
    output = (log.parent / "gunicorn-output.log").open("ab")  # Django's own error reports
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=output,
                            stderr=subprocess.STDOUT, start_new_session=True)


def scenario(server: Any, port: int, name: str, kind: str, tables: list, duration: float,
             seed: str, knob: float, rss_every: float, warm_up: float = 0.0) -> dict[str, Any]:
    """One load for ``warm_up + duration`` seconds; the memory slope is taken over the last
    ``duration`` seconds (the warm-up fills the bounded caches), everything else over all."""
    players = sum(len(t) for t in tables)
    cpu_before = cpu_seconds(server.pid)
    each_before, wall_before = worker_cpu(server.pid), time.time()
    (result, client_cpu), samples, cpu, states = sampled(
        server, lambda: in_client_process(kind, port, tables, warm_up + duration, seed, knob), rss_every)
    server_cpu = cpu_seconds(server.pid) - cpu_before
    each = {pid: cpu - each_before.get(pid, 0.0) for pid, cpu in worker_cpu(server.pid).items()}
    total = warm_up + duration
    row: dict[str, Any] = {"name": name, "players": players, "duration": total,
                           "server_cpu": server_cpu, "client_cpu": client_cpu,
                           "cpu_ms_per_player_s": server_cpu / (players * total) * 1000,
                           "rss": [s for s in samples if s[0] >= warm_up] or samples,
                           "rss_start": samples[0][1], "rss_all": samples, "errors": result.errors,
                           "wall_start": wall_before,
                           "blocks": python_blocks(Path(os.environ["KARTOTHEK_VAR_DIR"]), wall_before),
                           "worker_cpu": each, "cpu_samples": cpu,
                           "states": [s for s in states if s[0] >= warm_up] or states,
                           "states_all": states,
                           "gc": gc_pauses(Path(os.environ["KARTOTHEK_VAR_DIR"]), wall_before)}
    if kind == "push":
        row.update(actions=result.actions, seen=result.delivery, conflicts=result.conflicts,
                   seen_at=result.delivery_at)
    else:
        row.update(actions=result.actions, seen=result.learned, conflicts=result.conflicts,
                   polls=result.polls)
    return row


def diagnosis(row: dict[str, Any]) -> str:
    """Where a tail comes from, shown, not judged: the learned p99 minute by minute (does it
    grow with the games?), each worker's share of the CPU, and the collector's pauses."""
    lines = []
    if row.get("seen_at"):
        start = min(row["seen_at"])
        minutes: dict[int, list[float]] = {}
        for at, took in zip(row["seen_at"], row["seen"], strict=True):
            minutes.setdefault(int((at - start) // 60), []).append(took)
        lines.append("    learned p99 by minute: " + ", ".join(
            f"{m}: {percentile(v, 99):.0f} ms" for m, v in sorted(minutes.items())))
    by_minute: dict[int, list[tuple[float, float, float, float]]] = {}
    for sample in row.get("cpu_samples", []):
        by_minute.setdefault(int(sample[0] // 60), []).append(sample)
    spans = []
    for minute, rows in sorted(by_minute.items()):
        last = by_minute.get(minute + 1, [rows[-1]])[0]  # up to the next minute's first sample
        first, seconds = rows[0], last[0] - rows[0][0]
        if seconds >= 1:
            spans.append(f"{minute}: {(last[1] - first[1]) / seconds:.2f} / "
                         f"{(last[2] - first[2]) / max(last[3] - first[3], 1e-9):.0%}")
    if spans:  # does the server's cost grow with the games, and is the machine full?
        lines.append("    server CPU (cores) / whole machine busy, by minute: " + ", ".join(spans))
    rss_by_minute: dict[int, float] = {}
    for at, mb in row.get("rss_all", []):
        rss_by_minute.setdefault(int(at // 60), mb)  # each minute's first sample
    if len(rss_by_minute) >= 2:  # does memory level off (the allocator's high water) or keep rising?
        lines.append("    workers' RSS at each minute's start, MB: " + ", ".join(
            f"{m}: {mb:.0f}" for m, mb in sorted(rss_by_minute.items())))
    per_minute: dict[int, dict[int, tuple[int, ...]]] = {}
    for pid, rows in (row.get("blocks") or {}).items():
        for at, *figures in rows:  # each worker's first sample in each minute
            per_minute.setdefault(int((at - row["wall_start"]) // 60), {}).setdefault(pid, tuple(figures))
    full = {m: list(c.values()) for m, c in sorted(per_minute.items()) if len(c) == len(row["blocks"])}
    if full:  # the Python objects alive (live data, apart from the allocator's free pages) and SQLite's
        lines.append("    both workers by minute, Python's memory blocks in use (thousands) / SQLite's MB: "
                     + ", ".join(f"{m}: {sum(f[0] for f in v) / 1000:,.0f} / "
                                 f"{sum(f[1] for f in v) / 2**20:.1f}" for m, v in full.items()))
        if all(f[2] >= 0 and f[4] >= 0 for v in full.values() for f in v):
            # what each allocator holds: pymalloc's arenas (1 MiB each) against the bytes its
            # blocks hold; glibc's bytes handed out against the free ones it keeps
            lines.append("    both workers by minute, pymalloc arenas MB / in its blocks MB; glibc "
                         "handed out MB / kept free MB: " + ", ".join(
                             f"{m}: {sum(f[2] for f in v)} / {sum(f[3] for f in v) / 2**20:.0f}; "
                             f"{sum(f[4] for f in v) / 2**20:.0f} / {sum(f[5] for f in v) / 2**20:.0f}"
                             for m, v in full.items()))
    by_minute_states: dict[int, float] = {}
    for at, mb in row.get("states_all") or []:
        by_minute_states.setdefault(int(at // 60), mb)  # each minute's first sample
    if len(by_minute_states) >= 2 and all(mb == mb for mb in by_minute_states.values()):  # not NaN
        # the games' own data: it grows while the rooms' games are young and levels off once the
        # first games end and start again (a server with games at every stage is past that)
        lines.append("    rooms' stored states at each minute's start, MB: " + ", ".join(
            f"{m}: {mb:.1f}" for m, mb in sorted(by_minute_states.items())))
    states = row.get("states") or []
    if len(states) >= 2 and states[0][1] == states[0][1]:  # not NaN (PostgreSQL)
        lines.append(f"    rooms' stored states over the watched part: {states[0][1]:.1f} -> "
                     f"{states[-1][1]:.1f} MB, {slope(states):+.2f} MB/min (the games' own growth; "
                     "a worker keeps them parsed, several times their JSON)")
    total = sum(row["worker_cpu"].values()) or float("nan")
    lines.append("    worker CPU: " + ", ".join(
        f"{cpu:.1f} s ({cpu / total:.0%})" for cpu in sorted(row["worker_cpu"].values(), reverse=True)))
    pauses = [p for rows in row["gc"].values() for p in rows]
    if pauses:
        by_generation = {g: [ms for _, gen, ms in pauses if gen == g] for g in (0, 1, 2)}
        lines.append("    collector pauses >= 10 ms: " + "; ".join(
            f"generation {g}: {len(v)}, max {max(v):.0f} ms, total {sum(v) / 1000:.1f} s"
            for g, v in by_generation.items() if v))
    else:
        lines.append("    collector pauses >= 10 ms: none")
    return "\n".join(lines)


def database_growth(postgres: str) -> str:
    """What the database holds after the run, shown, not judged: the rooms' stored states (they
    grow with every move) and, on SQLite, the size of the file and of its write-ahead log."""
    import sqlite3

    if postgres:
        return ""
    path = Path(os.environ["KARTOTHEK_VAR_DIR"]) / "kartothek.sqlite3"
    with sqlite3.connect(path) as db:
        rooms, mean, largest = db.execute(
            "SELECT count(*), avg(length(state_json)), max(length(state_json)) FROM games_room").fetchone()
        log = db.execute("SELECT count(*) FROM games_actionlog").fetchone()[0]
    wal = Path(f"{path}-wal")
    return (f"database after the run: {rooms} rooms, state JSON mean {(mean or 0) / 1024:.1f} KB, "
            f"largest {(largest or 0) / 1024:.1f} KB; {log:,} logged actions; file "
            f"{path.stat().st_size / 2**20:.0f} MB, write-ahead log "
            f"{(wal.stat().st_size if wal.exists() else 0) / 2**20:.0f} MB")


def report(row: dict[str, Any], push: bool) -> str:
    rss = row["rss"]
    what = "event" if push else "poll"
    return (f"{row['name']:34} {row['players']:5} {row['duration']:5.0f}s "
            f"{len(row['actions']):7,} {percentile(row['actions'], 99):7.1f} "
            f"{len(row['seen']):8,} {percentile(row['seen'], 50):7.1f} "
            f"{percentile(row['seen'], 99):7.1f} ({what}) "
            f"{len(row['errors']):4} {row['server_cpu']:6.1f}s {row['client_cpu']:6.1f}s "
            f"{row['cpu_ms_per_player_s']:6.3f} {row['rss_start']:4.0f}/{rss[0][1]:4.0f}"
            f"->{rss[-1][1]:4.0f} MB {slope(rss):+5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--big-rooms", type=int, default=170, help="scenario b: rooms of 1,000 players")
    parser.add_argument("--big-duration", type=float, default=300.0)
    parser.add_argument("--big-every", type=float, default=4.0, help="seconds between a room's moves in b")
    parser.add_argument("--big-warm-up", type=float, default=480.0,
                        help="b runs this long before its memory is watched: the caches fill and "
                             "the rooms' first games end (they all start at once and their data "
                             "grows together for ~7 minutes; after that peak the allocators reuse "
                             "what the first games freed)")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between a room's moves in a")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--act-chance", type=float, default=0.5,
                        help="polling baseline: chance that a seat with legal actions acts after a poll")
    parser.add_argument("--postgres", default="", help="a DATABASE_URL of an empty PostgreSQL database")
    parser.add_argument("--quick", action="store_true", help="a few seconds of each, small rooms")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--only", choices=("a", "b"), default="",
                        help="run one scenario (a with its polling baseline, or b) and check its targets")
    args = parser.parse_args()
    if args.quick:
        args.rooms, args.players, args.duration = 4, 4, 5.0
        args.big_rooms, args.big_duration = 6, 8.0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    load_before = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    if args.postgres:
        os.environ["DATABASE_URL"] = args.postgres
    started = time.perf_counter()
    prepare()
    print(f"set-up {time.perf_counter() - started:.1f} s; load average before: {load_before}")
    port = free_port()
    log = Path(os.environ["KARTOTHEK_VAR_DIR"]) / "gunicorn.log"
    server = start_server(port, log, args.workers, args.postgres)
    rows: list[tuple[dict[str, Any], bool]] = []
    storage = ""
    try:
        wait_until_up(port, server, log)
        if args.only != "b":
            tables = asyncio.run(open_rooms(port, args.rooms, args.players, away=False))
            name = f"a push: {args.rooms} x {args.players}, move/{args.every:g}s"
            rows.append((scenario(server, port, name, "push", tables, args.duration, args.seed,
                                  args.every, 30), True))
            rows.append((scenario(server, port, "  baseline: same rooms polling 1/s", "poll", tables,
                                  args.duration, args.seed, args.act_chance, 30), False))
        if args.only != "a":
            big = asyncio.run(open_rooms(port, args.big_rooms, 6, away=False))
            rows.append((scenario(server, port, f"b push: {args.big_rooms} x 6, move/{args.big_every:g}s",
                                  "push", big, args.big_duration, args.seed, args.big_every,
                                  5 if args.quick else 30, 2.0 if args.quick else args.big_warm_up), True))
        storage = database_growth(args.postgres)
    finally:
        stop(server)
    load_after = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    errors = [e for row, _ in rows for e in row["errors"]]
    if errors:
        print(log.read_text()[-2000:])
    print(f"{'scenario':34} {'players':>5} {'time':>6} {'actions':>7} {'p99 ms':>7} "
          f"{'learned':>8} {'p50 ms':>7} {'p99 ms':>7}        {'err':>4} {'srv CPU':>7} {'load CPU':>7} "
          f"{'ms CPU/player-s':>6}  worker RSS: start/watched from->end, MB/min over the watched part")
    for row, push in rows:
        print(report(row, push))
        print(diagnosis(row))
    checks: dict[str, bool] = {}
    if args.only != "b":
        a, base = rows[0][0], rows[1][0]
        ratio = a["cpu_ms_per_player_s"] / (base["cpu_ms_per_player_s"] or float("nan"))
        print(f"server CPU per player-second, push / polling in this run: {ratio:.2f}; "
              f"learning p99, push / polling: {percentile(a['seen'], 99) / percentile(base['seen'], 99):.2f}")
        checks["a: every other seat learns of a move, p99 < 150 ms"] = percentile(a["seen"], 99) < 150
        checks["a: action p99 < 100 ms"] = percentile(a["actions"], 99) < 100
        checks["a: 0 errors"] = not a["errors"]
    if args.only != "a":
        b = rows[-1][0]
        checks["b: learns p99 < 250 ms"] = percentile(b["seen"], 99) < 250
        checks["b: 0 errors"] = not b["errors"]
        checks["b: worker memory flat (< 1 MB/min)"] = abs(slope(b["rss"])) < 1.0
    if storage:
        print(storage)
    for name, ok in checks.items():
        print(f"  {'ok    ' if ok else 'MISSED'} {name}")
    if errors:
        print(f"errors: {errors[:8]}")
    print(f"gunicorn {gunicorn_version()}: {args.workers} uvicorn workers on {HOST}; database: "
          f"{'PostgreSQL' if args.postgres else 'SQLite'}; machine: {machine()}; "
          f"load average before {load_before}, after {load_after}")


if __name__ == "__main__":
    main()  # bench/scratch.py removes the run's folder when the process exits
