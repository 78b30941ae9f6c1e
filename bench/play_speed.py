"""Play mode under load: gunicorn on loopback, many rooms of players polling once a second
while they play; p50/p99 of polls and of actions, errors, and queries per poll.

    python bench/play_speed.py [--rooms 50] [--players 6] [--duration 60] [--workers 2]
                               [--threads 8]

Prepares a throw-away SQLite database with a release of each game (the engine tests' small
packs), opens --rooms rooms (the four games in turn) of --players seats through the API and
starts them; one seat per room is marked away, so a server-side bot plays it (in Sign at a
human pace, on polls). Then every seat is a client with its own keep-alive connection that
polls its room once a second with If-None-Match and, when it may act, sends one of its legal
actions now and then (a random one: the "bot" on the client side sees only its seat's answer).
A finished game is started again by its host. Timings are taken by the client, from sending
the request to the last byte of the answer. Afterwards the queries of one 304 poll, one 200
poll and one action are counted in-process on the same database (and the 304's must not read
the state). gunicorn is stopped at the end, also on errors and Ctrl-C.

Target on the 2-core machine: p99 below 100 ms, 0 errors, a 304 poll without reading the state.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ["KARTOTHEK_VAR_DIR"] = tempfile.mkdtemp(prefix="kartothek-bench-play-")
os.environ["KARTOTHEK_PLAY_RATE_LIMIT"] = "0"  # one client address opens every room
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
os.environ.pop("DATABASE_URL", None)

from serve_speed import HOST, free_port, gunicorn_version, machine, stop, wait_until_up  # noqa: E402

GAMES = ("sign", "sauschwer", "symbols", "slogan")
TARGET_P99_MS = 100.0
OPTIONAL = {"stop", "sign", "challenge", "replace"}  # rare on purpose: games should go on


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


def start_server(port: int, log: Path, workers: int, threads: int):  # type: ignore[no-untyped-def]
    import subprocess

    env = {**os.environ, "DEBUG": "0", "ALLOWED_HOSTS": HOST}
    command = [sys.executable, "-m", "gunicorn", "kartothek.wsgi:application",
               "--bind", f"{HOST}:{port}", "--workers", str(workers),
               "--worker-class", "gthread", "--threads", str(threads), "--keep-alive", "5",
               "--chdir", str(ROOT), "--error-logfile", str(log), "--log-level", "warning",
               "--graceful-timeout", "5"]
    output = (log.parent / "gunicorn-output.log").open("ab")  # Django's own error reports
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=output,
                            stderr=subprocess.STDOUT, start_new_session=True)


class Connection:
    """One keep-alive HTTP/1.1 connection (reopened when the server closes it)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, headers: dict[str, str],
                      body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", "Connection: keep-alive"]
            head += [f"{k}: {v}" for k, v in headers.items()]
            if body or method == "POST":
                head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
            try:
                assert self.writer is not None and self.reader is not None
                self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
                await self.writer.drain()
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionResetError("closed")
                status = int(status_line.split()[1])
                answer: dict[str, str] = {}
                while True:
                    line = await self.reader.readline()
                    if line in (b"\r\n", b""):
                        break
                    name, _, value = line.decode().partition(":")
                    answer[name.strip().lower()] = value.strip()
                length = int(answer.get("content-length", "0"))
                data = await self.reader.readexactly(length) if length else b""
                if answer.get("connection", "").lower() == "close":
                    self.close()
                return status, answer, data
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise RuntimeError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Stats:
    def __init__(self) -> None:
        self.polls: list[float] = []
        self.polls_304 = 0
        self.actions: list[float] = []
        self.conflicts = 0
        self.errors: list[str] = []


async def open_rooms(port: int, rooms: int, players: int) -> list[list[dict[str, str]]]:
    conn = Connection(port)
    tables = []
    for number in range(rooms):
        game = GAMES[number % len(GAMES)]
        payload = json.dumps({"game": game, "language": "en", "name": "P1", "cookie": False,
                              "options": {"target_points": 99} if game == "sign" else {}}).encode()
        status, _, data = await conn.request("POST", "/api/play/rooms", {}, payload)
        assert status == 201, (status, data[:300])
        created = json.loads(data)
        seats = [{"code": created["code"], "seat": created["seat"], "token": created["token"]}]
        for n in range(2, players + 1):
            status, _, data = await conn.request(
                "POST", f"/api/play/rooms/{created['code']}/seats", {},
                json.dumps({"name": f"P{n}", "cookie": False}).encode())
            assert status == 201, (status, data[:300])
            joined = json.loads(data)
            seats.append({"code": created["code"], "seat": joined["seat"], "token": joined["token"]})
        auth = {"Authorization": f"Bearer {seats[0]['token']}"}
        status, _, data = await conn.request("POST", f"/api/play/rooms/{created['code']}/start", auth, b"{}")
        assert status == 200, (status, data[:300])
        last = seats[-1]
        status, _, data = await conn.request(
            "POST", f"/api/play/rooms/{created['code']}/seats/{last['seat']}/away",
            {"Authorization": f"Bearer {last['token']}"}, b"{}")
        assert status == 200, (status, data[:300])
        tables.append(seats)
    conn.close()
    return tables


def choose(legal: list[dict], rng: random.Random) -> dict | None:
    usual = [a for a in legal if a.get("type") not in OPTIONAL]
    if usual:
        return rng.choice(usual)
    if legal and rng.random() < 0.1:
        return rng.choice(legal)
    return None


async def player(port: int, seat: dict[str, str], host: bool, stats: Stats, deadline: float,
                 rng: random.Random, act_chance: float) -> None:
    conn = Connection(port)
    auth = {"Authorization": f"Bearer {seat['token']}"}
    path = f"/api/play/rooms/{seat['code']}"
    etag: str | None = None
    body: dict | None = None
    await asyncio.sleep(rng.random())  # spread the polls over the second
    serial = 0
    while time.monotonic() < deadline:
        tick = time.monotonic()
        headers = dict(auth)
        if etag:
            headers["If-None-Match"] = etag
        try:
            start = time.perf_counter()
            status, answer, data = await conn.request("GET", path, headers)
            stats.polls.append(time.perf_counter() - start)
            if status == 304:
                stats.polls_304 += 1
            elif status == 200:
                etag, body = answer.get("etag"), json.loads(data)
            else:
                stats.errors.append(f"poll {status}: {data[:200]!r}")
            if body is not None and body["legal_actions"] and rng.random() < act_chance:
                action = choose(body["legal_actions"], rng)
                if action is not None:
                    serial += 1
                    payload = json.dumps({"id": f"{seat['seat']}-{serial}-{rng.getrandbits(32)}",
                                          "version": body["version"], "action": action}).encode()
                    start = time.perf_counter()
                    status, answer, data = await conn.request("POST", path + "/actions", auth, payload)
                    stats.actions.append(time.perf_counter() - start)
                    if status in (200, 409):
                        stats.conflicts += status == 409
                        etag, body = answer.get("etag"), json.loads(data)
                    else:
                        stats.errors.append(f"action {status}: {data[:200]!r}")
            if host and body is not None and body["status"] == "finished":
                status, _, data = await conn.request("POST", path + "/again", auth, b"{}")
                if status != 200:
                    stats.errors.append(f"again {status}: {data[:200]!r}")
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            stats.errors.append(f"{type(exc).__name__}: {exc}")
            conn.close()
        await asyncio.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
    conn.close()


def cpu_seconds(master: int) -> float:
    """CPU time (user + system) used so far by gunicorn's workers (Linux /proc)."""
    total = 0.0
    try:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    except OSError:
        return float("nan")
    for pid in [str(master), *children]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] * 1000


def count_queries(code: str, token: str) -> dict[str, object]:
    """Queries of one 304 poll, one 200 poll and one action, in-process on the same database."""
    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST=HOST)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    url = f"/api/play/rooms/{code}"
    result: dict[str, object] = {}
    with CaptureQueriesContext(connection) as full:
        first = client.get(url, **auth)
    result["200"] = len(full)
    with CaptureQueriesContext(connection) as cached:
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **auth)
    result["304"] = len(cached) if again.status_code == 304 else f"({again.status_code})"
    result["304 reads state"] = any("state_json" in q["sql"] for q in cached)
    body = first.json()
    legal = [a for a in body["legal_actions"] if a.get("type") not in OPTIONAL] or body["legal_actions"]
    if legal:
        with CaptureQueriesContext(connection) as acted:
            client.post(url + "/actions", json.dumps({"id": "count-queries", "version": body["version"],
                                                      "action": legal[0]}),
                        content_type="application/json", **auth)
        result["action"] = len(acted)
    return result


async def run(args: argparse.Namespace, port: int) -> tuple[Stats, list[list[dict[str, str]]]]:
    tables = await open_rooms(port, args.rooms, args.players)
    stats = Stats()
    deadline = time.monotonic() + args.duration
    rng = random.Random(args.seed)
    tasks = [player(port, seat, n == 0, stats, deadline, random.Random(rng.random()), args.act_chance)
             for seats in tables for n, seat in enumerate(seats)]
    await asyncio.gather(*tasks)
    return stats, tables


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--act-chance", type=float, default=0.5,
                        help="chance that a seat with legal actions acts after a poll")
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    load_before = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    started = time.perf_counter()
    prepare()
    print(f"set-up {time.perf_counter() - started:.1f} s")
    port = free_port()
    log = Path(os.environ["KARTOTHEK_VAR_DIR"]) / "gunicorn.log"
    server = start_server(port, log, args.workers, args.threads)
    try:
        wait_until_up(port, server, log)
        cpu_before = cpu_seconds(server.pid)
        stats, tables = asyncio.run(run(args, port))
        cpu_used = cpu_seconds(server.pid) - cpu_before
    finally:
        stop(server)
    if stats.errors:
        reports = (log.parent / "gunicorn-output.log").read_text(errors="replace")
        print(log.read_text()[-2000:])
        print("\n".join(line for line in reports.splitlines() if "Error" in line or "error" in line)[-3000:])
    queries = count_queries(tables[0][0]["code"], tables[0][0]["token"])

    polls, actions = stats.polls, stats.actions
    p99 = max(percentile(polls, 99), percentile(actions, 99))
    print(f"{args.rooms} rooms x {args.players} players, {args.duration:g} s, one poll a second each "
          f"(one seat per room played by a server-side bot)")
    for name, values, note in (("polls", polls, f"{stats.polls_304:,} answered 304"),
                               ("actions", actions, f"{stats.conflicts:,} answered 409: someone was faster")):
        print(f"{name:8}{len(values):7,}  p50 {percentile(values, 50):6.1f} ms  "
              f"p99 {percentile(values, 99):6.1f} ms  ({note})")
    print(f"errors  {len(stats.errors)}" + (f": {stats.errors[:5]}" if stats.errors else ""))
    print(f"queries per poll: 304 -> {queries['304']} (reads the state: {queries['304 reads state']}), "
          f"200 -> {queries['200']}; per action: {queries.get('action', '?')}")
    print(f"mean poll {statistics.fmean(polls) * 1000 if polls else float('nan'):.1f} ms; server CPU "
          f"{cpu_used:.1f} s in the run ({cpu_used / max(1, len(polls) + len(actions)) * 1000:.2f} ms "
          f"per request, setup requests and bots' moves included); load average before: {load_before}")
    ok = p99 < TARGET_P99_MS and not stats.errors and not queries["304 reads state"]
    print(f"target p99 < {TARGET_P99_MS:g} ms, 0 errors, 304 without the state: {'ok' if ok else 'MISSED'}")
    print(f"gunicorn {gunicorn_version()}: {args.workers} gthread workers x {args.threads} threads on "
          f"{HOST}; database: SQLite; machine: {machine()}")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(os.environ["KARTOTHEK_VAR_DIR"], ignore_errors=True)
