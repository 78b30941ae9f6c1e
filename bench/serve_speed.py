"""Serving speed: requests/s of a published release through gunicorn, against a static file of
the same size served by the same server (django.views.static.serve at /media/), in one run.

    python bench/serve_speed.py [--objects 2000,10000] [--duration 3] [--repeat 3]
                                [--connections 4] [--client auto|wrk|python]

Prepares a throw-away SQLite database with published releases of a generated Sauschwer pack
(English): release 1 with the first --objects count, release 2 after growing the catalogue to
the next, and so on; copies each release's bytes into MEDIA_ROOT; starts gunicorn
(2 sync workers) on 127.0.0.1 at a free port and loads it from 127.0.0.1 with Debian's wrk
(apt-get install wrk) or, without wrk, a small threaded Python client. Every measurement is
bounded in time (and the Python client's in requests too); the best of --repeat runs counts.
gunicorn is stopped at the end, also on errors and Ctrl-C.
Target: a release at least 0.8x the requests/s of the static file of its size. Also measured,
on the biggest release: the 304 path (If-None-Match) and the gzip variant.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-")
os.environ.pop("DATABASE_URL", None)

HOST = "127.0.0.1"  # never anything else: the load stays on loopback
TARGET = 0.8
WORKERS = 2


@dataclass
class Target:
    name: str
    path: str
    headers: dict[str, str]
    status: int
    size: int  # body bytes expected


@dataclass
class Result:
    rps: float
    requests: int
    errors: int


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def machine() -> str:
    memory = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{os.cpu_count()} cores ({usable} usable), {memory} memory, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}")


def gunicorn_version() -> str:
    try:
        from importlib.metadata import version

        return version("gunicorn")
    except Exception:
        return "?"


def get(port: int, target: Target) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        connection.request("GET", target.path, headers=target.headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def wait_until_up(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            status, _, _ = get(port, Target("openapi", "/api/openapi.json", {}, 200, 0))
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not answer within 30 s:\n{log.read_text()[-3000:]}")


def run_wrk(port: int, target: Target, duration: float, connections: int) -> Result:
    command = ["wrk", "-t", "1", "-c", str(connections), "-d", f"{duration:g}s", "--timeout", "5s"]
    for name, value in target.headers.items():
        command += ["-H", f"{name}: {value}"]
    command.append(f"http://{HOST}:{port}{target.path}")
    out = subprocess.run(command, capture_output=True, text=True, timeout=duration + 30,
                         check=True).stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    if not rps or not total:
        raise RuntimeError(f"cannot read wrk's output:\n{out}")
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                              out)
    errors = (int(non_2xx.group(1)) if non_2xx else 0) + (
        sum(int(n) for n in socket_errors.groups()) if socket_errors else 0)
    return Result(float(rps.group(1)), int(total.group(1)), errors)


def run_python(port: int, target: Target, duration: float, connections: int,
               max_requests: int) -> Result:
    """A threaded keep-alive client (reconnects when the server closes, as gunicorn's sync
    workers do); stops at the deadline or after max_requests, whichever comes first."""
    deadline = time.monotonic() + duration
    lock = threading.Lock()
    counts = {"ok": 0, "errors": 0}

    def worker() -> None:
        connection: http.client.HTTPConnection | None = None
        while time.monotonic() < deadline:
            with lock:
                if counts["ok"] + counts["errors"] >= max_requests:
                    break
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(HOST, port, timeout=5)
                connection.request("GET", target.path, headers=target.headers)
                response = connection.getresponse()
                body = response.read()
                good = response.status == target.status and len(body) == target.size
                if response.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException):
                good = False
                if connection is not None:
                    connection.close()
                connection = None
            with lock:
                counts["ok" if good else "errors"] += 1
        if connection is not None:
            connection.close()

    start = time.monotonic()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(duration + 10)
    elapsed = time.monotonic() - start
    return Result(counts["ok"] / elapsed, counts["ok"] + counts["errors"], counts["errors"])


def prepare(sizes: list[int]) -> list[tuple[int, str, str, str, int]]:
    """Migrate; for each size, grow the catalogue to that many objects and publish it; copy
    each release into MEDIA_ROOT. Returns (objects, release path, ETag, static path, bytes)."""
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    from pack_speed import make_catalogue

    from exports.packs import publish

    media = Path(settings.MEDIA_ROOT) / "bench"
    media.mkdir(parents=True, exist_ok=True)
    prepared, have = [], 0
    for objects in sizes:
        make_catalogue(objects, 0, start_objects=have)
        have = objects
        release = publish("sauschwer", "en").release
        data = bytes(release.data)
        (media / f"release-{release.version}.json").write_bytes(data)
        prepared.append((objects, f"/api/packs/sauschwer/en/{release.version}.json",
                         f'"{release.sha256}"',
                         f"/{settings.MEDIA_URL.strip('/')}/bench/release-{release.version}.json",
                         len(data)))
    connections.close_all()
    return prepared


def start_gunicorn(port: int, log: Path, app: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": HOST}
    command = [sys.executable, "-m", "gunicorn", app,
               "--bind", f"{HOST}:{port}", "--workers", str(WORKERS), "--chdir", str(ROOT),
               "--error-logfile", str(log), "--log-level", "warning", "--graceful-timeout", "5"]
    # Its own process group, so that stopping it stops its workers too and nothing else.
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, start_new_session=True)


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(5)
    except ProcessLookupError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", default="2000,10000",
                        help="sizes of the releases, in Sauschwer objects, comma-separated")
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per URL")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--max-requests", type=int, default=200_000,
                        help="bound of one measurement (Python client)")
    parser.add_argument("--app", default="kartothek.wsgi:application",
                        help="the WSGI application gunicorn serves (to compare a changed one)")
    parser.add_argument("--client", choices=["auto", "wrk", "python"], default="auto")
    args = parser.parse_args()
    client = args.client
    if client == "auto":
        client = "wrk" if shutil.which("wrk") else "python"
    elif client == "wrk" and not shutil.which("wrk"):
        sys.exit("wrk is not installed (apt-get install wrk); or use --client python.")

    # A plain `kill` of this script must stop gunicorn too: turn SIGTERM into SystemExit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    sizes = sorted({int(n) for n in args.objects.split(",")})
    start = time.perf_counter()
    prepared = prepare(sizes)
    print(f"set-up {time.perf_counter() - start:.1f} s; Sauschwer/en releases:")
    targets = []
    for objects, release_path, _, static_path, size in prepared:
        print(f"  {release_path} ({size:,} bytes, {objects:,} objects), static copy {static_path}")
        targets += [Target(f"release {objects}", release_path, {}, 200, size),
                    Target(f"static {objects}", static_path, {}, 200, size)]
    objects, release_path, etag, _, _ = prepared[-1]
    targets += [Target(f"304 {objects}", release_path, {"If-None-Match": etag}, 304, 0),
                Target(f"gzip {objects}", release_path, {"Accept-Encoding": "gzip"}, 200, -1)]
    port = free_port()
    log = Path(os.environ["KARTOTHEK_VAR_DIR"]) / "gunicorn.log"
    server = start_gunicorn(port, log, args.app)
    try:
        wait_until_up(port, server, log)
        for target in targets:  # check each URL, and warm both workers' caches
            for _ in range(4 * WORKERS):
                status, headers, body = get(port, target)
                if target.size < 0:
                    target.size = len(body)
                if status != target.status or len(body) != target.size:
                    raise RuntimeError(f"{target.name}: {status}, {len(body)} bytes, expected "
                                       f"{target.status}, {target.size} bytes")
            if target.name.startswith("gzip"):
                assert headers.get("content-encoding") == "gzip", headers
        best: dict[str, Result] = {}
        for round_ in range(args.repeat):
            # a different order each round, so that a slow stretch of a shared machine does
            # not always fall on the same URL
            for target in targets[round_ % len(targets):] + targets[:round_ % len(targets)]:
                if client == "wrk":
                    result = run_wrk(port, target, args.duration, args.connections)
                else:
                    result = run_python(port, target, args.duration, args.connections,
                                        args.max_requests)
                if result.errors:
                    raise RuntimeError(f"{target.name}: {result.errors} failed requests of "
                                       f"{result.requests}:\n{log.read_text()[-3000:]}")
                if target.name not in best or result.rps > best[target.name].rps:
                    best[target.name] = result
    finally:
        stop(server)

    print()
    for target in targets:
        result = best[target.name]
        print(f"{target.name:13} {result.rps:9,.1f} requests/s  ({result.requests:,} requests, "
              f"{target.size:,} bytes each, status {target.status})")
    print()
    for objects, *_, size in prepared:
        ratio = best[f"release {objects}"].rps / best[f"static {objects}"].rps
        print(f"release / static, {size / 1000:7,.0f} kB: {ratio:4.2f}x  target >= {TARGET:g}x  "
              f"{'ok' if ratio >= TARGET else 'MISSED'}")
    objects = prepared[-1][0]
    print(f"304 / release,    {prepared[-1][-1] / 1000:7,.0f} kB: "
          f"{best[f'304 {objects}'].rps / best[f'release {objects}'].rps:4.2f}x")
    print(f"best of {args.repeat} x {args.duration:g} s per URL; client: {client}, "
          f"{args.connections} connections; gunicorn {gunicorn_version()} ({args.app}): "
          f"{WORKERS} sync workers on {HOST}; database: SQLite; machine: {machine()}")


if __name__ == "__main__":
    main()  # bench/scratch.py removes the run's folder when the process exits
