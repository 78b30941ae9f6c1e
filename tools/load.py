"""`make load`: the production configuration under 200 concurrent clients (issue 14's proof).

    python tools/load.py [--users 200] [--duration 300] [--workers N] [--recycle]

Starts everything it needs and stops it again, also on errors and Ctrl-C:

1. PostgreSQL: a throw-away cluster on a free loopback port (`.ci/postgres.sh`; needs root or
   the postgres user's `runuser`), unless ``--database-url`` names a server whose role may
   create databases. A fresh database is made on it and dropped at the end.
2. The starter catalogue (`import_catalogue`) and its releases (`publish_starter`), then
   `collectstatic`, as `make serve` does. The prepared database is kept as a dump in
   `var/loadtest-cache/` (keyed by the fixtures and the code), so later runs start in seconds.
3. gunicorn with `deploy/gunicorn.conf.py` on 127.0.0.1 and `DEBUG=0` (the production
   settings; the play rate limit off, since every client comes from one address). Worker
   recycling (`max_requests`) is turned off unless ``--recycle``: a recycled worker would hide
   the growth this run looks for.
4. locust, headless (`loadtest/locustfile.py`): pack readers and play rooms with bots.
   Each gunicorn worker's resident memory is sampled every few seconds meanwhile.

Prints requests, failures, p50 and p99 per endpoint and each worker's memory over the run
(after the first minute, half-way through the rest, at the end), and exits non-zero on any
failed request or when a worker's memory grew by more than ``--rss-tolerance`` (default 5 %)
over the second half. The run's files (locust's CSVs, gunicorn's log) stay in the printed folder.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import platform
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def machine() -> str:
    memory = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    return (f"{os.cpu_count()} cores, {memory} memory, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, load before {os.getloadavg()[0]:.2f}")


# --- PostgreSQL ------------------------------------------------------------------------------


@dataclass
class Postgres:
    """A throw-away cluster (started here) or a given server; one fresh database on it."""

    admin_url: str  # a database of the server the role may connect to
    url: str = ""  # the fresh database's
    root: str = ""  # the cluster's folder when started here
    bin: str = ""

    def restart(self, down_seconds: float = 5.0) -> None:
        """Stop the server (fast shutdown: every connection is cut), wait, start it again."""
        if not self.root:
            raise RuntimeError("a server not started here is not restarted (use the default)")
        ctl = [f"{self.bin}/pg_ctl", "-D", f"{self.root}/data", "-w"]
        subprocess.run(["runuser", "-u", "postgres", "--", *ctl, "-m", "fast", "stop"], check=True,
                       stdout=subprocess.DEVNULL)
        time.sleep(down_seconds)
        # the options .ci/postgres.sh starts it with
        port = self.admin_url.rsplit(":", 1)[1].split("/")[0]
        opts = f"-p {port} -k {self.root}/sock -c listen_addresses={HOST} -c fsync=off"
        subprocess.run(["runuser", "-u", "postgres", "--", *ctl, "-l", f"{self.root}/log",
                        "-o", opts, "start"], check=True, stdout=subprocess.DEVNULL)


@contextlib.contextmanager
def postgres(given_url: str | None) -> Iterator[Postgres]:
    import psycopg

    if given_url:
        server = Postgres(admin_url=given_url)
    else:
        started = subprocess.run(["bash", str(ROOT / ".ci/postgres.sh"), "start"], check=True,
                                 capture_output=True, text=True, timeout=600)
        values = dict(part.split("=", 1) for line in started.stdout.splitlines()
                      for part in line.removeprefix("export ").split())
        server = Postgres(admin_url=values["DATABASE_URL"], root=values["PGROOT"], bin=values["PGBIN"])
    name = f"kartothek_load_{os.getpid()}"
    with psycopg.connect(server.admin_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    server.url = server.admin_url.rsplit("/", 1)[0] + "/" + name
    try:
        yield server
    finally:
        with contextlib.suppress(Exception), psycopg.connect(server.admin_url, autocommit=True) as c:
            c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if server.root:
            subprocess.run(["bash", str(ROOT / ".ci/postgres.sh"), "stop", server.root],
                           check=False, timeout=120)


# --- the app server --------------------------------------------------------------------------


def server_environment(database_url: str, var_dir: Path, port: int, workers: int | None,
                       recycle: bool) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("KARTOTHEK_", "SECURE_", "AXES_", "DJANGO_"))}
    env.update(
        DEBUG="0", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS=HOST,
        DATABASE_URL=database_url, KARTOTHEK_VAR_DIR=str(var_dir), HOST=HOST, PORT=str(port),
        KARTOTHEK_PLAY_RATE_LIMIT="0",  # every simulated client comes from 127.0.0.1
        DJANGO_SETTINGS_MODULE="kartothek.settings", PYTHONUNBUFFERED="1",
    )
    if workers:
        env["WEB_CONCURRENCY"] = str(workers)
    if not recycle:
        env["GUNICORN_CMD_ARGS"] = "--max-requests 0"
    return env


def manage(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")


CACHE = ROOT / "var" / "loadtest-cache"


def content_key() -> str:
    """What the prepared database depends on: the fixtures and the apps' code (migrations and
    importer included). Another key means another import; old entries are dropped."""
    import hashlib

    digest = hashlib.sha256()
    for top in ("fixtures", "cards", "exports", "games", "kartothek"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and "static" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def pg_tool(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
                                                   reverse=True)), None)
    if not found:
        raise RuntimeError(f"{name} is not installed (apt-get install postgresql-client)")
    return str(found)


def prepare(env: dict[str, str]) -> None:
    """The starter catalogue and its releases in the fresh database, and the static files.

    The first run imports (a minute or two on a busy machine) and keeps a dump of the result
    and of the pictures in var/loadtest-cache/; later runs with the same fixtures and code
    restore that in seconds."""
    started = time.perf_counter()
    # collectstatic needs no database: it runs beside the rest.
    static = subprocess.Popen([sys.executable, "manage.py", "collectstatic", "--no-input"], cwd=ROOT,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    cached = CACHE / content_key()
    media = Path(env["KARTOTHEK_VAR_DIR"]) / "media"
    if (cached / "done").exists():
        subprocess.run([pg_tool("pg_restore"), "--no-owner", "--exit-on-error", "--dbname",
                        env["DATABASE_URL"], str(cached / "database.dump")], check=True, timeout=600)
        shutil.copytree(cached / "media", media, dirs_exist_ok=True)
        log(f"restored the prepared catalogue from {cached} ({time.perf_counter() - started:.1f} s)")
    else:
        for command in (("migrate", "--no-input"), ("import_catalogue",), ("publish_starter",)):
            manage(env, *command)
            log(f"manage.py {command[0]} done ({time.perf_counter() - started:.1f} s)")
        shutil.rmtree(CACHE, ignore_errors=True)
        cached.mkdir(parents=True)
        subprocess.run([pg_tool("pg_dump"), "--format=custom", "--no-owner", "--file",
                        str(cached / "database.dump"), env["DATABASE_URL"]], check=True, timeout=600)
        if media.exists():
            shutil.copytree(media, cached / "media")
        else:
            (cached / "media").mkdir()
        (cached / "done").touch()
    _, errors = static.communicate(timeout=600)
    if static.returncode:
        raise RuntimeError(f"collectstatic failed:\n{errors.decode()[-3000:]}")


def get(port: int, path: str, timeout: float = 5.0) -> int:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=timeout) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@contextlib.contextmanager
def gunicorn(env: dict[str, str], folder: Path) -> Iterator[subprocess.Popen[bytes]]:
    output = (folder / "gunicorn.log").open("ab")
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py",
                               "kartothek.asgi:application"], cwd=ROOT, env=env, stdout=output,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {server.returncode}; see {folder}/gunicorn.log")
            with contextlib.suppress(OSError):
                if get(int(env["PORT"]), "/api/openapi.json") == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not answer within 60 s; see {folder}/gunicorn.log")
            time.sleep(0.2)
        yield server
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)
        output.close()


def workers_of(master: int) -> list[int]:
    try:
        return [int(pid) for pid in Path(f"/proc/{master}/task/{master}/children").read_text().split()]
    except OSError:
        return []


def cpu_seconds(master: int) -> float:
    """CPU time (user + system) used so far by gunicorn's master and its current workers."""
    total = 0.0
    for pid in [master, *workers_of(master)]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


@dataclass
class MemorySampler:
    """Every ``every`` seconds, the resident memory of each of gunicorn's workers."""

    master: int
    every: float = 5.0
    samples: dict[int, list[tuple[float, float]]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic() - self.started
            for pid in workers_of(self.master):
                rss = rss_mib(pid)
                if rss is not None:
                    self.samples.setdefault(pid, []).append((now, rss))
            self._stop.wait(self.every)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def save(self, path: Path) -> None:
        with path.open("w", encoding="utf-8") as file:
            file.write("worker,seconds,rss_mib\n")
            for pid, samples in self.samples.items():
                file.writelines(f"{pid},{t:.1f},{rss:.1f}\n" for t, rss in samples)

    def report(self, settled_after: float, tolerance: float) -> tuple[list[str], bool]:
        """One line per worker: its memory at ``settled_after`` s, half-way through the rest,
        and at the end, and the largest. Flat when the second half grew by at most
        ``tolerance`` (the first minutes fill the per-process caches of immutable bytes)."""
        lines, flat = [], True
        for pid, samples in sorted(self.samples.items(), key=lambda item: item[1][0][0]):
            settled = [rss for t, rss in samples if t >= settled_after] or [samples[-1][1]]
            first, middle, last = settled[0], settled[len(settled) // 2], settled[-1]
            span = f"{samples[0][0]:.0f}–{samples[-1][0]:.0f} s"
            growth = (last - middle) / middle if middle else 0.0
            ok = growth <= tolerance
            flat &= ok
            lines.append(f"worker {pid} ({span}, {len(samples)} samples): {first:.1f} → "
                         f"{middle:.1f} → {last:.1f} MiB (max {max(settled):.1f}; second half "
                         f"{growth:+.1%}) {'flat' if ok else 'GREW'}")
        return lines, flat


# --- locust ----------------------------------------------------------------------------------


def start_locust(port: int, users: int, duration: float, folder: Path,
                 extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    spawn_rate = max(1, users // 20)  # everyone within ~20 s
    command = [sys.executable, "-m", "locust", "-f", str(ROOT / "loadtest/locustfile.py"),
               "--headless", "--users", str(users), "--spawn-rate", str(spawn_rate),
               "--run-time", f"{int(duration)}s", "--host", f"http://{HOST}:{port}",
               "--csv", str(folder / "locust"), "--only-summary", "--stop-timeout", "10",
               "--loglevel", "WARNING", "--exit-code-on-error", "1"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(extra_env or {})}
    output = (folder / "locust.log").open("ab")
    return subprocess.Popen(command, cwd=folder, env=env, stdout=output, stderr=subprocess.STDOUT,
                            start_new_session=True)


def stop_process(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)


@dataclass
class Endpoint:
    name: str
    requests: int
    failures: int
    p50: float
    p99: float
    rps: float


def read_stats(folder: Path) -> list[Endpoint]:
    rows = []
    with (folder / "locust_stats.csv").open(encoding="utf-8") as file:
        for row in csv.DictReader(file):
            rows.append(Endpoint(
                name=row["Name"],
                requests=int(row["Request Count"]), failures=int(row["Failure Count"]),
                p50=float(row["50%"] or 0), p99=float(row["99%"] or 0),
                rps=float(row["Requests/s"] or 0)))
    return rows


def stats_table(rows: list[Endpoint]) -> list[str]:
    lines = ["| endpoint | requests | failures | p50 ms | p99 ms | req/s |", "|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row.name} | {row.requests} | {row.failures} | {row.p50:.0f} | "
                     f"{row.p99:.0f} | {row.rps:.1f} |")
    return lines


def failures_of(folder: Path, limit: int = 10) -> list[str]:
    path = folder / "locust_failures.csv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as file:
        return [f"{row['Occurrences']}× {row['Method']} {row['Name']}: {row['Error'][:200]}"
                for row in list(csv.DictReader(file))[:limit]]


# --- the run ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--duration", type=float, default=300, help="seconds (default 300)")
    parser.add_argument("--workers", type=int, default=None,
                        help="gunicorn workers (default: deploy/gunicorn.conf.py's, 2 × cores + 1)")
    parser.add_argument("--recycle", action="store_true",
                        help="keep gunicorn's max_requests recycling (production's default)")
    parser.add_argument("--database-url", default=None,
                        help="a PostgreSQL server to use instead of a throw-away one")
    parser.add_argument("--rss-tolerance", type=float, default=0.05,
                        help="largest growth of a worker's memory over the run's second half")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    folder = Path(tempfile.mkdtemp(prefix="kartothek-load-"))
    log(f"machine: {machine()}; files in {folder}")
    with postgres(args.database_url) as server:
        env = server_environment(server.url, folder / "var", free_port(), args.workers, args.recycle)
        prepare(env)
        with gunicorn(env, folder) as app:
            port = int(env["PORT"])
            log(f"gunicorn {app.pid} on {HOST}:{port} with {len(workers_of(app.pid))} workers; "
                f"locust: {args.users} users for {args.duration:.0f} s")
            sampler = MemorySampler(app.pid)
            sampler.start()
            cpu_before = cpu_seconds(app.pid)
            locust = start_locust(port, args.users, args.duration, folder)
            try:
                locust.wait(args.duration + 120)
            finally:
                stop_process(locust)
                sampler.stop()
            server_cpu = cpu_seconds(app.pid) - cpu_before
    rows = read_stats(folder)
    sampler.save(folder / "rss.csv")
    settle = min(60.0, args.duration / 4)
    memory, flat = sampler.report(settle, args.rss_tolerance)
    total = next((row for row in rows if row.name == "Aggregated"), None)
    print()
    print("\n".join(stats_table(rows)))
    print()
    if total and total.requests:
        # Machine-independent (mostly): what the app server spent per request, whatever else
        # ran on the machine meanwhile.
        print(f"Server CPU: {server_cpu:.0f} s for {total.requests} requests = "
              f"{1000 * server_cpu / total.requests:.1f} ms per request; load average now "
              f"{os.getloadavg()[0]:.1f}\n")
    print(f"Worker memory (RSS) at {settle:.0f} s → half-way through the rest → at the end:")
    print("\n".join(memory))
    problems = failures_of(folder)
    if problems:
        print("\nFailures:\n" + "\n".join(problems))
    failed = total is None or total.failures > 0 or locust.returncode not in (0, None)
    summary = {"users": args.users, "duration_s": args.duration,
               "requests": total.requests if total else 0, "failures": total.failures if total else None,
               "memory_flat": flat, "locust_exit": locust.returncode}
    print("\n" + json.dumps(summary))
    if not args.keep and not failed and flat:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failed or not flat else 0


if __name__ == "__main__":
    sys.exit(main())
