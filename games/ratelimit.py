"""Per-client and per-room limits on the play mode's requests, counted in the database so that
several app servers share them (the default cache is per process).

Each limit counts in one-minute windows (``RateHit``: key and minute), so a burst up to the
limit passes and the count starts again on the next minute; every limit is a setting, ``0``
turning it off:

- ``KARTOTHEK_PLAY_RATE_LIMIT``: room creations and joins per client;
- ``KARTOTHEK_PLAY_WRITE_LIMIT``: every other play write (actions, host controls) per client,
  and ``KARTOTHEK_PLAY_ROOM_WRITE_LIMIT`` per room (several clients in one room);
- ``KARTOTHEK_PLAY_GAME_LIMIT``: games started in a room (start, play again);
- ``KARTOTHEK_PLAY_LOOKUP_LIMIT``: failed room lookups per client (any 404 under /play/ or
  /api/play/: someone guessing codes). Past it, every play request of the client is a 429 for
  a minute, a found code included (``RoomLookupMiddleware``).

An answer over a limit is a 429 with ``Retry-After`` (the seconds to the next window) and a
message a player can read (JSON under /api/).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from common.security import client_ip
from games.models import RateHit

WINDOW = 60  # seconds


def clock() -> float:
    """The time the windows are counted in (a test holds it still)."""
    return time.time()


def client_key(request: HttpRequest) -> str:
    # The address the outermost trusted proxy saw (KARTOTHEK_PROXY_COUNT; REMOTE_ADDR without
    # one): the rest of a forwarded-for header is the client's to forge.
    return str(client_ip(request) or "unknown")[:60]


def retry_after() -> int:
    """Seconds until the next window starts (at least 1)."""
    return max(1, WINDOW - int(clock()) % WINDOW)


def count(key: str, limit: int) -> bool:
    """Count one hit on ``key`` this minute; False when that makes it more than ``limit``
    (``limit`` 0: no limit, nothing counted)."""
    if not limit:
        return True
    key = key[:100]
    minute = int(clock() // WINDOW)
    if _upsert_counts():
        return _upsert(key, minute) <= limit
    with transaction.atomic():
        if not RateHit.objects.filter(key=key, minute=minute).update(count=F("count") + 1):
            try:
                with transaction.atomic():
                    RateHit.objects.create(key=key, minute=minute, count=1)
            except IntegrityError:  # another server counted the first one at the same moment
                RateHit.objects.filter(key=key, minute=minute).update(count=F("count") + 1)
        hits = RateHit.objects.filter(key=key, minute=minute).values_list("count", flat=True).get()
    return hits <= limit


def _upsert_counts() -> bool:
    """One statement counts a hit (INSERT … ON CONFLICT … RETURNING): PostgreSQL, SQLite 3.35+."""
    return connection.vendor == "postgresql" or (
        connection.vendor == "sqlite" and connection.Database.sqlite_version_info >= (3, 35))


def _upsert(key: str, minute: int) -> int:
    """Add one hit to ``key`` in ``minute`` and answer the minute's count, in one statement (one
    short write: no transaction around a read and a write, so two servers never race)."""
    quote = connection.ops.quote_name
    table = quote(RateHit._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({quote('key')}, {quote('minute')}, {quote('count')}) "
            f"VALUES (%s, %s, 1) ON CONFLICT ({quote('key')}, {quote('minute')}) "
            f"DO UPDATE SET {quote('count')} = {table}.{quote('count')} + 1 RETURNING {quote('count')}",
            [key, minute])
        return int(cursor.fetchone()[0])


def allow(request: HttpRequest, bucket: str = "play") -> bool:
    """Count this request; False when the client is over ``KARTOTHEK_PLAY_RATE_LIMIT`` this minute."""
    return count(f"{bucket}:{client_key(request)}", settings.KARTOTHEK_PLAY_RATE_LIMIT)


def allow_write(request: HttpRequest, code: str, *, game: bool = False) -> str | None:
    """Count one play write of this client in room ``code``; None when allowed, else the reason
    (for a 429). ``game``: the write starts a game (start, play again)."""
    code = (code or "").strip().upper()[:12]
    if not count(f"write:{client_key(request)}", settings.KARTOTHEK_PLAY_WRITE_LIMIT):
        return _("Too many moves from here in a minute; wait a moment.")
    if not count(f"room:{code}", settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT):
        return _("Too many moves in this room in a minute; wait a moment.")
    if game and not count(f"games:{code}", settings.KARTOTHEK_PLAY_GAME_LIMIT):
        return _("Too many games started in this room in a minute; wait a moment.")
    return None


def forget_old(before_minutes: int = 10) -> int:
    """Drop counts older than a few minutes (``expire_rooms`` calls it)."""
    deleted, _count = RateHit.objects.filter(minute__lt=int(clock() // WINDOW) - before_minutes).delete()
    return deleted


# --- failed room lookups -------------------------------------------------------------------------


def _blocked_key(request: HttpRequest) -> str:
    return f"kartothek:play-lookups-blocked:{client_key(request)}"


def too_many(message: str, *, json: bool, seconds: int | None = None) -> HttpResponse:
    seconds = seconds or retry_after()
    response: HttpResponse
    if json:
        response = JsonResponse({"error": message, "status": 429, "retry_after": seconds}, status=429,
                                json_dumps_params={"ensure_ascii": False})
    else:
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(seconds)
    return response


class RoomLookupMiddleware:
    """Counts every 404 under /play/ and /api/play/ per client (in the database, shared by
    every server); past ``KARTOTHEK_PLAY_LOOKUP_LIMIT`` a minute the client's play requests are
    answered 429 for a minute. The block itself is kept in this process's cache (no query on an
    ordinary poll); another server learns it at the client's next failed lookup there.

    Why it is enough: with 8-character codes from 23 letters (``games.rooms.CODE_LENGTH``) there
    are 23⁸ ≈ 7.8 × 10¹⁰ codes. At 20 guesses a minute a client makes 28,800 guesses in the 24
    hours a room lives; with 10,000 rooms open at once each guess hits one with probability
    10,000 / 7.8 × 10¹⁰ ≈ 1.3 × 10⁻⁷, so a whole day of guessing finds one with probability
    ≈ 0.37 % per client address — and one particular room with ≈ 3.7 × 10⁻⁷. A household
    behind one address shares the limit (20 mistyped codes a minute is far above a typo rate).
    """

    PREFIXES = ("/play/", "/api/play/")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.KARTOTHEK_PLAY_LOOKUP_LIMIT
        path = request.path
        if not limit or not path.startswith(self.PREFIXES) or path.startswith("/play/assets/"):
            return self.get_response(request)
        api = path.startswith("/api/")
        message = _("Too many rooms that do not exist were asked for from here; wait a minute "
                    "and check the code.")
        if cache.get(_blocked_key(request)):
            return too_many(message, json=api, seconds=WINDOW)
        response = self.get_response(request)
        if response.status_code == 404 and not count(f"lookup:{client_key(request)}", limit):
            cache.set(_blocked_key(request), True, WINDOW)
            return too_many(message, json=api, seconds=WINDOW)
        return response
