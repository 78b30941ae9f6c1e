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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ["KARTOTHEK_VAR_DIR"] = tempfile.mkdtemp(prefix="kartothek-bench-play-")
# Every simulated player comes from one address (loopback): the per-client limits are off; the
# per-room limits stay as deployed.
os.environ["KARTOTHEK_PLAY_RATE_LIMIT"] = "0"
os.environ["KARTOTHEK_PLAY_WRITE_LIMIT"] = "0"
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
        self.learned: list[float] = []  # action sent -> another seat's poll has its version
        self.sent: dict[tuple[str, int], tuple[float, str]] = {}


async def open_rooms(port: int, rooms: int, players: int, *,
                     away: bool = True) -> list[list[dict[str, str]]]:
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
        if not away:
            tables.append(seats)
            continue
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
                sent = stats.sent.get((seat["code"], body["version"]))
                if sent is not None and sent[1] != seat["seat"]:
                    stats.learned.append(time.perf_counter() - sent[0])
            else:
                stats.errors.append(f"poll {status}: {data[:200]!r}")
            if body is not None and body["legal_actions"] and rng.random() < act_chance:
                action = choose(body["legal_actions"], rng)
                if action is not None:
                    serial += 1
                    payload = json.dumps({"id": f"{seat['seat']}-{serial}-{rng.getrandbits(32)}",
                                          "version": body["version"], "action": action}).encode()
                    start = time.perf_counter()
                    stats.sent[(seat["code"], body["version"] + 1)] = (start, seat["seat"])
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


def _cpu_of(pid: int | str) -> float | None:
    """CPU seconds (user + system) so far of one process, or None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_cpu(master: int) -> dict[int, float]:
    """CPU seconds (user + system) so far of each of gunicorn's workers, by pid."""
    return {pid: cpu for pid in workers_of(master) if (cpu := _cpu_of(pid)) is not None}


def gc_pauses(log_dir: Path, since: float) -> dict[int, list[tuple[float, int, float]]]:
    """The workers' garbage-collector pauses of 10 ms or more since ``since`` (bench/
    gunicorn_probe.py): by pid, (wall time, generation, ms)."""
    found: dict[int, list[tuple[float, int, float]]] = {}
    for path in log_dir.glob("gc.*"):
        rows = []
        for line in path.read_text().splitlines():
            at, generation, took = line.split()
            if float(at) >= since:
                rows.append((float(at), int(generation), float(took)))
        found[int(path.suffix[1:])] = rows
    return found


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


async def run_polling(port: int, tables: list[list[dict[str, str]]], duration: float, seed: str,
                      act_chance: float) -> Stats:
    """The baseline: every seat polls once a second with If-None-Match (the pages before
    pushed updates), and acts now and then."""
    stats = Stats()
    deadline = time.monotonic() + duration
    rng = random.Random(seed)
    await asyncio.gather(*[player(port, seat, n == 0, stats, deadline, random.Random(rng.random()),
                                  act_chance) for seats in tables for n, seat in enumerate(seats)])
    return stats


# --- pushed updates: one event stream per player ----------------------------------------------


def parse_events(buffer: bytes) -> tuple[list[tuple[str | None, str, str]], bytes]:
    """Complete SSE messages in ``buffer`` as (id, event, data), and the rest."""
    found = []
    while b"\n\n" in buffer:
        message, buffer = buffer.split(b"\n\n", 1)
        ident, kind, data = None, "message", []
        for line in message.decode().split("\n"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "id":
                ident = value
            elif field == "event":
                kind = value
            elif field == "data":
                data.append(value)
        if data:
            found.append((ident, kind, "\n".join(data)))
    return found, buffer


class Push:
    """What the push scenario measures."""

    def __init__(self) -> None:
        self.actions: list[float] = []
        self.delivery: list[float] = []  # action sent -> another seat's stream has its event
        self.delivery_at: list[float] = []  # when each of those actions was sent (monotonic)
        self.conflicts = 0
        self.errors: list[str] = []
        self.events = 0
        self.sent: dict[tuple[str, int], tuple[float, str]] = {}  # (room, version) -> sent, by


async def listen(port: int, seat: dict[str, str], latest: dict[str, dict], push: Push,
                 deadline: float) -> None:
    """One player's event stream (raw HTTP/1.1, chunked), kept open until the deadline."""
    reader, writer = await asyncio.open_connection(HOST, port)
    head = (f"GET /api/play/rooms/{seat['code']}/events HTTP/1.1\r\nHost: {HOST}\r\n"
            f"Accept: text/event-stream\r\nAuthorization: Bearer {seat['token']}\r\n\r\n")
    writer.write(head.encode())
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    chunked = False
    while (line := await reader.readline()) not in (b"\r\n", b""):
        chunked |= line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower()
    if status != 200:
        push.errors.append(f"stream {status}")
        writer.close()
        return
    buffer = b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                if chunked:
                    size = int((await asyncio.wait_for(reader.readline(), left)).strip() or b"0", 16)
                    if size == 0:
                        push.errors.append("stream ended")
                        break
                    buffer += await reader.readexactly(size + 2)
                    buffer = buffer[:-2] if buffer.endswith(b"\r\n") else buffer
                else:
                    got = await asyncio.wait_for(reader.read(65536), left)
                    if not got:
                        push.errors.append("stream ended")
                        break
                    buffer += got
            except TimeoutError:
                break
            arrived = time.perf_counter()
            messages, buffer = parse_events(buffer)
            for ident, kind, data in messages:
                if kind != "room":
                    push.errors.append(f"{kind}: {data[:200]}")
                    continue
                push.events += 1
                body = json.loads(data)
                latest[seat["seat"]] = body
                sent = push.sent.get((seat["code"], int(ident or 0)))
                if sent is not None and sent[1] != seat["seat"]:
                    push.delivery.append(arrived - sent[0])
                    push.delivery_at.append(sent[0])
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        push.errors.append(f"stream {type(exc).__name__}: {exc}")
    finally:
        writer.close()


async def drive(port: int, seats: list[dict[str, str]], latest: dict[str, dict], push: Push,
                deadline: float, rng: random.Random, every: float) -> None:
    """One room: about every ``every`` seconds a seat that may act sends one action (chosen
    from its own stream's latest body); a finished game is started again by the host."""
    conn = Connection(port)
    await asyncio.sleep(rng.random() * every + 1.0)  # the streams open first
    serial = 0
    by_seat = {s["seat"]: s for s in seats}
    host = seats[0]
    rematch_at = -1  # the room's version after the last rematch this driver asked for
    while time.monotonic() < deadline - 1.0:
        tick = time.monotonic()
        try:
            bodies = [(seat_id, body) for seat_id, body in latest.items() if seat_id in by_seat]
            # the host asks for the rematch, by what the host's own stream says: a finished game
            # newer than the last rematch (a stream running late must not ask twice)
            seen = latest.get(host["seat"])
            if seen is not None and seen["status"] == "finished":
                if seen["version"] > rematch_at:  # else its first event is on its way
                    status, _, data = await conn.request(
                        "POST", f"/api/play/rooms/{host['code']}/again",
                        {"Authorization": f"Bearer {host['token']}"}, b"{}")
                    if status == 200:
                        rematch_at = json.loads(data)["version"]
                    else:
                        push.errors.append(f"again {status}: {data[:200]!r}")
            else:
                rng.shuffle(bodies)
                for seat_id, body in bodies:
                    action = choose(body["legal_actions"], rng) if body["status"] == "playing" else None
                    if action is None:
                        continue
                    seat = by_seat[seat_id]
                    serial += 1
                    payload = json.dumps({"id": f"{seat_id}-{serial}-{rng.getrandbits(32)}",
                                          "version": body["version"], "action": action}).encode()
                    push.sent[(seat["code"], body["version"] + 1)] = (time.perf_counter(), seat_id)
                    start = time.perf_counter()
                    status, _, data = await conn.request(
                        "POST", f"/api/play/rooms/{seat['code']}/actions",
                        {"Authorization": f"Bearer {seat['token']}"}, payload)
                    push.actions.append(time.perf_counter() - start)
                    if status == 409:
                        push.conflicts += 1
                    elif status != 200:
                        push.errors.append(f"action {status}: {data[:200]!r}")
                    break
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            push.errors.append(f"{type(exc).__name__}: {exc}")
            conn.close()
        await asyncio.sleep(max(0.0, every * rng.uniform(0.8, 1.2) - (time.monotonic() - tick)))
    conn.close()


async def run_push(port: int, tables: list[list[dict[str, str]]], duration: float, seed: str,
                   every: float) -> Push:
    push = Push()
    deadline = time.monotonic() + duration
    rng = random.Random(seed)
    tasks = []
    for seats in tables:
        latest: dict[str, dict] = {}
        tasks += [listen(port, seat, latest, push, deadline) for seat in seats]
        tasks.append(drive(port, seats, latest, push, deadline, random.Random(rng.random()), every))
    await asyncio.gather(*tasks)
    return push


# --- the load generator runs in its own process ---------------------------------------------


def _client(kind: str, port: int, tables: list, duration: float, seed: str, knob: float, out: Any) -> None:
    started = time.process_time()
    if kind == "push":
        result: Any = asyncio.run(run_push(port, tables, duration, seed, knob))
    else:
        result = asyncio.run(run_polling(port, tables, duration, seed, knob))
    result.sent = {}
    out.put((result, time.process_time() - started))


def in_client_process(kind: str, port: int, tables: list, duration: float, seed: str,
                      knob: float) -> tuple[Any, float]:
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    process = context.Process(target=_client, args=(kind, port, tables, duration, seed, knob, out))
    process.start()
    result, cpu = out.get(timeout=duration + 600)
    process.join(timeout=60)
    return result, cpu


def workers_of(master: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{master}/task/{master}/children").read_text().split()]
    except OSError:
        return []


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


def slope(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) samples, in MB per minute."""
    if len(samples) < 2:
        return 0.0
    xs, ys = [t for t, _ in samples], [m for _, m in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return 60 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


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
                           "rss_start": samples[0][1], "errors": result.errors,
                           "worker_cpu": each, "cpu_samples": cpu,
                           "states": [s for s in states if s[0] >= warm_up] or states,
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
    parser.add_argument("--big-warm-up", type=float, default=60.0,
                        help="b runs this long before its memory is watched (the caches fill)")
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
    try:
        main()
    finally:
        shutil.rmtree(os.environ["KARTOTHEK_VAR_DIR"], ignore_errors=True)
