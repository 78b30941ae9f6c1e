"""Delta size and serving speed: a 10,000-object Sauschwer pack (English), 20 objects changed
between release 1 and release 2; the delta 1..2 against the full release 2, in one run.

    python bench/delta_speed.py [--objects 10000] [--changed 20] [--duration 3] [--repeat 3]
                                [--connections 4] [--client auto|wrk|python]

Uses bench/serve_speed.py's throw-away SQLite database, gunicorn (2 sync workers on
127.0.0.1, stopped at the end) and load clients (wrk, or a bounded threaded Python client).
Targets (issue 16): delta bytes at most 2 % of the release's; delta requests/s at least those
of the full release. Both are measured plain and with gzip; the delta is checked first by
applying it to release 1 and comparing with release 2's bytes.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import serve_speed as serve  # sets up the throw-away environment first

SIZE_TARGET = 0.02


def prepare(objects: int, changed: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections
    from pack_speed import make_catalogue

    from cards.models import SauschwerObject
    from exports.packs import publish

    call_command("migrate", verbosity=0)
    make_catalogue(objects, 0)
    publish("sauschwer", "en")
    step = max(1, objects // changed)
    keys = [f"ding-{i:05d}" for i in range(0, objects, step)][:changed]
    for key in keys:  # a weight each: a change every client must learn of
        thing = SauschwerObject.objects.get(key=key)
        thing.weight_g += 1
        thing.save()
    publish("sauschwer", "en")
    connections.close_all()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--client", choices=["auto", "wrk", "python"], default="auto")
    args = parser.parse_args()
    client = args.client
    if client == "auto":
        client = "wrk" if shutil.which("wrk") else "python"
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    start = time.perf_counter()
    prepare(args.objects, args.changed)
    print(f"set-up {time.perf_counter() - start:.1f} s")
    release_path = "/api/packs/sauschwer/en/2.json"
    delta_path = "/api/packs/sauschwer/en/1..2.delta.json"
    gz = {"Accept-Encoding": "gzip"}
    targets = [serve.Target("release", release_path, {}, 200, -1),
               serve.Target("delta", delta_path, {}, 200, -1),
               serve.Target("release gzip", release_path, gz, 200, -1),
               serve.Target("delta gzip", delta_path, gz, 200, -1)]
    port = serve.free_port()
    log = Path(serve.os.environ["KARTOTHEK_VAR_DIR"]) / "gunicorn.log"
    server = serve.start_gunicorn(port, log, "kartothek.wsgi:application")
    try:
        serve.wait_until_up(port, server, log)
        first: dict[str, float] = {}
        for target in targets:  # check each URL, and warm both workers' caches
            for _ in range(4 * serve.WORKERS):
                began = time.perf_counter()
                status, _, body = serve.get(port, target)
                first.setdefault(target.name, time.perf_counter() - began)
                if status != 200:
                    raise RuntimeError(f"{target.path}: {status} {body[:300]!r}")
                target.size = len(body)
        from kartothek_client.delta import apply_delta

        old = serve.get(port, serve.Target("r1", "/api/packs/sauschwer/en/1.json", {}, 200, 0))[2]
        new = serve.get(port, targets[0])[2]
        delta = serve.get(port, targets[1])[2]
        assert apply_delta(json.loads(old), json.loads(delta)) == new, "the delta does not apply"
        best: dict[str, serve.Result] = {}
        for round_ in range(args.repeat):
            for target in targets[round_ % len(targets):] + targets[:round_ % len(targets)]:
                if client == "wrk":
                    result = serve.run_wrk(port, target, args.duration, args.connections)
                else:
                    result = serve.run_python(port, target, args.duration, args.connections,
                                              args.max_requests)
                if result.errors:
                    raise RuntimeError(f"{target.name}: {result.errors} failed requests")
                if target.name not in best or result.rps > best[target.name].rps:
                    best[target.name] = result
    finally:
        serve.stop(server)

    print()
    for target in targets:
        result = best[target.name]
        print(f"{target.name:13} {result.rps:9,.1f} requests/s  ({result.requests:,} requests, "
              f"{target.size:,} bytes each)")
    print("first request (a worker's caches cold): " + ", ".join(
        f"{name} {seconds * 1000:,.0f} ms" for name, seconds in first.items()))
    print()
    sizes = {t.name: t.size for t in targets}
    for suffix in ("", " gzip"):
        ratio = sizes["delta" + suffix] / sizes["release" + suffix]
        speed = best["delta" + suffix].rps / best["release" + suffix].rps
        print(f"delta / release{suffix or ' plain'}: {ratio:.2%} of the bytes (target <= "
              f"{SIZE_TARGET:.0%}: {'ok' if ratio <= SIZE_TARGET else 'MISSED'}), "
              f"{speed:.2f}x the requests/s (target >= 1: {'ok' if speed >= 1 else 'MISSED'})")
    print(f"{args.objects:,} objects, {args.changed} changed; best of {args.repeat} x "
          f"{args.duration:g} s per URL; client: {client}, {args.connections} connections; "
          f"gunicorn {serve.gunicorn_version()}: {serve.WORKERS} sync workers; machine: "
          f"{serve.machine()}")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(serve.os.environ["KARTOTHEK_VAR_DIR"], ignore_errors=True)
