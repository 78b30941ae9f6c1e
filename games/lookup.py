"""Finding a room and a seat: room codes, the token's seat in one query (what every poll and
stream does first), the locked read of a room for a change, and when an idle room expires."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from games import engines
from games.errors import NoRoom
from games.models import Room, Seat
from games.prepared import Prepared

# Room codes: no look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B, U/V). Eight of the 23 letters make
# 23⁸ ≈ 7.8 × 10¹⁰ codes: guessing is hopeless with failed lookups limited per client (20 a
# minute: 28,800 guesses in a room's 24 hours hit one particular room with probability
# ≈ 3.7 × 10⁻⁷, any of 1,000 open rooms with ≈ 3.7 × 10⁻⁴; see games/ratelimit.py). A code is
# typed case-insensitively, spaces and dashes ignored ("k7mq 4tx9" works).
ALPHABET = "34679ACDEFGHJKMNPQRTWXY"
CODE_LENGTH = 8


def _now() -> datetime:
    return timezone.now()


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_curator(user: Any) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False)
                and user.has_perm("exports.add_release"))


def _engine(room: Room) -> Any:
    return engines.get(room.game)


def _seats(room: Room) -> list[Seat]:
    """Every seat of the room in seating order, read once per request (kept on the instance;
    changes go through these same objects)."""
    cached: list[Seat] | None = room.__dict__.get("_seats_cache")
    if cached is None:
        cached = list(room.seats.order_by("position"))
        room.__dict__["_seats_cache"] = cached
    return cached


def _forget_seats(room: Room) -> None:
    room.__dict__.pop("_seats_cache", None)


def _expiry() -> timedelta:
    return timedelta(hours=settings.KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS)


def _finished_expiry() -> timedelta:
    return timedelta(hours=settings.KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS)


def _expired(status: str, last_activity: datetime, now: datetime | None = None) -> bool:
    after = _finished_expiry() if status == Room.Status.FINISHED else _expiry()
    return last_activity < (now or _now()) - after


def _game_seed(room: Room) -> str:
    return room.seed if room.game_number <= 1 else f"{room.seed}:{room.game_number}"


def _locked(code: str) -> Room:
    try:
        # with its release's digest (room_pack's key), locking the room's row only
        return (Room.objects.select_for_update(of=("self",))
                .annotate(_release_sha256=F("release__sha256")).get(code=code))
    except Room.DoesNotExist:
        raise NoRoom(f"There is no room {code}.") from None


def normal_code(code: str) -> str:
    """A typed code as stored: upper case, spaces and dashes dropped."""
    return "".join(ch for ch in (code or "").upper() if ch not in " -\t")


def typed_code(text: str) -> str:
    """The code in what a person typed or pasted into the join box: any case, spaces and
    dashes ("k7mq 4tx9", "K7MQ-4TX9", " K7MQ4TX9 "), or a whole join link
    (``https://…/play/K7MQ4TX9/join``, ``…/play/join?code=…``): upper case, letters and digits
    only (``""`` when nothing is left). It is then looked up once, like a typed code."""
    text = (text or "").strip()
    if "/" in text:
        parts = urlsplit(text if "//" in text else "//" + text)
        query = parse_qs(parts.query).get("code")
        segments = [s for s in parts.path.split("/") if s]
        if query:
            text = query[0]
        elif "play" in segments and segments.index("play") + 1 < len(segments):
            text = segments[segments.index("play") + 1]
        elif segments:
            text = segments[-1]
    return "".join(ch for ch in text.upper() if ch.isascii() and ch.isalnum())[:64]


def example_code() -> str:
    """A code as the table shows it, for a placeholder: CODE_LENGTH characters in two halves."""
    code = ("K7MQ4TX9" * CODE_LENGTH)[:CODE_LENGTH]
    half = (CODE_LENGTH + 1) // 2
    return f"{code[:half]} {code[half:]}".strip()


def get_room(code: str) -> Room:
    """The room with that code (case-insensitive), or ``NoRoom``; a room idle for longer than
    ``KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS`` (a finished one: ``KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS``)
    is deleted and reported as ``NoRoom``."""
    code = normal_code(code)
    room = Room.objects.filter(code=code).defer("state_json", "draft_pack").first()
    if room is None:
        raise NoRoom(f"There is no room {code}. Check the code.")
    check_expiry(room)
    return room


def check_expiry(room: Room) -> None:
    """``NoRoom`` (and the room deleted) when a room has been idle too long."""
    if _expired(room.status, room.last_activity):
        Room.objects.filter(pk=room.pk, last_activity=room.last_activity).delete()
        hours = (settings.KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS if room.status == Room.Status.FINISHED
                 else settings.KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS)
        raise NoRoom(f"Room {room.code} has closed after {hours} hours without play.")


_SEAT_COLUMNS = ("pk", "seat", "position", "name", "token_hash", "host", "bot", "away", "removed",
                 "moved")


_ROOM_COLUMNS = ("version", "due_at", "status", "last_activity")
# A room's columns but its state and draft pack (the biggest; the state comes from _STATES),
# in the model's field order, as Model.from_db wants them.
_ROOM_FIELDS = tuple(f for f in Room._meta.concrete_fields if f.attname not in ("state_json", "draft_pack"))
_ROOM_ATTNAMES = tuple(f.attname for f in _ROOM_FIELDS)
# The two lookups every poll and every stream makes, compiled once (games/prepared.py).
_SEAT_WITH_ROOM = Prepared(lambda code, token_hash: (
    Seat.objects.order_by().filter(room__code=code, token_hash=token_hash, removed=False, bot=False)
    .values_list(*_SEAT_COLUMNS, *(f"room__{f.name}" for f in _ROOM_FIELDS), "room__release__sha256")))


_ROOM_BY_CODE = Prepared(lambda code: (
    Room.objects.order_by().filter(code=code)
    .values_list(*(f.name for f in _ROOM_FIELDS), "release__sha256")))


def _room_from_row(values: Any, digest: str | None) -> Room:
    room = Room.from_db("default", list(_ROOM_ATTNAMES), list(values))
    room.__dict__["_release_sha256"] = digest  # room_pack's key, read by the same query
    return room


def find_seat(code: str, token: str) -> Seat | None:
    """The seat a token proves in the room with that code, or ``None``, in one query that
    also reads the room (all but its state) and its release's digest: ``seat.poll`` holds the
    room's version, due_at, status and last_activity (what a poll needs to answer 304) and
    ``seat_room(seat)`` is the room, loaded without another query."""
    return find_seat_hashed(code, hash_token(token))


def find_seat_hashed(code: str, token_hash: str) -> Seat | None:
    """``find_seat`` by the token's sha256 (what a redeemed stream ticket stands for)."""
    row = _SEAT_WITH_ROOM.first((code or "").strip().upper(), token_hash)
    if row is None:
        return None
    room_values = row[len(_SEAT_COLUMNS):-1]
    fields = dict(zip(_ROOM_ATTNAMES, room_values, strict=True))
    seat = Seat(**dict(zip(_SEAT_COLUMNS, row[: len(_SEAT_COLUMNS)], strict=True)), room_id=fields["id"])
    seat._state.adding = False
    seat._state.db = "default"
    seat.poll = {c: fields[c] for c in _ROOM_COLUMNS}  # type: ignore[attr-defined]
    seat.__dict__["_room_row"] = (room_values, row[-1])
    return seat


def seat_room(seat: Seat) -> Room:
    """The room of a seat from ``find_seat``, as its query read it (a fresh object each call)."""
    values, digest = seat.__dict__["_room_row"]
    return _room_from_row(values, digest)


def find_room(code: str) -> Room | None:
    """The room with that code (all but its state) and its release's digest, in one query;
    ``None`` for no such room. Expiry is the caller's (``check_expiry``)."""
    row = _ROOM_BY_CODE.first(normal_code(code))
    return None if row is None else _room_from_row(row[:-1], row[-1])


def load_room(pk: int) -> Room:
    """The room by its id, state deferred (for a poll that must answer 200)."""
    try:
        return Room.objects.order_by().defer("state_json", "draft_pack").get(pk=pk)
    except Room.DoesNotExist:
        raise NoRoom("This room has just closed.") from None


def seat_for_token(room: Room, token: str) -> Seat | None:
    """The room's seat that token proves (a removed or bot seat proves nothing)."""
    if not token:
        return None
    return room.seats.filter(token_hash=hash_token(token), removed=False, bot=False).first()
