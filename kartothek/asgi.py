"""The ASGI application (`make serve`: gunicorn with uvicorn workers; `make run`: uvicorn).

An event stream (``/api/play/rooms/CODE/events``) runs outside Django's per-request thread
context: Django's sync middleware would otherwise give each open stream a thread of its own
for as long as it stays open. Its middleware steps share the process's one sync thread
instead, and its database reads run in the shared pool (games/api.py), so a waiting player
holds no thread.
"""

import os
import re

from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")

_STREAM = re.compile(r"^/api/play/rooms/[^/]+/events/?$")


class Handler(ASGIHandler):
    async def __call__(self, scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http" and _STREAM.match(scope.get("path", "")):
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def _application() -> ASGIHandler:
    import django

    from kartothek.malloc import limit_arenas

    limit_arenas()  # before the first request thread (kartothek/malloc.py says why)

    django.setup(set_prefix=False)
    return Handler()


application = _application()
