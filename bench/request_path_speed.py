"""What the way through the ASGI application costs a play request: Django's own ASGI path
(``ASGIHandler``: a thread per request, each sync middleware's halves handed to it and back)
against kartothek/asgi.py's play path (the whole request on one thread of the play pool), on the
same requests, in one process, back to back and interleaved.

    python bench/request_path_speed.py [--requests 2000] [--rounds 3]

The requests go to the application object as uvicorn would call it (no sockets, so the
figures are the application's own): a play page 404 (``GET /api/play/rooms/NOROOM``, through
the whole middleware, one query) and the lobby page (``GET /play/``). CPU time of the process
per request (all its threads) and wall time per request, the best of --rounds rounds.
Target: the play path at most 0.5x Django's ASGI path in CPU per request for the 404, which is
little but the way through (the middleware and one query). The lobby page is shown, not judged:
its rendering is the same work on either path, so what the path saves is printed in ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-paths-")
(Path(os.environ["KARTOTHEK_VAR_DIR"]) / "static").mkdir()  # collectstatic's place, empty here
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
# one address sends every request: the per-client limits would answer 429 after a few
for name in ("KARTOTHEK_PLAY_RATE_LIMIT", "KARTOTHEK_PLAY_LOOKUP_LIMIT"):
    os.environ[name] = "0"
os.environ.pop("DATABASE_URL", None)

TARGET = 0.5
JUDGED = "/api/play/rooms/NOROOM"  # the way through and little else


def _scope(path: str) -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "headers": [(b"host", b"127.0.0.1")],
            "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 80)}


async def _one(app: Any, path: str) -> int:
    delivered = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(_scope(path), receive, send)
    return status


async def _measure(app: Any, path: str, count: int) -> tuple[float, float, int]:
    status = await _one(app, path)  # warm
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        await _one(app, path)
    return ((time.process_time() - cpu) / count * 1000,
            (time.perf_counter() - wall) / count * 1000, status)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    import logging

    import django

    django.setup()
    logging.disable(logging.WARNING)  # the 404s' "Not Found" lines would be timed too
    from django.core.handlers.asgi import ASGIHandler
    from django.core.management import call_command

    from kartothek.asgi import Handler

    call_command("migrate", verbosity=0)
    apps = {"Django's ASGI path": ASGIHandler(), "play path (kartothek.asgi)": Handler()}
    paths = ("/api/play/rooms/NOROOM", "/play/")
    best: dict[tuple[str, str], tuple[float, float, int]] = {}
    for _ in range(args.rounds):
        for path in paths:
            for name, app in apps.items():  # interleaved: a noisy moment hits both
                found = asyncio.run(_measure(app, path, args.requests))
                if (name, path) not in best or found[0] < best[(name, path)][0]:
                    best[(name, path)] = found
    print(f"{'path':<26} {'way through':<28} {'status':>6} {'CPU ms/req':>11} {'wall ms/req':>12}")
    met = True
    for path in paths:
        for name in apps:
            cpu, wall, status = best[(name, path)]
            print(f"{path:<26} {name:<28} {status:>6} {cpu:>11.3f} {wall:>12.3f}")
        django_cpu = best[("Django's ASGI path", path)][0]
        play_cpu = best[("play path (kartothek.asgi)", path)][0]
        ratio = play_cpu / django_cpu
        if path == JUDGED:
            met = ratio <= TARGET
            verdict = f"target <= {TARGET}x: {'met' if met else 'MISSED'}"
        else:
            verdict = f"shown, not judged: {django_cpu - play_cpu:.2f} ms CPU saved per request"
        print(f"{'':<26} {'ratio (CPU)':<28} {'':>6} {ratio:>10.2f}x  {verdict}")
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores; load average after {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"best of {args.rounds} rounds of {args.requests} requests")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
