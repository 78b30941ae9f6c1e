"""Per-client and per-room limits on the play mode's requests, counted in the database so that
several app servers share them (the default cache is per process).

Each limit counts in one-minute windows (``RateHit``: key and minute), so a burst up to the
limit passes and the count starts again on the next minute; every limit is a setting, ``0``
turning it off:

- ``KARTOTHEK_PLAY_RATE_LIMIT``: room creations and joins per client;
- ``KARTOTHEK_PLAY_WRITE_LIMIT``: every other play POST per client (actions, host controls,
  the table's hand-over of the host, passing a device on, rejoining, stream tickets, the
  language), counted before anything is checked;
- ``KARTOTHEK_PLAY_ROOM_WRITE_LIMIT``: writes per room (several clients in one room), and
  ``KARTOTHEK_PLAY_GAME_LIMIT``: games started in a room (start, play again). A room's budgets
  are charged only once the request has proved a seat of that room (or its table's host
  token), and a game's start only for the host: a stranger who knows the code uses up their
  own address's budget, never the room's (``allow_room``);
- ``KARTOTHEK_PLAY_LOOKUP_LIMIT``: failed room lookups per client (any 404 under /play/ or
  /api/play/: someone guessing codes). Past it, every play request of the client is a 429 until
  the end of the next minute, a found code included (``RoomLookupMiddleware``; every server
  reads the block from the database).

An answer over a limit is a 429 with ``Retry-After`` (the seconds to the next window) and a
message a player can read (JSON under /api/).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
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


def allow_client(request: HttpRequest) -> str | None:
    """Count one play write of this client (``KARTOTHEK_PLAY_WRITE_LIMIT``), whatever it proves;
    None when allowed, else the reason (for a 429)."""
    if not count(f"write:{client_key(request)}", settings.KARTOTHEK_PLAY_WRITE_LIMIT):
        return _("Too many moves from here in a minute; wait a moment.")
    return None


def allow_room(code: str, *, game: bool = False) -> str | None:
    """Count one write against room ``code``'s budgets; None when allowed, else the reason.
    Only for a request that has proved a seat of the room (or its table's host token), and
    ``game`` (a start, play again) only for the host's: whoever merely knows the code must not
    use up what the room's players need."""
    code = (code or "").strip().upper()[:12]
    if not count(f"room:{code}", settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT):
        return _("Too many moves in this room in a minute; wait a moment.")
    if game and not count(f"games:{code}", settings.KARTOTHEK_PLAY_GAME_LIMIT):
        return _("Too many games started in this room in a minute; wait a moment.")
    return None


def allow_write(request: HttpRequest, code: str, *, game: bool = False) -> str | None:
    """Count one play write of this client and of room ``code`` (``allow_client`` then
    ``allow_room``): for a request that has proved a seat of the room."""
    return allow_client(request) or allow_room(code, game=game)


def forget_old(before_minutes: int = 10) -> int:
    """Drop counts older than a few minutes (``expire_rooms`` calls it)."""
    deleted, _count = RateHit.objects.filter(minute__lt=int(clock() // WINDOW) - before_minutes).delete()
    return deleted


# --- failed room lookups -------------------------------------------------------------------------


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


def _lookup_key(request: HttpRequest) -> str:
    return f"lookup:{client_key(request)}"[:100]


def lookups_blocked(request: HttpRequest) -> int | None:
    """Seconds this client stays blocked for failed room lookups, or None: read from the shared
    count (one indexed query on this minute's and the last minute's rows), so every worker and
    every server sees a block as soon as one of them counted it. A client over the limit in a
    minute is blocked until the end of the next one (60 to 120 seconds)."""
    limit = settings.KARTOTHEK_PLAY_LOOKUP_LIMIT
    if not limit:
        return None
    minute = int(clock() // WINDOW)
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {quote('minute')}, {quote('count')} FROM {quote(RateHit._meta.db_table)} "
            f"WHERE {quote('key')} = %s AND {quote('minute')} >= %s",
            [_lookup_key(request), minute - 1])
        counts = dict(cursor.fetchall())
    if counts.get(minute, 0) > limit:
        return retry_after() + WINDOW
    if counts.get(minute - 1, 0) > limit:
        return retry_after()
    return None


class RoomLookupMiddleware:
    """Counts every 404 under /play/ and /api/play/ per client (in the database, shared by
    every server); past ``KARTOTHEK_PLAY_LOOKUP_LIMIT`` a minute the client's play requests are
    answered 429 until the end of the next minute. The block is read from the same count on
    every play request (one query), so no worker or server lets a blocked client through.

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

    @staticmethod
    def count_failed_lookup(request: HttpRequest) -> bool:
        """Count one failed room lookup of the request's client; False when that passes
        ``KARTOTHEK_PLAY_LOOKUP_LIMIT`` (from now on the client is blocked on every server)."""
        limit = settings.KARTOTHEK_PLAY_LOOKUP_LIMIT
        return not limit or count(_lookup_key(request), limit)

    @staticmethod
    def blocked_answer(request: HttpRequest, seconds: int | None = None) -> HttpResponse:
        """The 429 of a client blocked for failed lookups (JSON under /api/)."""
        message = _("Too many rooms that do not exist were asked for from here; wait a minute "
                    "and check the code.")
        return too_many(message, json=request.path.startswith("/api/"),
                        seconds=seconds or retry_after() + WINDOW)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path
        if not settings.KARTOTHEK_PLAY_LOOKUP_LIMIT or not path.startswith(self.PREFIXES) \
                or path.startswith("/play/assets/"):
            return self.get_response(request)
        seconds = lookups_blocked(request)
        if seconds is not None:
            return self.blocked_answer(request, seconds)
        response = self.get_response(request)
        if response.status_code == 404 and not self.count_failed_lookup(request):
            return self.blocked_answer(request)
        return response
