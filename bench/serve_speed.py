"""Serving speed: requests/s of a published release as `make serve` runs it, beside the same app
on WSGI sync workers and beside nginx, in one run.

    python bench/serve_speed.py [--objects 200,2000,10000] [--duration 3] [--repeat 3]
                                [--connections 4] [--workers N] [--client auto|wrk|python]

Prepares a throw-away SQLite database with published releases of a generated Sauschwer pack
(English): release 1 with the first --objects count, release 2 after growing the catalogue to
the next, and so on; collects the static files; copies each release's bytes into MEDIA_ROOT.
Then starts, on 127.0.0.1 at free ports:

- *deployed*: `make serve`'s server: gunicorn with deploy/gunicorn.conf.py and
  kartothek.asgi:application (uvicorn workers, ASGI), its access log included;
- *wsgi*: the same command and config with gunicorn's sync workers and kartothek.wsgi;
- *front*: nginx with deploy/nginx.conf (tools/front_proxy.py) in front of a third server like
  *deployed*: nginx keeps the packs API's immutable answers and sends the static files; and,
  through the same nginx, the release's bytes as a plain file (/media/): nginx's own speed.

Each is loaded from 127.0.0.1 with Debian's wrk (`make bench-serve` installs it) or, without
wrk, a small threaded Python client. Every measurement is bounded in time; the best of
--repeat runs counts, the order changing every round. Every server is stopped at the end,
also on errors and Ctrl-C.

Targets, as ratios within the run: a release and its 304 as deployed >= 0.8x the same app on
WSGI; a 304 >= 5x a full answer (the biggest release, as deployed); a release through the
front proxy >= 0.5x nginx's own static speed on the same bytes.
"""

from __future__ import annotations

import argparse
import base64
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
from contextlib import ExitStack
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
AS_DEPLOYED = 0.8  # a release and its 304 as deployed / the same on WSGI
NOT_MODIFIED = 5.0  # a 304 / a full answer
FRONT = 0.5  # a release through the front proxy / nginx's own static file
WORKERS = 2  # start_gunicorn's sync workers (bench/delta_speed.py)


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
    closed: int = 0  # connections the server closed under the client
    cpu_ms: float = float("nan")  # the server's CPU time per request (all its processes)


def group_cpu(pgid: int) -> float:
    """CPU seconds of every process in a process group so far, the workers a master has
    reaped included (their time is in its cutime/cstime)."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # fields from the state on: pgrp is the third
            ticks += sum(int(n) for n in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


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
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{os.cpu_count()} cores ({usable} usable), {memory} memory, load average {load:.2f}, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}")


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("gunicorn", "uvicorn", "httptools", "uvloop"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} -")
    nginx = subprocess.run(["nginx", "-v"], capture_output=True, text=True) if shutil.which(
        "nginx") else None
    found.append(nginx.stderr.strip().replace("nginx version: ", "") if nginx else "nginx -")
    return ", ".join(found)


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
    deadline = time.monotonic() + 60
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
    raise RuntimeError(f"gunicorn did not answer within 60 s:\n{log.read_text()[-3000:]}")


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
    connect, read, write, timeout = (int(n) for n in socket_errors.groups()) if socket_errors \
        else (0, 0, 0, 0)
    # A keep-alive connection closed under wrk by a worker that gunicorn recycles
    # (max_requests, deploy/gunicorn.conf.py) is a read error: counted, not a failure.
    return Result(float(rps.group(1)), int(total.group(1)),
                  (int(non_2xx.group(1)) if non_2xx else 0) + connect + timeout, read + write)


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


@dataclass
class Prepared:
    objects: int
    release_path: str
    etag: str
    media_path: str  # the same bytes as a plain file under /media/
    size: int


def prepare(sizes: list[int]) -> tuple[list[Prepared], str, int]:
    """Migrate; for each size, grow the catalogue to that many objects and publish it; copy
    each release into MEDIA_ROOT; collect the static files. Returns the releases and one
    static file's URL path and size (the admin's stylesheet, as pages name it)."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.staticfiles.storage import staticfiles_storage
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
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
        prepared.append(Prepared(
            objects, f"/api/packs/sauschwer/en/{release.version}.json", f'"{release.sha256}"',
            f"/{settings.MEDIA_URL.strip('/')}/bench/release-{release.version}.json", len(data)))
    connections.close_all()
    stylesheet = "admin/css/base.css"
    static_size = (Path(settings.STATIC_ROOT) / staticfiles_storage.stored_name(stylesheet)).stat()
    return prepared, staticfiles_storage.url(stylesheet), static_size.st_size


def start_gunicorn(port: int, log: Path, app: str) -> subprocess.Popen[bytes]:
    """gunicorn with WORKERS sync workers serving the WSGI application ``app`` (bench/delta_speed.py)."""
    env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": HOST}
    command = [sys.executable, "-m", "gunicorn", app,
               "--bind", f"{HOST}:{port}", "--workers", str(WORKERS), "--chdir", str(ROOT),
               "--error-logfile", str(log), "--log-level", "warning", "--graceful-timeout", "5"]
    # Its own process group, so that stopping it stops its workers too and nothing else.
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, start_new_session=True)


def start_server(port: int, log: Path, wsgi: bool, workers: int | None) -> subprocess.Popen[bytes]:
    """`make serve`'s command and config (deploy/gunicorn.conf.py); with ``wsgi`` the same on
    gunicorn's sync workers. Its access log (stdout) and errors go to ``log``."""
    env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": HOST, "HOST": HOST, "PORT": str(port)}
    if workers:
        env["WEB_CONCURRENCY"] = str(workers)
    command = [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py"]
    if wsgi:
        command += ["--worker-class", "sync", "kartothek.wsgi:application"]
    else:
        command += ["kartothek.asgi:application"]
    # Its own process group, so that stopping it stops its workers too and nothing else.
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=log.open("ab"),
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


def targets_of(prepared: list[Prepared], static: tuple[str, int],
               front: bool) -> list[tuple[str, Target]]:
    """(server, target) pairs to measure."""
    biggest = prepared[-1]
    pairs: list[tuple[str, Target]] = []
    for server in ("deployed", "wsgi", *(("front",) if front else ())):
        for release in prepared:
            pairs.append((server, Target(f"release {release.objects}", release.release_path, {},
                                         200, release.size)))
        pairs.append((server, Target(f"304 {biggest.objects}", biggest.release_path,
                                     {"If-None-Match": biggest.etag}, 304, 0)))
        pairs.append((server, Target("static file", static[0], {}, 200, static[1])))
    if front:
        for release in prepared:
            pairs.append(("front", Target(f"nginx file {release.objects}", release.media_path, {},
                                          200, release.size)))
    return pairs


def check_answers(pairs: list[tuple[str, Target]], ports: dict[str, int]) -> None:
    """Each URL answers as expected on its server (and every worker's caches get warm)."""
    for server, target in pairs:
        for _ in range(16):
            status, headers, body = get(ports[server], target)
            if status != target.status or len(body) != target.size:
                raise RuntimeError(f"{server} {target.name}: {status}, {len(body)} bytes, "
                                   f"expected {target.status}, {target.size} bytes")
        if target.name.startswith("release") and server == "front":
            assert headers.get("etag") and headers.get("cache-control"), headers


def measure(pairs: list[tuple[str, Target]], ports: dict[str, int], pgids: dict[str, int],
            args: argparse.Namespace, client: str,
            logs: dict[str, Path]) -> dict[tuple[str, str], Result]:
    """The best requests/s of each pair over the rounds, with the CPU its server spent per
    request in that run (what a busy shared machine changes least)."""
    best: dict[tuple[str, str], Result] = {}
    for round_ in range(args.repeat):
        # a different order each round, so that a slow stretch of a shared machine does not
        # always fall on the same URL
        shift = round_ * len(pairs) // max(1, args.repeat)
        for server, target in pairs[shift:] + pairs[:shift]:
            before = group_cpu(pgids[server])
            if client == "wrk":
                result = run_wrk(ports[server], target, args.duration, args.connections)
            else:
                result = run_python(ports[server], target, args.duration, args.connections,
                                    args.max_requests)
            result.cpu_ms = (group_cpu(pgids[server]) - before) * 1000 / max(1, result.requests)
            if result.errors:
                log = logs.get(server)
                raise RuntimeError(f"{server} {target.name}: {result.errors} failed requests, "
                                   f"{result.closed} connections closed, of "
                                   f"{result.requests}:\n"
                                   f"{log.read_text()[-3000:] if log else ''}")
            key = (server, target.name)
            if key not in best or result.rps > best[key].rps:
                best[key] = result
    return best


def report(best: dict[tuple[str, str], Result], prepared: list[Prepared], front: bool) -> bool:
    names = [n for s, n in best if s == "deployed"]
    servers = ["deployed", "wsgi", *(("front",) if front else ())]
    print(f"\n{'requests/s (CPU ms each)':24}" + "".join(f"{s:>20}" for s in servers))
    rows = names + ([f"nginx file {r.objects}" for r in prepared] if front else [])
    for name in rows:
        print(f"{name:24}" + "".join(
            f"{best[(s, name)].rps:11,.0f} ({best[(s, name)].cpu_ms:5.2f})" if (s, name) in best
            else f"{'':20}" for s in servers))
    print()
    met = True

    def judge(label: str, ratio: float, target: float) -> None:
        nonlocal met
        ok = ratio >= target
        met = met and ok
        print(f"{label:54} {ratio:6.2f}x  target >= {target:g}x  {'ok' if ok else 'MISSED'}")

    for release in prepared:
        name = f"release {release.objects}"
        judge(f"deployed / wsgi, {name} ({release.size / 1000:,.0f} kB)",
              best[("deployed", name)].rps / best[("wsgi", name)].rps, AS_DEPLOYED)
    biggest = prepared[-1]
    not_modified = f"304 {biggest.objects}"
    judge(f"deployed / wsgi, {not_modified}",
          best[("deployed", not_modified)].rps / best[("wsgi", not_modified)].rps, AS_DEPLOYED)
    judge(f"304 / full answer, deployed ({biggest.size / 1000:,.0f} kB)",
          best[("deployed", not_modified)].rps / best[("deployed", f"release {biggest.objects}")].rps,
          NOT_MODIFIED)
    print(f"{'deployed / wsgi, static file (shown)':54} "
          f"{best[('deployed', 'static file')].rps / best[('wsgi', 'static file')].rps:6.2f}x")
    if front:
        for release in prepared:
            judge(f"front proxy / nginx file, release {release.objects}",
                  best[("front", f"release {release.objects}")].rps
                  / best[("front", f"nginx file {release.objects}")].rps, FRONT)
    return met


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", default="200,2000,10000",
                        help="sizes of the releases, in Sauschwer objects, comma-separated")
    parser.add_argument("--duration", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per URL")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--workers", type=int, default=None,
                        help="gunicorn workers of each server (default: deploy/gunicorn.conf.py's)")
    parser.add_argument("--max-requests", type=int, default=200_000,
                        help="bound of one measurement (Python client)")
    parser.add_argument("--client", choices=["auto", "wrk", "python"], default="auto")
    parser.add_argument("--no-front", action="store_true", help="skip nginx")
    args = parser.parse_args()
    # As deployed: releases are signed (production needs a key), so a full answer carries its
    # signature, which each process keeps once read (without one, each full answer asks the
    # database whether a signature came since).
    os.environ.setdefault("KARTOTHEK_SIGNING_KEY", base64.b64encode(os.urandom(32)).decode())
    client = args.client
    if client == "auto":
        client = "wrk" if shutil.which("wrk") else "python"
    elif client == "wrk" and not shutil.which("wrk"):
        sys.exit("wrk is not installed (apt-get install wrk); or use --client python.")
    from tools.front_proxy import FrontProxy, nginx_binary

    front = not args.no_front and nginx_binary() is not None
    if not front and not args.no_front:
        print("nginx is not installed (apt-get install nginx-light): no front-proxy figures.")

    # A plain `kill` of this script must stop the servers too: turn SIGTERM into SystemExit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    sizes = sorted({int(n) for n in args.objects.split(",")})
    start = time.perf_counter()
    prepared, static_path, static_size = prepare(sizes)
    print(f"set-up {time.perf_counter() - start:.1f} s; Sauschwer/en releases:")
    for release in prepared:
        print(f"  {release.release_path} ({release.size:,} bytes, {release.objects:,} objects)")
    print(f"  static file {static_path} ({static_size:,} bytes)")
    pairs = targets_of(prepared, (static_path, static_size), front)
    var = Path(os.environ["KARTOTHEK_VAR_DIR"])
    ports = {name: free_port() for name in ("deployed", "wsgi", "behind", "front")}
    logs = {name: var / f"{name}.log" for name in ("deployed", "wsgi", "behind")}
    with ExitStack() as stack:
        servers = {
            "deployed": start_server(ports["deployed"], logs["deployed"], False, args.workers),
            "wsgi": start_server(ports["wsgi"], logs["wsgi"], True, args.workers),
        }
        if front:
            servers["behind"] = start_server(ports["behind"], logs["behind"], False, args.workers)
        for server in servers.values():
            stack.callback(stop, server)
        for name, server in servers.items():
            wait_until_up(ports[name], server, logs[name])
        if front:
            proxy = stack.enter_context(FrontProxy(ports["front"], f"{HOST}:{ports['behind']}", var,
                                           var / "nginx"))
        check_answers(pairs, ports)
        pgids = {name: server.pid for name, server in servers.items()}
        if front:
            pgids["front"] = proxy.process.pid  # nginx's own CPU (not the app's behind it)
        best = measure(pairs, ports, pgids, args, client, logs)
    met = report(best, prepared, front)
    print(f"best of {args.repeat} x {args.duration:g} s per URL; client: {client}, "
          f"{args.connections} connections; gunicorn workers per server: "
          f"{args.workers or 'deploy/gunicorn.conf.py default (2 x cores + 1)'}; {versions()}; "
          f"database: SQLite; machine: {machine()}")
    print("every target met" if met else "a target was MISSED")


if __name__ == "__main__":
    main()  # bench/scratch.py removes the run's folder when the process exits
