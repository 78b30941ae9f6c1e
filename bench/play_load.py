"""The load of bench/play_speed.py: simulated players, each on its own keep-alive connection to
the play API. In the polling baseline every seat polls its room once a second with If-None-Match
and acts now and then; with pushed updates every seat keeps its room's event stream open and one
driver per room sends a seat's action every few seconds. They count their own timings (from
sending a request to the last byte of its answer; from sending an action to its event on another
seat's stream, or to another seat's poll that has its version) and errors, and run in a process of
their own (in_client_process), so the clients' CPU is not the server's.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

from serve_speed import HOST

GAMES = ("sign", "sauschwer", "symbols", "slogan")
OPTIONAL = {"stop", "sign", "challenge", "replace"}  # rare on purpose: games should go on


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
                if kind == "ping":  # the stream's sign of life (every second)
                    continue
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
