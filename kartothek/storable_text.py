"""Text the database cannot store is refused at the door: a 400, never a 500 deep in a view.

PostgreSQL refuses a NUL character in any text (a query with one fails: a 500 wherever a
request's value reaches the database), and no database takes a lone UTF-16 surrogate (it
cannot be written as UTF-8). Such a character has no use in any field of this application,
so ``StorableTextMiddleware`` answers 400 to a request that carries one anywhere a view may
read it: the path, the query string, a header, a urlencoded or JSON body (``\\u0000`` or a
lone ``\\ud800`` escape), a multipart form's text fields (its files are files: not looked
at). Bodies over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` are not read here (Django refuses them where
they are read). The answer is JSON under /api/ (the packs and the play API) and a short page
elsewhere. Under /play/ and /api/play/ it counts as a failed room lookup
(``games.ratelimit.RoomLookupMiddleware``): a code with a NUL is a code that does not exist.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django.utils.html import escape

from games.ratelimit import RoomLookupMiddleware

UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# In a JSON text: a \u0000 escape, a high surrogate escape without its low one, a low one
# without its high one (each escape's backslash not itself escaped).
_ESCAPE = rb"(?<!\\)(?:\\\\)*\\u"
_HEX = rb"[0-9a-fA-F]"
UNSTORABLE_JSON = re.compile(
    rb"\x00|" + _ESCAPE + rb"0000|"
    + _ESCAPE + rb"[dD][89abAB]" + _HEX + rb"{2}(?!\\u[dD][c-fC-F])|"
    + rb"(?<!\\)(?:\\\\)*(?<!\\u[dD][89abAB]" + _HEX + _HEX + rb")\\u[dD][c-fC-F]" + _HEX + rb"{2}")
MESSAGE = ("The request contains a NUL character or another character that cannot be stored "
           "as text ({where}); remove it.")


def storable(text: str) -> bool:
    """False for text with a character no database of this application can store."""
    return not UNSTORABLE.search(text)


def _encodes_nul(text: str | bytes) -> bool:
    """A query string or urlencoded form with a NUL: "%00" always decodes to one (a "%" is no
    hex digit, so no other escape can take it), and a raw NUL is one."""
    if isinstance(text, bytes):
        return b"%00" in text or b"\x00" in text
    return "%00" in text or "\x00" in text


def _small_body(request: HttpRequest) -> bytes | None:
    """The request body when it is small enough to be read whole (else None: not read)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None
    if length <= 0 or (limit is not None and length > limit):
        return None
    try:
        return request.body
    except Exception:  # unreadable: the view meets the same problem and answers it
        return None


def unstorable_part(request: HttpRequest) -> str | None:
    """Where the request carries text that cannot be stored (path, query, header, body), or None."""
    if not storable(request.path):
        return "path"
    if _encodes_nul(request.META.get("QUERY_STRING", "")):
        return "query string"
    for name, value in request.META.items():
        if name.startswith("HTTP_") and isinstance(value, str) and not storable(value):
            return "header"
    content_type = request.content_type or ""
    if content_type == "multipart/form-data":
        return None  # its text fields are read once the URL is resolved (process_view)
    body = _small_body(request)
    if not body:
        return None
    if content_type == "application/x-www-form-urlencoded":
        return "form" if _encodes_nul(body) else None
    if (b"\x00" in body or b"\\u" in body) and UNSTORABLE_JSON.search(body):
        return "body"
    return None


def refusal(request: HttpRequest, where: str) -> HttpResponse:
    """The 400 in the answer type the path expects (JSON under /api/), counted as a failed room
    lookup under /play/ and /api/play/ (a 429 once the client is over that limit)."""
    message = MESSAGE.format(where=where)
    if request.path.startswith(RoomLookupMiddleware.PREFIXES):
        counted = RoomLookupMiddleware(lambda _request: HttpResponseNotFound())(request)
        if counted.status_code == 429:
            return counted
    if request.path.startswith("/api/"):
        return JsonResponse({"error": message, "status": 400}, status=400)
    page = (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Bad request</title>'
            f"</head><body><h1>Bad request</h1><p>{escape(message)}</p></body></html>")
    return HttpResponse(page, status=400, content_type="text/html; charset=utf-8")


class StorableTextMiddleware:
    """Answers 400 to text that cannot be stored (module docstring); early in MIDDLEWARE."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = unstorable_part(request)
        if where is not None:
            return refusal(request, where)
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Callable[..., HttpResponse],
                     args: tuple[object, ...], kwargs: dict[str, object]) -> HttpResponse | None:
        """A multipart form's text fields, read once the URL is resolved: an import's upload
        limit (cards.uploads) looks at the resolved view while the files stream in."""
        if request.method != "POST" or request.content_type != "multipart/form-data":
            return None
        try:  # Django's parser holds at most DATA_UPLOAD_MAX_MEMORY_SIZE of fields in memory
            fields = request.POST
        except Exception:
            return None
        for name, values in fields.lists():
            if not storable(name) or any(not storable(v) for v in values if isinstance(v, str)):
                return refusal(request, "form")
        return None
