"""What comes off the wire, bounded and checked before the client uses it.

A server or a mirror may answer anything: a body without end, a gzip bomb, a byte every 29
seconds, JSON nested a million deep, a number where a string belongs. Every request here
reads at most ``limit`` bytes (and inflates at most ``limit`` bytes), and ends at its
deadline however slowly the bytes come; every value read from an answer goes through one of
the typed readers below. Whatever does not fit raises ``KartothekError``, nothing else.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import http.client
import json
import re
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from typing import Any

from kartothek_client.errors import KartothekError

CHUNK = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """How much a request may take: ``timeout`` seconds for any one socket operation,
    ``deadline`` seconds for the whole request (TLS handshake, headers, body), and bytes."""

    timeout: float = 30.0
    deadline: float = 60.0
    max_json_bytes: int = 1024 * 1024  # keys, signatures, redirects, errors
    max_pack_bytes: int = 64 * 1024 * 1024  # a release or a delta, read and inflated

    def __post_init__(self) -> None:
        if not (self.timeout > 0 and self.deadline > 0):
            raise ValueError("timeout and deadline must be positive seconds.")
        if self.max_json_bytes < 1 or self.max_pack_bytes < 1:
            raise ValueError("max_json_bytes and max_pack_bytes must be positive.")


@dataclass
class Answer:
    status: int
    headers: Any  # an email.message.Message: .get(name, default)
    body: bytes


# --- the deadline ----------------------------------------------------------------------------

class _Watchdog:
    """Cuts a request's connection when its deadline passes: a read timeout alone never
    fires for a server that sends one byte just before each read would time out."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def watch(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self._sockets.append(sock)
            if self.fired:
                _cut(sock)
        return sock

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for sock in self._sockets:
                _cut(sock)

    def expired(self) -> bool:
        return self.fired or self.remaining() <= 0

    def cancel(self) -> None:
        self._timer.cancel()


def _cut(sock: socket.socket) -> None:
    """Wakes a read blocked on ``sock`` in another thread (it then sees the end of the
    stream); the plain socket's shutdown, also under TLS, which would tear down its state."""
    with contextlib.suppress(OSError, ValueError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Connection(http.client.HTTPConnection):
    """A connection whose socket the watchdog can cut from the moment it exists."""

    def __init__(self, *args: Any, watchdog: _Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        create = self._create_connection  # type: ignore[has-type]
        self._create_connection = lambda *a, **k: watchdog.watch(create(*a, **k))


class _SecureConnection(http.client.HTTPSConnection):
    """The same for TLS: the TLS socket is watched before its handshake, which a server
    could drip as slowly as any answer."""

    def __init__(self, *args: Any, watchdog: _Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        create = self._create_connection  # type: ignore[has-type]
        self._create_connection = lambda *a, **k: watchdog.watch(create(*a, **k))
        given: ssl.SSLContext = self._context
        self._context: Any = _WatchedContext(given, watchdog)


class _WatchedContext:
    """An ssl.SSLContext that hands the TLS socket to the watchdog before the handshake."""

    def __init__(self, context: ssl.SSLContext, watchdog: _Watchdog) -> None:
        self._context, self._watchdog = context, watchdog

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def wrap_socket(self, sock: socket.socket, **kwargs: Any) -> ssl.SSLSocket:
        tls = self._context.wrap_socket(sock, **{**kwargs, "do_handshake_on_connect": False})
        self._watchdog.watch(tls)
        tls.do_handshake()
        return tls


class _Plain(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_Connection, req, watchdog=self.watchdog)  # type: ignore[arg-type]


class _Secure(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_SecureConnection, req,  # type: ignore[arg-type]
                            context=self._context, watchdog=self.watchdog)  # type: ignore[attr-defined]


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None  # 302/303 come back as HTTPError and are read by the client itself


# --- one request -----------------------------------------------------------------------------

def fetch(url: str, *, limit: int, limits: Limits) -> Answer:
    """GET ``url``: its status, headers and body (inflated when gzip), or KartothekError when
    it fails, takes longer than ``limits.deadline`` or sends more than ``limit`` bytes."""
    watchdog = _Watchdog(limits.deadline)
    opener = urllib.request.build_opener(_NoRedirects, _Plain(watchdog), _Secure(watchdog))
    try:
        request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
        try:
            response: Any = opener.open(request, timeout=min(limits.timeout, limits.deadline))
        except urllib.error.HTTPError as exc:  # 3xx, 4xx, 5xx: read like any other answer
            response = exc
        with response:
            status, headers = int(response.code), response.headers
            body = _read(response, headers, limit, watchdog, url)
    except KartothekError:
        raise
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
        if watchdog.expired():
            raise _late(url, watchdog.seconds) from None
        raise KartothekError(f"{url}: {exc.__class__.__name__}: {exc}") from None
    finally:
        watchdog.cancel()
    if str(headers.get("Content-Encoding", "")).strip().lower() == "gzip":
        body = inflate(body, limit, url)
    return Answer(status, headers, body)


def _late(url: str, seconds: float) -> KartothekError:
    return KartothekError(f"{url}: no whole answer within the deadline of {seconds:g} s.")


def _read(response: Any, headers: Any, limit: int, watchdog: _Watchdog, url: str) -> bytes:
    """The body in chunks, stopped past ``limit`` bytes and at the deadline."""
    announced = str(headers.get("Content-Length", "") or "").strip()
    if announced.isdigit() and len(announced) < 20 and int(announced) > limit:
        raise _too_big(url, limit)
    chunks: list[bytes] = []
    size = 0
    while True:
        if watchdog.expired():
            raise _late(url, watchdog.seconds)
        chunk = response.read(min(CHUNK, limit + 1 - size))
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            raise _too_big(url, limit)
        chunks.append(chunk)
    if watchdog.fired:  # a cut connection reads as the end of the body
        raise _late(url, watchdog.seconds)
    return b"".join(chunks)


def _too_big(url: str, limit: int) -> KartothekError:
    return KartothekError(f"{url}: the answer is larger than this client's limit of {limit} bytes.")


def inflate(data: bytes, limit: int, what: str = "the answer") -> bytes:
    """gzip ``data`` inflated piece by piece, refused as soon as it passes ``limit`` bytes:
    a few hundred kilobytes may inflate to gigabytes."""
    out = bytearray()
    rest = data
    while rest:  # one gzip member after another, as gzip.decompress reads them
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        pending = rest
        try:
            while not inflater.eof:
                piece = inflater.decompress(pending, limit + 1 - len(out))
                out += piece
                if len(out) > limit:
                    raise KartothekError(f"{what}: inflates to more than this client's limit "
                                         f"of {limit} bytes.")
                pending = inflater.unconsumed_tail
                if not piece and not pending:
                    raise KartothekError(f"{what}: the gzip stream is cut short.")
        except zlib.error as exc:
            raise KartothekError(f"{what}: not gzip ({exc}).") from None
        rest = inflater.unused_data
    return bytes(out)


# --- typed readers ---------------------------------------------------------------------------

def parse_json(body: bytes, what: str) -> Any:
    """The JSON value of ``body``: malformed, not UTF-8 or nested too deep is an error."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise KartothekError(f"{what} is not JSON ({exc.__class__.__name__}).") from None


def short(value: Any) -> str:
    """A value for a message, never long and never recursive."""
    if value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a huge number"
        return text if len(text) <= 80 else text[:77] + "..."
    return f"a {type(value).__name__}"


def obj(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise KartothekError(f"{what} is not an object but {short(value)}.")
    return value


def array(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise KartothekError(f"{what} is not a list but {short(value)}.")
    return value


def member(mapping: dict[str, Any], name: str, what: str) -> Any:
    if name not in mapping:
        raise KartothekError(f"{what} has no '{name}'.")
    return mapping[name]


def string(value: Any, what: str, pattern: str | None = None) -> str:
    if not isinstance(value, str) or (pattern is not None and not re.fullmatch(pattern, value)):
        raise KartothekError(f"{what} is not a {'string' if pattern is None else 'valid value'}"
                             f": {short(value)}.")
    return value


def integer(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**53:
        raise KartothekError(f"{what} is not a whole number: {short(value)}.")
    return value


def base64_bytes(value: Any, what: str, size: int | None = None) -> bytes:
    try:
        raw = base64.b64decode(string(value, what), validate=True)
    except (binascii.Error, ValueError):
        raise KartothekError(f"{what} is not base64.") from None
    if size is not None and len(raw) != size:
        raise KartothekError(f"{what} is {len(raw)} bytes, not {size}.")
    return raw
