"""`make faults`: faults in the middle of `make load`'s load, and what is left afterwards.

    python tools/faults.py [--users 200] [--duration 120] [--workers N]

The same stack as tools/load.py (a throw-away PostgreSQL, the starter catalogue, gunicorn with
the production settings on loopback, locust with pack readers and play rooms with bots), and
during the run:

1. at 25 % of it, one gunicorn worker is killed (SIGKILL, as the kernel's OOM killer would);
2. at 45 %, PostgreSQL is stopped (fast shutdown: every connection cut), left down for 5 s and
   started again.

Requests fail while a fault lasts. Afterwards (``--grace`` seconds after PostgreSQL is back)
every request must succeed again: each failed request is logged with its time by the locust
users. Each action a client was answered "applied" (a 200; the clients keep the log, and send
an action whose answer was lost again with the same id) must be in its room's action log in
the database, by the same seat, at a version after the one it was sent at and not after the
one it was answered with.

3. After the load: a 20,000-row import (`manage.py import_content`, one transaction) is killed
   with SIGKILL once its transaction has written (its backend holds a transaction id), and the
   content tables' checksum (every row of every table of the ``cards`` app) must equal the one
   before. The same import then runs to its end, to show the checksum sees what it writes.

Prints each check with its figures; exits non-zero when one fails.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import (
    HOST,
    ROOT,
    MemorySampler,
    free_port,
    gunicorn,
    log,
    machine,
    postgres,
    prepare,
    read_stats,
    server_environment,
    start_locust,
    stats_table,
    stop_process,
    workers_of,
)

IMPORT_ROWS = 20_000
APP_NAME = "kartothek-fault-import"


def kill_a_worker(master: int) -> tuple[int, float]:
    """SIGKILL one worker; (its pid, seconds until gunicorn had as many workers again)."""
    workers = workers_of(master)
    victim = workers[0]
    os.kill(victim, signal.SIGKILL)
    started = time.monotonic()
    while time.monotonic() - started < 60:
        if len([pid for pid in workers_of(master) if pid != victim]) >= len(workers):
            break
        time.sleep(0.1)
    return victim, time.monotonic() - started


def read_lines(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def check_actions(database_url: str, told: list[dict[str, object]]) -> tuple[int, list[str]]:
    """Each told action in its room's log: same seat, sent_version < version <= answered_version."""
    import psycopg

    problems: list[str] = []
    with psycopg.connect(database_url) as connection:
        rows = connection.execute(
            "SELECT r.code, l.action_id, l.seat, l.version FROM games_actionlog l "
            "JOIN games_room r ON r.id = l.room_id WHERE l.by = 'player'").fetchall()
    logged = {(code, action_id): (seat, version) for code, action_id, seat, version in rows}
    for action in told:
        found = logged.get((str(action["code"]), str(action["id"])))
        if found is None:
            problems.append(f"lost: {action}")
        elif found[0] != action["seat"] or not (
                int(action["sent_version"]) < found[1] <= int(action["answered_version"])):  # type: ignore[call-overload]
            problems.append(f"differs: told {action}, logged seat {found[0]} version {found[1]}")
    return len(rows), problems


def content_checksum(database_url: str) -> tuple[int, str]:
    """(rows, md5) over every row of every table of the cards app, in a stable order."""
    import hashlib

    import psycopg

    digest = hashlib.md5(usedforsecurity=False)
    total = 0
    with psycopg.connect(database_url) as connection:
        tables = [name for (name,) in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'cards\\_%' "
            "ORDER BY tablename").fetchall()]
        for table in tables:
            count, md5 = connection.execute(
                f'SELECT count(*), md5(coalesce(string_agg(t::text, \'|\' ORDER BY t::text), \'\')) '
                f'FROM "{table}" t').fetchone()  # type: ignore[misc]
            total += count
            digest.update(f"{table}:{count}:{md5};".encode())
    return total, digest.hexdigest()


def big_import_file(folder: Path) -> Path:
    """The starter's Sauschwer objects, repeated under new keys to IMPORT_ROWS rows."""
    with (ROOT / "fixtures/sauschwer/objects.csv").open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    path = folder / "objects-big.csv"
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        for number in range(IMPORT_ROWS):
            row = dict(rows[number % len(rows)])
            row["key"] = f"fault-{number}-{row['key']}"[:60]  # keys: at most 60 characters
            row["name"] = f"{row['name']} Nr. {number}"  # names are unique in the catalogue
            writer.writerow(row)
    return path


def kill_an_import(env: dict[str, str], database_url: str, path: Path) -> tuple[float, bool]:
    """Start the import, SIGKILL it once its transaction has written; (seconds, had written)."""
    import psycopg

    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "manage.py", "import_content", str(path)], cwd=ROOT,
                               env={**env, "PGAPPNAME": APP_NAME}, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wrote = False
    with psycopg.connect(database_url, autocommit=True) as connection:
        while process.poll() is None and time.monotonic() - started < 600:
            row = connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
                "AND backend_xid IS NOT NULL", [APP_NAME]).fetchone()
            if row and row[0]:
                wrote = True
                time.sleep(0.5)  # well inside the writing
                break
            time.sleep(0.05)
        if process.poll() is not None:
            raise RuntimeError(f"the import ended ({process.returncode}) before it could be killed: "
                               f"manage.py import_content {path} says why")
        process.send_signal(signal.SIGKILL)
        process.wait()
        # The server notices the dropped connection and rolls back; wait until it has.
        while connection.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                                 [APP_NAME]).fetchone()[0]:  # type: ignore[index]
            time.sleep(0.1)
    return time.monotonic() - started, wrote


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--duration", type=float, default=120, help="seconds (default 120)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--grace", type=float, default=10.0,
                        help="seconds after PostgreSQL is back before every request must succeed")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    folder = Path(tempfile.mkdtemp(prefix="kartothek-faults-"))
    log(f"machine: {machine()}; files in {folder}")
    actions_file, failures_file = folder / "actions.jsonl", folder / "failures.jsonl"
    results: list[tuple[str, bool, str]] = []
    with postgres(None) as server:
        env = server_environment(server.url, folder / "var", free_port(), args.workers, recycle=False)
        prepare(env)
        with gunicorn(env, folder) as app:
            port = int(env["PORT"])
            log(f"gunicorn {app.pid} on {HOST}:{port} with {len(workers_of(app.pid))} workers; "
                f"locust: {args.users} users for {args.duration:.0f} s")
            sampler = MemorySampler(app.pid)
            sampler.start()
            begun, begun_at = time.monotonic(), time.time()
            locust = start_locust(port, args.users, args.duration, folder, {
                "KARTOTHEK_LOAD_ACTIONS": str(actions_file),
                "KARTOTHEK_LOAD_FAILURES": str(failures_file)})
            try:
                time.sleep(max(0.0, begun + args.duration * 0.25 - time.monotonic()))
                killed_at = time.time()
                victim, respawn = kill_a_worker(app.pid)
                log(f"killed worker {victim} (SIGKILL); replaced after {respawn:.1f} s")
                time.sleep(max(0.0, begun + args.duration * 0.45 - time.monotonic()))
                pg_down_at = time.time()
                log("stopping PostgreSQL for 5 s")
                server.restart(5.0)
                recovered_at = time.time()
                log(f"PostgreSQL is back; every request from {args.grace:.0f} s on must succeed")
                locust.wait(args.duration + 120)
            finally:
                stop_process(locust)
                sampler.stop()
            if app.poll() is not None:
                results.append(("gunicorn still running", False, f"exited {app.returncode}"))

        failures = read_lines(failures_file)
        deadline = recovered_at + args.grace
        during_worker = [f for f in failures if float(f["at"]) < pg_down_at]  # type: ignore[arg-type]
        during_pg = [f for f in failures if pg_down_at <= float(f["at"]) < deadline]  # type: ignore[arg-type]
        after = [f for f in failures if float(f["at"]) >= deadline]  # type: ignore[arg-type]
        rows = read_stats(folder)
        total = next(row for row in rows if row.name == "Aggregated")
        results.append((
            "every request succeeds after recovery", not after,
            f"{total.requests} requests; failed: {len(during_worker)} around the worker kill "
            f"(at {killed_at - begun_at:.0f} s, replaced in {respawn:.1f} s), {len(during_pg)} while "
            f"PostgreSQL was down or coming back (from {pg_down_at - begun_at:.0f} s, "
            f"{recovered_at - pg_down_at:.1f} s + {args.grace:.0f} s grace), {len(after)} afterwards"
            + (f": {after[:3]}" if after else "")))
        told = read_lines(actions_file)
        logged, problems = check_actions(server.url, told)
        results.append(("no room lost an applied action", bool(told) and not problems,
                        f"{len(told)} actions the clients were told were applied, {logged} player "
                        f"actions in the rooms' logs; {len(problems)} missing or different"
                        + (f": {problems[:3]}" if problems else "")))

        try:
            before = content_checksum(server.url)
            big = big_import_file(folder)
            seconds, wrote = kill_an_import(env, server.url, big)
            after_kill = content_checksum(server.url)
            results.append(("a killed import leaves the content as it was", wrote and after_kill == before,
                            f"SIGKILL after {seconds:.1f} s, its transaction had written: {wrote}; "
                            f"{before[0]} content rows, checksum {before[1][:12]} before, "
                            f"{after_kill[1][:12]} after"))
            done = subprocess.run([sys.executable, "manage.py", "import_content", str(big)], cwd=ROOT,
                                  env=env, capture_output=True, text=True, timeout=900)
            completed = content_checksum(server.url)
            results.append(("the checksum sees a completed import",
                            done.returncode == 0 and completed != before,
                            f"{completed[0]} content rows, checksum {completed[1][:12]}"
                            + ("" if done.returncode == 0 else f": {done.stderr[-300:]}")))
        except Exception as exc:  # the load's results are still worth printing
            results.append(("a killed import leaves the content as it was", False, repr(exc)))

    print()
    print("\n".join(stats_table(rows)))
    print()
    memory, _ = sampler.report(min(30.0, args.duration / 4), 1.0)
    print("Worker memory (RSS):\n" + "\n".join(memory))
    print()
    for name, ok, detail in results:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    passed = all(ok for _, ok, _ in results)
    if passed and not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
