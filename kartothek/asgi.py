"""The ASGI application (`make serve`: gunicorn with uvicorn workers; `make run`: uvicorn).

Three ways through, by path:

- An event stream (``/api/play/rooms/CODE/events``) runs outside Django's per-request thread
  context: Django's sync middleware would otherwise give each open stream a thread of its own
  for as long as it stays open. Its middleware steps share the process's one sync thread
  instead, and its database reads run in a small pool of their own (games/api.py,
  ``KARTOTHEK_PLAY_LOOK_THREADS``), so a waiting player holds no thread.
- Every other play request (``/play/…``, ``/api/play/…``: the phones' moves and pages, many
  and short) is answered in one step on a thread of a small pool kept for them: the request
  body is read here, then the whole of Django (middleware, view, the response's closing) runs
  once on that thread, as under a WSGI server. Django's own ASGI path hands each middleware's
  sync half to a new thread of the request's own (a thread started per request, a dozen hops
  to it and back); measured on one 404 answer through the full middleware, 2.3 ms of CPU that
  way and 0.6 ms this way (docs/play-performance.md). The pool's threads keep their database
  connections' pool and caches warm; ``KARTOTHEK_PLAY_THREADS`` threads per process.
- The packs API (``/api/…`` but play), the static files (WhiteNoise) and the media files take
  the same one-step way on a pool of their own (``KARTOTHEK_PACK_THREADS``): they are many,
  short and never wait on anything but the database and the disk, and through Django's ASGI
  path a release or its 304 cost three times their CPU under a WSGI server (issue 36,
  docs/serve-performance.md). A pool apart from the play pool, so a burst of pack downloads
  never delays a move. A static file is read on that thread too (they are small), instead of
  each of its chunks taking a thread hop of its own.
- A release's 304, once Django has answered it, is answered again on the event loop itself
  (kartothek/not_modified.py): a release never changes, so neither does its 304.
- Everything else (the admin, the editor, printing: fewer requests, some of them long) keeps
  Django's ASGI path, so a slow print run never holds a play or a packs thread.
"""

from __future__ import annotations

import gc
import os
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core.handlers.asgi import ASGIHandler
from django.http import FileResponse, HttpResponse

from common.threads import process_pool
from kartothek import not_modified

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")

GC_YOUNG = 10_000  # allocations between two collections of the youngest generation (CPython: 700)

_STREAM = re.compile(r"^/api/play/rooms/[^/]+/events/?$")
_PLAY = re.compile(r"^/(?:api/)?play/")
_PACKS = re.compile(r"^/(?:api/|static/|media/|favicon\.ico$)")
FILE_IN_ONE_READ = 1 << 20  # a static or media file up to this size is read whole on the pool thread


class Handler(ASGIHandler):
    def __init__(self) -> None:
        from django.conf import settings
        from django.core.handlers.base import BaseHandler

        super().__init__()
        self._sync = BaseHandler()
        self._sync.load_middleware(is_async=False)
        self._threads = int(settings.KARTOTHEK_PLAY_THREADS)
        self._pack_threads = int(settings.KARTOTHEK_PACK_THREADS)
        self._process = 0

    async def __call__(self, scope, receive, send):  # type: ignore[no-untyped-def]
        if self._process != os.getpid():  # this process's first request (a worker is a fork)
            from kartothek.malloc import start_trimming

            self._process = os.getpid()
            start_trimming()
        if scope["type"] == "http":
            path = scope.get("path", "")
            if _STREAM.match(path):
                await self.handle(scope, receive, send)
                return
            if _PLAY.match(path):
                await self._in_one_thread(scope, receive, send, self._play_pool())
                return
            if _PACKS.match(path):
                kept = not_modified.answer(scope)
                if kept is not None:  # a release's 304, the same for everyone and forever
                    await send({"type": "http.response.start", "status": 304, "headers": kept})
                    await send({"type": "http.response.body", "body": b""})
                    return
                await self._in_one_thread(scope, receive, send, self._pack_pool())
                return
        await super().__call__(scope, receive, send)

    def _play_pool(self) -> ThreadPoolExecutor:
        return process_pool("play", self._threads)

    def _pack_pool(self) -> ThreadPoolExecutor:
        return process_pool("packs", self._pack_threads)

    async def _in_one_thread(self, scope: dict[str, Any], receive: Any, send: Any,
                             pool: ThreadPoolExecutor) -> None:
        from asgiref.sync import sync_to_async
        from django.core.exceptions import RequestAborted

        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            respond = sync_to_async(self._respond, thread_sensitive=False, executor=pool)
            response = await respond(scope, body_file)
            if not response.streaming:
                headers = await _send_whole(response, send)  # closed already, on the pool's thread
                not_modified.keep(scope, response.status_code, headers)
                return
            await self.send_response(response, send)
            # its body was read only now, while it was being sent
            await sync_to_async(response.close, thread_sensitive=False, executor=pool)()
        finally:
            body_file.close()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> Any:
        """The whole request on this thread, as a WSGI server would run it (request_started,
        the sync middleware chain, and for a whole body the response's close, which sends
        request_finished and so hands the database connection back)."""
        from django.core import signals
        from django.core.handlers.asgi import get_script_prefix
        from django.urls import set_script_prefix

        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        response = error_response if request is None else self._sync.get_response(request)
        response._handler_class = self.__class__
        if isinstance(response, FileResponse) and int(
                response.get("Content-Length") or FILE_IN_ONE_READ + 1) <= FILE_IN_ONE_READ:
            response = _read_whole(response)
        if not response.streaming:
            response.close()  # the body is all in memory: what send_response sends stays
        return response


async def _send_whole(response: HttpResponse, send: Any) -> list[tuple[bytes, bytes]]:
    """A body held in memory, in one message: uvicorn writes it at once, where Django's
    send_response cuts it into 64 KiB pieces that each take a turn of the event loop (a 2 MB
    release: 31) and then closes the response again on a thread of its own."""
    headers = [(name.encode("ascii"), value.encode("latin1")) for name, value in response.items()]
    headers += [(b"Set-Cookie", cookie.output(header="").encode("ascii").strip())
                for cookie in response.cookies.values()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})
    return headers


def _read_whole(response: FileResponse) -> HttpResponse:
    """A small file's answer with its body read now, on this thread: sent from the event loop
    in one piece, not a chunk per thread hop (Django maps a file's iterator that way)."""
    whole = HttpResponse(status=response.status_code)
    # the file is closed, and request_finished sent once, when the new answer is closed
    whole._resource_closers.extend(response._resource_closers)
    whole.content = b"".join(response.streaming_content)
    whole.headers = response.headers
    whole.cookies = response.cookies
    whole._handler_class = response._handler_class  # type: ignore[attr-defined]
    return whole


def _application() -> ASGIHandler:
    import django

    from kartothek.access_log import install as paths_only_in_access_logs
    from kartothek.malloc import limit_arenas, trim_interval

    limit_arenas()  # before the first request thread (kartothek/malloc.py says why)
    trim_interval()  # a wrong KARTOTHEK_MALLOC_TRIM stops the start, not the first request

    django.setup(set_prefix=False)
    paths_only_in_access_logs()  # no query string (a token, a stream ticket) in an access log
    handler = Handler()
    # The cyclic garbage collector stops every thread of the process while it runs. Under the
    # play bench's 1,020 players a worker ran a full collection every 5-15 s, each 110-210 ms
    # (the parsed room states are many long-lived containers), and those pauses were the
    # p99. What is loaded by now (Django, the URL patterns, the engines' tables) lives as long
    # as the process: frozen, no collection walks it again. And a young generation of 10,000
    # objects instead of 700 makes collections rarer: in the same probe no full collection ran
    # after the start, the young ones paused 20-40 ms, the learned p99 fell from 312-427 ms
    # to 167 ms (docs/play-performance.md). Most garbage is freed by reference counting anyway.
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 10, 10)
    return handler


application = _application()
