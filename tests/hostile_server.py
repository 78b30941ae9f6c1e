"""A hostile pack mirror for the client's tests: a real HTTP server (a thread) that answers
each path with what the test puts in ``routes``: a (status, headers, body) triple, or a
function that writes whatever it likes to the socket (a drip, an endless body, a broken
status line). ``sent`` counts the body bytes it managed to write."""

from __future__ import annotations

import socketserver
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Canned = tuple[int, dict[str, str], bytes]
Route = Canned | Callable[[BaseHTTPRequestHandler], None]


class HostileMirror:
    def __init__(self, routes: dict[str, Route] | None = None) -> None:
        self.routes: dict[str, Route] = dict(routes or {})
        self.sent = 0
        self.asked: list[str] = []
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                mirror.asked.append(self.path)
                route = mirror.routes.get(self.path, (404, {}, b'{"error": "not here"}'))
                try:
                    if callable(route):
                        route(self)
                        return
                    status, headers, body = route
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    if "Content-Length" not in headers:
                        self.send_header("Content-Length", str(len(body)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(body)
                    mirror.sent += len(body)
                except OSError:  # the client hung up: that is what a limit does
                    pass
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # --- answers no honest server gives ----------------------------------------------------

    def endless(self, chunk: bytes = b"0" * 65536, *, length: int | None = 10**9,
                total: int = 300 * 2**20) -> Route:
        """A 200 whose body goes on (up to ``total`` bytes), announced or not."""
        def write(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(200)
            if length is not None:
                handler.send_header("Content-Length", str(length))
            handler.send_header("Connection", "close")
            handler.end_headers()
            while self.sent < total:
                handler.wfile.write(chunk)
                self.sent += len(chunk)
        return write

    def drip(self, head: bytes, every: float = 0.05, total: float = 30.0) -> Route:
        """``head`` at once, then one byte at a time, each well inside a read timeout."""
        def write(handler: BaseHTTPRequestHandler) -> None:
            handler.wfile.write(head)
            handler.wfile.flush()
            end = time.monotonic() + total
            while time.monotonic() < end:
                time.sleep(every)
                handler.wfile.write(b"x")
                handler.wfile.flush()
                self.sent += 1
        return write

    @staticmethod
    def raw(data: bytes) -> Route:
        """Bytes on the socket as they are: a broken status line, bad headers."""
        def write(handler: BaseHTTPRequestHandler) -> None:
            handler.wfile.write(data)
            handler.wfile.flush()
        return write


class DrippingSocket:
    """A bare TCP server below HTTP: reads what the client says first (a TLS ClientHello),
    answers ``head`` and then one byte every ``every`` seconds, for a dripped handshake."""

    def __init__(self, head: bytes, every: float = 0.05, total: float = 30.0) -> None:
        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                try:
                    self.request.recv(65536)
                    self.request.sendall(head)
                    end = time.monotonic() + total
                    while time.monotonic() < end:
                        time.sleep(every)
                        self.request.sendall(b"\x00")
                except OSError:
                    pass

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
