"""A release's 304 answered on the event loop, without Django (issue 36: a 304 ≥ 5× a full
answer, docs/serve-performance.md).

A release (``/api/packs/GAME/LANGUAGE/N.json``, no query) never changes once published: its
bytes, its ETag (their sha256) and so the headers of its 304 are the same for every request
for as long as the process lives (exports/api.py keeps the same assumption for its sha256
cache). So the first 304 the whole of Django answers for a release is kept, as it was sent,
and a later request for the same path whose ``If-None-Match`` is exactly that ETag gets the
same answer at once: no thread hop, no middleware, no database. Django still answers every
other request: a first one, another or a listed ETag, a query, a full download.

Kept only when the answer may be shared by anyone and forever: ``Cache-Control`` public and
immutable, no cookie set, varying on nothing but the encoding or the origin (whose CORS
answer here is the same ``*`` for every origin, kartothek/cors.py). At most one entry per
published release, so nothing a client sends can grow it.
"""

from __future__ import annotations

import re
from typing import Any

_RELEASE = re.compile(r"^/api/packs/[a-z]+/[A-Za-z-]+/\d+\.json$")
_SHAREABLE_VARY = {"", "accept-encoding", "origin"}

# path -> (ETag, the 304's headers as sent)
_KEPT: dict[str, tuple[bytes, list[tuple[bytes, bytes]]]] = {}


def _if_none_match(scope: dict[str, Any]) -> bytes | None:
    for name, value in scope.get("headers", ()):
        if name == b"if-none-match":
            return bytes(value).strip()
    return None


def answer(scope: dict[str, Any]) -> list[tuple[bytes, bytes]] | None:
    """The kept 304's headers if this request may have them, else None (Django answers)."""
    if scope.get("method") not in ("GET", "HEAD") or scope.get("query_string"):
        return None
    kept = _KEPT.get(scope.get("path", ""))
    if kept is None:
        return None
    etag, headers = kept
    return headers if _if_none_match(scope) == etag else None


def keep(scope: dict[str, Any], status: int, headers: list[tuple[bytes, bytes]]) -> None:
    """Remember Django's 304 for a release, when it may be given to anyone who asks again."""
    path = scope.get("path", "")
    if status != 304 or path in _KEPT or not _RELEASE.match(path) or scope.get("query_string"):
        return
    if scope.get("method") != "GET":
        return
    found = {name.lower(): value for name, value in headers}
    control = {part.strip() for part in found.get(b"cache-control", b"").decode("latin1").split(",")}
    vary = {part.strip().lower() for part in found.get(b"vary", b"").decode("latin1").split(",")}
    etag = found.get(b"etag")
    if etag is None or b"set-cookie" in found or not {"public", "immutable"} <= control \
            or not vary <= _SHAREABLE_VARY or _if_none_match(scope) != etag:
        return
    _KEPT[path] = (etag, list(headers))


def forget() -> None:
    """Drop every kept answer (tests: a test database reuses release numbers)."""
    _KEPT.clear()
