"""A real ASGI server (uvicorn, kartothek.asgi) on a loopback port in a thread of the test
process, and a Server-Sent Events reader over real HTTP (httpx)."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn


@dataclass
class Event:
    """One SSE message: ``kind`` is ``event:`` (``message`` by default), ``comment`` holds a
    comment line's text (a heartbeat) when the message is only that."""

    kind: str
    id: str | None
    data: str
    comment: str | None = None

    @property
    def body(self) -> Any:
        return json.loads(self.data)


class Server:
    def __init__(self, *, access_log: bool = False) -> None:
        """``access_log``: uvicorn logs each request (``uvicorn.access``, level info)."""
        from kartothek.asgi import application

        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(application, lifespan="off",
                                log_level="info" if access_log else "warning",
                                timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


class Stream:
    """An open event stream read by a thread; ``next()`` is the next message."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.messages: queue.Queue[Event | BaseException | None] = queue.Queue()
        self.client = httpx.Client(timeout=httpx.Timeout(10, read=None))
        self.response = self.client.send(self.client.build_request("GET", url, headers=headers),
                                          stream=True)
        self.status = self.response.status_code
        self.headers = self.response.headers
        self.thread = threading.Thread(target=self._read, daemon=True)
        if self.status == 200:
            self.thread.start()

    def _read(self) -> None:
        kind, ident, data, comment = "message", None, [], None
        try:
            for line in self.response.iter_lines():
                if line == "":
                    if data or comment is not None:
                        self.messages.put(Event(kind, ident, "\n".join(data), comment))
                    kind, ident, data, comment = "message", None, [], None
                    continue
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "":
                    comment = value
                elif field == "event":
                    kind = value
                elif field == "id":
                    ident = value
                elif field == "data":
                    data.append(value)
        except (httpx.HTTPError, RuntimeError) as exc:
            self.messages.put(exc)
        finally:
            self.messages.put(None)

    def next(self, timeout: float = 10, *, heartbeats: bool = False) -> Event:
        """The next message (heartbeats, the comments and the ``ping`` events, skipped unless
        asked for)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                got = self.messages.get(timeout=max(0.001, left))
            except queue.Empty:
                raise AssertionError(f"no event within {timeout} s") from None
            if got is None:
                raise AssertionError("the stream ended")
            if isinstance(got, BaseException):
                raise AssertionError(f"the stream broke: {got!r}")
            if (got.kind == "ping" or (got.comment is not None and not got.data)) and not heartbeats:
                continue
            if got.kind == "message" and not got.data and got.comment is None:
                continue
            return got

    def quiet(self, seconds: float) -> list[Event]:
        """Every message but the heartbeats within ``seconds`` (expected: none)."""
        found: list[Event] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                got = self.messages.get(timeout=left)
            except queue.Empty:
                break
            if isinstance(got, Event) and got.data and got.kind != "ping":
                found.append(got)
        return found

    def close(self) -> None:
        self.response.close()
        self.client.close()


@contextmanager
def stream(url: str, headers: dict[str, str] | None = None) -> Iterator[Stream]:
    opened = Stream(url, headers)
    try:
        yield opened
    finally:
        opened.close()


class StreamCutter:
    """``cut()``: every event stream open now stops sending (no byte more, its connection kept
    open: a network that died without a word); ``cut(loud=True)``: each ends (the server
    closed it). Streams opened later are not affected. A stream notices at its next message
    (a ping comes every ``KARTOTHEK_PLAY_EVENTS_PING`` seconds)."""

    def __init__(self) -> None:
        self.cuts: list[bool] = []  # loud or not, one per cut

    def cut(self, *, loud: bool = False) -> None:
        self.cuts.append(loud)


@contextmanager
def cuttable_streams() -> Iterator[StreamCutter]:
    """``games.api``'s event streams, made cuttable by the test (see ``StreamCutter``)."""
    import asyncio
    from contextlib import aclosing

    from games import api

    original = api._events
    cutter = StreamCutter()

    async def events(*args: Any, **kwargs: Any) -> Any:
        born = len(cutter.cuts)
        async with aclosing(original(*args, **kwargs)) as inner:
            async for chunk in inner:
                if len(cutter.cuts) > born:
                    if cutter.cuts[born]:
                        return
                    await asyncio.Event().wait()  # silent until the client goes
                yield chunk

    api._events = events  # type: ignore[assignment]
    try:
        yield cutter
    finally:
        api._events = original  # type: ignore[assignment]
