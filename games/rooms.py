"""The play mode's service layer: the one place between the network and the rules.

Views and the JSON API stay thin over these functions; nothing else calls an engine for a
room. Every change happens in one transaction with the room locked (``select_for_update`` on
PostgreSQL; SQLite's transactions are IMMEDIATE, see kartothek/settings.py), and every answer
for a seat is made from ``engine.view(state, seat)`` only.

Errors (each carries a message a player can read; the API maps them to HTTP):
``NoRoom`` → 404, ``NotASeat`` / ``NotAllowed`` → 403, ``RoomFull`` / ``RoomStarted`` → 409,
``Stale(body)`` → 409 with the fresh body, ``Refused`` → 400.

Versions: a room's ``version`` grows by one with every applied action (bots and the timer
included) and with every change to the seats or the status, so it is the ETag of the room.
An action carries the version its sender saw. In the turn-based games (symbols, slogan,
sauschwer) an action sent at an older version is refused with ``Stale`` (the situation the
player decided on has changed: a "Stop!" meant for one placement must not hit the next). In
Sign, which is played in real time by everyone at once, an action sent at an older version
applies when the engine still accepts it, and is ``Stale`` otherwise (the card was taken).

Idempotency: an action id is remembered per room; the same id again applies nothing and
answers with the room as it is now (which includes the first application).

Tokens: a seat's token is shown once, when the seat is made (``seat.token``, not stored);
the database keeps its sha256.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import secrets
import threading
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.signals import post_save
from django.utils import timezone

from cards.text import ascii_number
from games import bots, cardids, engines
from games.cardids import translate
from games.engines import IllegalAction
from games.models import ActionLog, CardPlayStat, Room, Seat
from games.prepared import Prepared

__all__ = [
    "ALPHABET", "NoRoom", "NotASeat", "NotAllowed", "PlayError", "Refused", "RoomFull",
    "RoomStarted", "Stale", "act", "card_maps", "get_room", "give_host", "give_host_from_table",
    "give_to_bot", "is_table_token", "join",
    "open_room", "play_again", "remove_seat", "replay", "seat_for_token", "set_away",
    "set_teams", "snapshot", "start", "step_bots",
]

# Room codes: no look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B, U/V). Eight of the 23 letters make
# 23⁸ ≈ 7.8 × 10¹⁰ codes: guessing is hopeless with failed lookups limited per client (20 a
# minute: 28,800 guesses in a room's 24 hours hit one particular room with probability
# ≈ 3.7 × 10⁻⁷, any of 1,000 open rooms with ≈ 3.7 × 10⁻⁴; see games/ratelimit.py). A code is
# typed case-insensitively, spaces and dashes ignored ("k7mq 4tx9" works).
ALPHABET = "34679ACDEFGHJKMNPQRTWXY"
CODE_LENGTH = 8
# What a poll's view carries of the game's log: the last events (the screens show fewer); the
# whole log stays in the state for the replay and the statistics.
RECENT_LOG = 50


logger = logging.getLogger(__name__)

# Actions that nobody owes: the turn timer never hands a seat to a bot for skipping these.
OPTIONAL_ACTIONS = {"stop", "replace", "challenge"}
# The rulebook's Sign divisions (team sizes, largest first) by number of players.
SIGN_DIVISIONS: dict[int, list[tuple[int, ...]]] = {
    4: [(2, 2)], 5: [(3, 2)], 6: [(3, 3), (2, 2, 2)], 7: [(4, 3), (3, 2, 2)],
    8: [(4, 4)], 9: [(3, 3, 3)],
}
MAX_BOT_STEPS = 2_000  # per request: a game of bots ends long before
NAME_MAX = 40
ACTION_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


class PlayError(Exception):
    """Base of the play mode's errors; ``str(error)`` is for the player, ``status`` for HTTP."""

    status = 400


class NoRoom(PlayError):
    status = 404


class NotASeat(PlayError):
    status = 403


class NotAllowed(PlayError):
    status = 403


class RoomFull(PlayError):
    status = 409


class RoomStarted(PlayError):
    status = 409


class NoRelease(PlayError):
    status = 404


class Refused(PlayError):
    status = 400


class TooManyWrites(PlayError):
    """Over a play write limit (``games.ratelimit``): answered 429 with ``Retry-After``."""

    status = 429


class Stale(PlayError):
    """The action is no longer legal: someone was faster. ``body`` is the fresh snapshot."""

    status = 409

    def __init__(self, message: str, body: dict[str, Any]) -> None:
        super().__init__(message)
        self.body = body


# --- helpers ---------------------------------------------------------------------------------


def _now() -> datetime:
    return timezone.now()


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_curator(user: Any) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False)
                and user.has_perm("exports.add_release"))


def _engine(room: Room) -> Any:
    return engines.get(room.game)


def _clean_name(name: Any) -> str:
    if not isinstance(name, str):
        raise Refused("Please give a name.")
    name = "".join(ch for ch in unicodedata.normalize("NFC", name)
                   if unicodedata.category(ch)[0] != "C").strip()
    if not name:
        raise Refused("Please give a name.")
    if len(name) > NAME_MAX:
        raise Refused(f"A name has at most {NAME_MAX} characters.")
    return name


def _new_code() -> str:
    for _ in range(50):
        code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
        if not Room.objects.filter(code=code).exists():
            return code
    raise PlayError("No free room code was found; please try again.")


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


def _new_seat(room: Room, *, name: str, host: bool = False, bot: bool = False) -> Seat:
    _forget_seats(room)
    numbers = [int(s[1:]) for s in room.seats.values_list("seat", flat=True) if s[1:].isdigit()]
    number = max(numbers, default=0) + 1
    token = secrets.token_urlsafe(24)
    seat = Seat.objects.create(room=room, seat=f"p{number}", position=number, name=name,
                               token_hash=hash_token(token), host=host, bot=bot)
    seat.token = token  # type: ignore[attr-defined]  # shown once, never stored
    return seat


def _expiry() -> timedelta:
    return timedelta(hours=settings.KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS)


def _finished_expiry() -> timedelta:
    return timedelta(hours=settings.KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS)


def _expired(status: str, last_activity: datetime, now: datetime | None = None) -> bool:
    after = _finished_expiry() if status == Room.Status.FINISHED else _expiry()
    return last_activity < (now or _now()) - after


def _game_seed(room: Room) -> str:
    return room.seed if room.game_number <= 1 else f"{room.seed}:{room.game_number}"


# Parsed states and packs by key: a state at a version never changes, nor does a release.
_LRU_LOCK = threading.Lock()


class _Lru(OrderedDict):  # type: ignore[type-arg]
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        with _LRU_LOCK:  # the event streams read rooms in several threads at once
            self[key] = value
            self.move_to_end(key)
            while len(self) > self.size:
                self.popitem(last=False)


class _NewestStates:
    """The newest parsed state of each room this process has read, for at most ``size`` rooms
    (the room stored least recently goes first). A state at a version never changes, and what
    polls and streams ask for is a room's newest; keeping older versions too (a cache of 512
    versions did) held three or four states of every busy room, each ~5x its JSON in memory,
    and grew with every game's log. An older version asked for again is parsed again."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._rooms: OrderedDict[tuple[Any, ...], tuple[tuple[int, int], Any]] = OrderedDict()

    @staticmethod
    def _split(key: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[int, int]]:
        pk, code, seed, game_number, version = key
        return (pk, code, seed), (game_number, version)

    def get(self, key: tuple[Any, ...]) -> Any:
        room, at = self._split(key)
        found = self._rooms.get(room)
        return found[1] if found is not None and found[0] == at else None

    def put(self, key: tuple[Any, ...], state: Any) -> None:
        room, at = self._split(key)
        with _LRU_LOCK:
            found = self._rooms.get(room)
            if found is not None and found[0] > at:
                return  # a slower reader of an older version: the newer state stays
            self._rooms[room] = (at, state)
            self._rooms.move_to_end(room)
            while len(self._rooms) > self.size:
                self._rooms.popitem(last=False)

    def clear(self) -> None:
        with _LRU_LOCK:
            self._rooms.clear()

    def __len__(self) -> int:
        return len(self._rooms)


_STATES = _NewestStates(512)
_PACKS = _Lru(16)


def _state_key(room: Room) -> tuple[Any, ...]:
    # The code and seed too: a test database (or SQLite after a rollback) may reuse a pk.
    return (room.pk, room.code, room.seed, room.game_number, room.version)


def room_state(room: Room) -> dict[str, Any] | None:
    """The room's engine state (shared: callers must not mutate it)."""
    key = _state_key(room)
    own = room.__dict__.get("_own_state")
    if own is not None and own[0] == key:
        return own[1]  # type: ignore[no-any-return]  # changed in this transaction
    found = _STATES.get(key)
    if found is not None:
        return found  # type: ignore[no-any-return]
    if "state_json" in room.get_deferred_fields():
        _read_state_json(room)
        key = _state_key(room)
    state = room.state
    if state is not None and own is None:
        _STATES.put(key, state)  # as committed: a state at a version never changes
    return state


def _read_state_json(room: Room) -> None:
    """Load a room's deferred state together with the columns it goes with. The room may
    have moved on since it was read (a stream's look, a poll): its state alone would then be
    a newer version's under the older version number, and be cached and sent as that older
    version. If it has moved on, the room object becomes the newer room as a whole."""
    row = Room.objects.order_by().filter(pk=room.pk).values_list(*_ROOM_ATTNAMES, "state_json").first()
    if row is None:
        raise NoRoom("This room has just closed.")
    values = dict(zip(_ROOM_ATTNAMES, row[:-1], strict=True))
    if (values["version"], values["game_number"]) != (room.version, room.game_number):
        if values["release_id"] != room.release_id:
            room.__dict__.pop("_release_sha256", None)  # room_pack reads the new release's
        for name, value in values.items():
            setattr(room, name, value)
    room.state_json = row[-1]


def _set_state(room: Room, state: dict[str, Any]) -> None:
    room.state = state
    key = _state_key(room)
    room.__dict__["_own_state"] = (key, state)
    if "_plan" in room.__dict__:
        return  # a prepared move: shared only once it is stored (_store)
    # Shared with other requests only once committed: a rolled-back version may come again
    # with another state.
    transaction.on_commit(lambda: _STATES.put(key, state))


def room_pack(room: Room) -> dict[str, Any]:
    """The pack the room was opened with (its release, or the pinned draft)."""
    from exports.models import Release

    if room.release_id is not None:
        digest = room.__dict__.get("_release_sha256")  # read with the room (find_seat, find_room)
        if digest is None:
            digest = Release.objects.filter(pk=room.release_id).values_list("sha256", flat=True).get()
        key: Any = ("release", digest)
    else:
        key = ("draft", room.pk, room.code, room.seed)
    found = _PACKS.get(key)
    if found is None:
        data = bytes(room.release.data if room.release_id is not None else room.draft_pack or b"{}")
        found = json.loads(data)
        _PACKS.put(key, found)
    return found  # type: ignore[no-any-return]


def _locked(code: str) -> Room:
    try:
        # with its release's digest (room_pack's key), locking the room's row only
        return (Room.objects.select_for_update(of=("self",))
                .annotate(_release_sha256=F("release__sha256")).get(code=code))
    except Room.DoesNotExist:
        raise NoRoom(f"There is no room {code}.") from None


def _touch(room: Room, now: datetime, *, bump: bool = True) -> None:
    if bump:
        room.version += 1
    room.last_activity = now


def _host_check(room: Room, by: Seat) -> Seat:
    fresh = next((s for s in _seats(room) if s.pk == by.pk and not s.removed and not s.bot), None)
    if fresh is None:
        raise NotASeat("This seat no longer belongs to this room.")
    if not fresh.host:
        raise NotAllowed("Only the host can do that.")
    return fresh


def _seat_of(room: Room, seat_id: str) -> Seat:
    seat = next((s for s in _seats(room) if s.seat == seat_id and not s.removed), None)
    if seat is None:
        raise NoRoom(f"There is no seat {seat_id} in room {room.code}.")
    return seat


def _players(room: Room) -> list[str]:
    state = room_state(room)
    return list(state["players"]) if state else []


# --- rooms, seats, start -----------------------------------------------------------------------


def open_room(*, game: str, language: str, release: int | str = "latest",
              options: dict[str, Any] | None = None, name: str, user: Any = None,
              seed: str | int | None = None, pass_and_play: bool = False,
              turn_timer: int = 0, seat: bool = True,
              market: str | None = None) -> tuple[Room, Seat]:
    """A new room in the lobby with its creator as host; returns the room and the host's seat
    (``seat.token`` holds the plain token, shown once).

    ``seat=False`` opens it "table only": the opener (a TV, a laptop) is no player. No seat is
    made (the second value is ``None``); ``room.table_token`` holds the plain host token of the
    table device (its hash is kept), which can hand the host controls to a seat
    (``give_host_from_table``). Until then the first phone that joins becomes the host.

    ``release``: a release number, ``"latest"`` or ``"draft"`` (the draft's bytes are pinned).
    ``"draft"``, ``seed`` and the ``stack`` option need a curator ``user`` (``NotAllowed``).
    Option names are checked here; their values by the engine at ``start`` (they may name
    seats), refused there with the engine's message.
    """
    from exports.models import Release
    from exports.packs import DRAFT, PackError, build_pack, canonical, edition_option

    if game not in engines.ENGINES:
        raise Refused(f"There is no game '{game}'; the games are: {', '.join(engines.ENGINES)}.")
    if not isinstance(language, str) or language.partition("-")[0] not in settings.KARTOTHEK_LANGUAGES:
        raise Refused(f"There is no language '{language}'; the languages are: "
                      f"{', '.join(settings.KARTOTHEK_LANGUAGES)}.")
    if market is not None and not isinstance(market, str):
        raise Refused("\"market\" is a market code: GB (the UK) or US (the United States).")
    try:  # the slogan game's English rooms play one market's deck ("en-GB")
        language = edition_option(game, language, market)
    except PackError as exc:
        raise Refused(str(exc)) from None
    name = _clean_name(name)
    options = _check_options(game, options, user)
    curator = is_curator(user)
    if seed is not None and not curator:
        raise NotAllowed("Only logged-in curators may choose a seed (for playtesting).")
    if seed is not None and (not isinstance(seed, (str, int)) or isinstance(seed, bool)
                             or len(str(seed)) > 64):
        raise Refused("A seed is a number or a text of up to 64 characters.")
    if not isinstance(turn_timer, int) or isinstance(turn_timer, bool) or not 0 <= turn_timer <= 3600:
        raise Refused("The turn timer is a number of seconds from 0 (off) to 3600.")
    if not isinstance(seat, bool):
        raise Refused("\"seat\" is true or false (false: the opener is the table, not a player).")
    if not seat and pass_and_play:
        raise Refused("A pass-and-play room is played on the opener's device: it needs its seat.")
    pinned: Release | None = None
    draft: bytes | None = None
    if release == DRAFT:
        if not curator:
            raise NotAllowed("Only logged-in curators may play the draft (to playtest it).")
        try:
            draft = canonical(build_pack(game, language))
        except PackError as exc:
            raise Refused(str(exc)) from None
    elif release in (None, "latest"):
        pinned = Release.objects.latest_of(game, language)
        if pinned is None:
            raise NoRelease(f"No release of {game} ({language}) has been published yet.")
    else:
        if isinstance(release, bool) or not isinstance(release, (int, str)) or not ascii_number(str(release)):
            raise Refused(f"'{release}' is not a release number, 'latest' or 'draft'.")
        pinned = Release.objects.filter(game=game, language=language, version=int(release)).first()
        if pinned is None:
            raise NoRelease(f"There is no release {release} of {game} ({language}).")
    now = _now()
    with transaction.atomic():
        room = Room.objects.create(
            code=_new_code(), game=game, language=language, release=pinned, draft_pack=draft,
            seed=str(seed) if seed is not None else secrets.token_hex(8), options=options,
            pass_and_play=bool(pass_and_play), turn_timer=turn_timer, last_activity=now,
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        if not seat:
            table_token = secrets.token_urlsafe(24)
            room.table_token_hash = hash_token(table_token)
            room.save(update_fields=["table_token_hash"])
            room.table_token = table_token  # type: ignore[attr-defined]  # shown once
            return room, None  # type: ignore[return-value]
        host = _new_seat(room, name=name, host=True)
    return room, host


def is_table_token(room: Room, token: str | None) -> bool:
    """Whether ``token`` is the host token of a table-only room's table device."""
    if not token or not room.table_token_hash:
        return False
    return secrets.compare_digest(room.table_token_hash, hash_token(token))


def give_host_from_table(room: Room, token: str, seat_id: str) -> Room:
    """The table device of a table-only room gives the host controls to a human seat (the
    seat that had them loses them); at any time, as often as the table likes."""
    with transaction.atomic():
        room = _locked(room.code)
        if not is_table_token(room, token):
            raise NotAllowed("Only the table screen that opened this room can do that.")
        target = _seat_of(room, seat_id)
        if target.bot:
            raise Refused("A bot cannot be the host.")
        for other in _seats(room):
            if other.host and other.pk != target.pk:
                other.host = False
                other.save(update_fields=["host"])
        target.host = True
        target.save(update_fields=["host"])
        _touch(room, _now())
        room.save()
    return room


def _check_options(game: str, options: Any, user: Any) -> dict[str, Any]:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise Refused("Options are a JSON object.")
    known = getattr(engines.get(game), "OPTIONS", None)
    if known is not None:
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise Refused(f"{game} has no option {', '.join(unknown)}; the options are: "
                          f"{', '.join(known)}.")
    if "stack" in options and not is_curator(user):
        raise NotAllowed("Only logged-in curators may stack the piles (for playtesting).")
    return dict(options)


def normal_code(code: str) -> str:
    """A typed code as stored: upper case, spaces and dashes dropped."""
    return "".join(ch for ch in (code or "").upper() if ch not in " -\t")


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
    row = _SEAT_WITH_ROOM.first((code or "").strip().upper(), hash_token(token))
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


def join(room: Room, *, name: str) -> Seat:
    """A new seat in the lobby (``seat.token`` holds the plain token); ``RoomFull`` at the
    game's maximum, ``RoomStarted`` once the game has started."""
    name = _clean_name(name)
    with transaction.atomic():
        room = _locked(room.code)
        if room.status != Room.Status.LOBBY:
            raise RoomStarted("The game in this room has already started.")
        maximum = _engine(room).MAX_PLAYERS
        if room.seats.filter(removed=False).count() >= maximum:
            raise RoomFull(f"The room is full: {room.get_game_display()} is for at most "
                           f"{maximum} players.")
        # A table-only room has no host until a phone comes: the first one to join gets the
        # controls (the table can hand them to another seat later).
        hostless = bool(room.table_token_hash) and not room.seats.filter(
            host=True, removed=False, bot=False).exists()
        seat = _new_seat(room, name=name, host=hostless)
        room.options.pop("teams", None)  # the seats changed: the host sets teams again
        _touch(room, _now())
        room.save()
    return seat


def seat_for_token(room: Room, token: str) -> Seat | None:
    """The room's seat that token proves (a removed or bot seat proves nothing)."""
    if not token:
        return None
    return room.seats.filter(token_hash=hash_token(token), removed=False, bot=False).first()


def _deal(room: Room, players: list[str], options: dict[str, Any], now: datetime) -> None:
    engine = _engine(room)
    room.game_number += 1
    try:
        state = engine.setup(players, room_pack(room), seed=_game_seed(room), options=options)
    except (ValueError, KeyError, TypeError) as exc:
        room.game_number -= 1
        raise Refused(str(exc).strip("'\"")) from None
    room.status = Room.Status.PLAYING
    room.options = options
    room.games = [*room.games, {"number": room.game_number, "seed": _game_seed(room),
                                "players": players, "options": options, "result": None,
                                "started": now.isoformat()}]
    _touch(room, now)
    _set_state(room, state)
    room.last_action_at = now
    _run_bots(room, now)
    _schedule(room, now)


def start(room: Room, seat: Seat, *, options: dict[str, Any] | None = None, user: Any = None) -> Room:
    """Host only: deal the game for the seats present (at least the game's minimum).
    ``options`` are merged over the room's (e.g. Sign ``teams`` as lists of seat ids);
    a ``stack`` among them needs a curator ``user``."""
    with transaction.atomic():
        room = _locked(room.code)
        _host_check(room, seat)
        if room.status != Room.Status.LOBBY:
            raise RoomStarted("The game has already started.")
        engine = _engine(room)
        players = list(room.seats.filter(removed=False).order_by("position")
                       .values_list("seat", flat=True))
        if len(players) < engine.MIN_PLAYERS:
            raise Refused(f"{room.get_game_display()} needs at least {engine.MIN_PLAYERS} players; "
                          f"{len(players)} are here. Invite more or add a bot.")
        merged = {**room.options, **_check_options(room.game, options, user)}
        if "teams" in merged:
            _check_teams(room, merged["teams"], players)
        _deal(room, players, merged, _now())
        room.save()
    return room


def allowed_divisions(players: int) -> list[tuple[int, ...]]:
    helper = getattr(engines.get("sign"), "allowed_divisions", None)
    if helper is not None:
        return [tuple(sorted(d, reverse=True)) for d in helper(players)]
    return SIGN_DIVISIONS.get(players, [])


def _check_teams(room: Room, teams: Any, players: list[str]) -> None:
    if room.game != "sign":
        raise Refused("Only Sign is played in teams.")
    if (not isinstance(teams, list) or not all(isinstance(t, list) for t in teams)
            or not all(isinstance(p, str) for t in teams for p in t)):
        raise Refused("Teams are lists of seat ids, e.g. [[\"p1\", \"p3\"], [\"p2\", \"p4\"]].")
    flat = [p for t in teams for p in t]
    if sorted(flat) != sorted(players):
        raise Refused("Every seat plays in exactly one team.")
    sizes = tuple(sorted((len(t) for t in teams), reverse=True))
    allowed = allowed_divisions(len(players))
    if sizes not in allowed:
        shown = " or ".join("-".join(map(str, d)) for d in allowed)
        raise Refused(f"With {len(players)} players the rulebook's teams are {shown}, "
                      f"not {'-'.join(map(str, sizes))}.")


def set_teams(room: Room, by: Seat, teams: list[list[str]]) -> Room:
    """Host only, Sign, in the lobby: the teams as lists of seat ids; only the rulebook's
    divisions (4 → 2-2, 5 → 3-2, 6 → 3-3 or 2-2-2, 7 → 4-3 or 3-2-2, 8 → 4-4, 9 → 3-3-3)."""
    with transaction.atomic():
        room = _locked(room.code)
        _host_check(room, by)
        if room.status != Room.Status.LOBBY:
            raise RoomStarted("Teams are set before the game starts.")
        players = list(room.seats.filter(removed=False).values_list("seat", flat=True))
        _check_teams(room, teams, players)
        room.options = {**room.options, "teams": [list(t) for t in teams]}
        _touch(room, _now())
        room.save()
    return room


# --- host controls ---------------------------------------------------------------------------


def remove_seat(room: Room, by: Seat, seat_id: str) -> Room:
    """Host only: the seat's token stops working. In the lobby the seat goes; during a game
    a bot takes over its place (the engine's players cannot change mid-game)."""
    with transaction.atomic():
        room = _locked(room.code)
        host = _host_check(room, by)
        target = _seat_of(room, seat_id)
        if target.pk == host.pk:
            raise Refused("The host cannot remove their own seat; hand the host role on first.")
        now = _now()
        if room.status == Room.Status.LOBBY:
            target.delete()
            _forget_seats(room)
            room.options.pop("teams", None)
        else:
            target.removed = True
            target.bot = True
            target.save()
            _run_bots(room, now)
            _schedule(room, now)
        _touch(room, now)
        room.save()
    return room


def set_away(room: Room, by: Seat, seat_id: str, away: bool = True) -> Room:
    """The host for any seat, or a player for their own: while away, a bot plays the seat;
    the player's next action brings them back."""
    with transaction.atomic():
        room = _locked(room.code)
        actor = next((s for s in _seats(room) if s.pk == by.pk and not s.removed and not s.bot), None)
        if actor is None:
            raise NotASeat("This seat no longer belongs to this room.")
        target = _seat_of(room, seat_id)
        if not actor.host and target.pk != actor.pk:
            raise NotAllowed("Only the host can mark another player away.")
        if target.bot:
            raise Refused("A bot plays this seat already.")
        now = _now()
        target.away = bool(away)
        target.save()
        if room.status == Room.Status.PLAYING:
            _run_bots(room, now)
            _schedule(room, now)
        _touch(room, now)
        room.save()
    return room


def give_host(room: Room, by: Seat, seat_id: str) -> Room:
    """Host only: another human seat becomes the host."""
    with transaction.atomic():
        room = _locked(room.code)
        host = _host_check(room, by)
        target = _seat_of(room, seat_id)
        if target.bot:
            raise Refused("A bot cannot be the host.")
        host.host = False
        host.save()
        target.host = True
        target.save()
        _touch(room, _now())
        room.save()
    return room


def give_to_bot(room: Room, by: Seat, seat_id: str | None = None) -> Room:
    """Host only: the seat becomes a bot for good (its token stops working). ``seat_id=None``
    in the lobby adds a new bot seat instead (three friends can play a four-player game)."""
    with transaction.atomic():
        room = _locked(room.code)
        host = _host_check(room, by)
        now = _now()
        if seat_id is None:
            if room.status != Room.Status.LOBBY:
                raise RoomStarted("Bots join in the lobby; during a game give a seat to a bot.")
            maximum = _engine(room).MAX_PLAYERS
            count = room.seats.filter(removed=False).count()
            if count >= maximum:
                raise RoomFull(f"The room is full: at most {maximum} players.")
            bots_here = room.seats.filter(bot=True).count()
            _new_seat(room, name=f"Bot {bots_here + 1}", bot=True)
            room.options.pop("teams", None)
        else:
            target = _seat_of(room, seat_id)
            if target.pk == host.pk:
                raise Refused("Hand the host role on before giving your own seat to a bot.")
            target.bot = True
            target.away = False
            target.token_hash = hash_token(secrets.token_urlsafe(24))  # the old token is void
            target.save()
            if room.status == Room.Status.PLAYING:
                _run_bots(room, now)
                _schedule(room, now)
        _touch(room, now)
        room.save()
    return room


def new_token(room: Room, by: Seat, seat_id: str) -> str:
    """Host only: a fresh token for a human seat (its rejoin link, to move to another
    device); the seat's old token stops working at once. Returns the new plain token."""
    with transaction.atomic():
        room = _locked(room.code)
        _host_check(room, by)
        target = _seat_of(room, seat_id)
        if target.bot:
            raise Refused("A bot plays this seat; there is nobody to rejoin.")
        token = secrets.token_urlsafe(24)
        if target.pk != by.pk:
            # Another player's seat: announced to the table (the seat's "moved" flag and a log
            # line on every screen), and the old device is told why it lost the seat. The host
            # could read that hand from now on, so it must not happen silently.
            target.old_token_hash = target.token_hash
            target.moved += 1
        target.token_hash = hash_token(token)
        target.save(update_fields=["token_hash", "old_token_hash", "moved"])
        _forget_seats(room)
        _touch(room, _now())
        room.save(update_fields=["version", "last_activity"])
    return token


def moved_away(code: str, token: str) -> Seat | None:
    """The seat whose token this was before the host moved it to another device, or None."""
    if not token:
        return None
    return (Seat.objects.filter(room__code=(code or "").strip().upper(), old_token_hash=hash_token(token),
                                removed=False).first())


def moved_message(seat: Seat) -> str:
    return (f"The host moved {seat.name}'s seat to another device; this device no longer holds it. "
            "Ask the host for the rejoin link if that was a mistake.")


def play_again(room: Room, by: Seat) -> Room:
    """Host only, after the game has finished: a new game with the same seats and options in
    the same room (same code, same tokens), a new seed; the old game stays in the log."""
    with transaction.atomic():
        room = _locked(room.code)
        _host_check(room, by)
        if room.status != Room.Status.FINISHED:
            raise Refused("The game is still running.")
        players = list(room.games[-1]["players"])
        _deal(room, players, dict(room.options), _now())
        room.save()
    return room


# --- the one function between the network and the rules ----------------------------------------


def act(code: str, seat: Seat, *, action_id: str, version: int, action: dict[str, Any],
        count_write: Callable[[], str | None] | None = None) -> dict[str, Any]:
    """Apply one action of ``seat``; returns ``snapshot(room, seat)`` after it and after the
    bots' moves. ``Stale(body)`` when the action is no longer legal, ``Refused`` when the engine
    refuses it, ``NotASeat`` for a removed seat; the same ``action_id`` again applies nothing.

    ``count_write`` counts the write against the play limits inside the action's transaction
    (one write lock per action instead of one for the count and one for the move: on SQLite the
    two queued behind each other); it answers a reason when over a limit (``TooManyWrites``,
    nothing counted or applied). A refused action stays counted."""
    problem = _malformed(action_id, version, action)
    if problem is not None:
        if count_write is not None and (reason := count_write()) is not None:
            raise TooManyWrites(reason)  # a malformed action counts as a write too
        raise Refused(problem)
    # The answer (the view, the JSON) is made after the commit: the lock is held only while
    # the action is checked, applied and stored.
    room, seat, stale = _act_counted(code, seat, action_id, version, action, count_write)
    if stale is not None:
        raise Stale(stale, snapshot(room, seat))
    return snapshot(room, seat)


def _malformed(action_id: Any, version: Any, action: Any) -> str | None:
    """What is wrong with an action's envelope, before any lock is taken."""
    if not isinstance(action_id, str) or not ACTION_ID.match(action_id):
        return ("An action needs an \"id\": 1 to 64 letters, digits or -_.: (a fresh one "
                "per action; the same id again applies nothing).")
    if isinstance(version, bool) or not isinstance(version, int):
        return "An action needs the \"version\" of the room it was chosen in."
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        return "An action is a JSON object with a \"type\"."
    return None


def _act_counted(code: str, seat: Seat, action_id: str, version: int, action: dict[str, Any],
                 count_write: Callable[[], str | None] | None) -> tuple[Room, Seat, str | None]:
    """The move, prepared without the lock when it can be, then the write counted and stored in
    one transaction; a play error of the action rolls back its savepoint only, so the count
    is kept.

    The write lock is what every writer of a SQLite database queues on, so it is held for as
    few statements as possible: the room, its seats and the action id are read and the move
    (with the bots' answers) is applied and serialized before it is taken (``_prepare``), and
    inside it the room is updated only if it is still at the version the move was made on
    (``_store``): count, update, log, commit. A room that moved on meanwhile, and anything but
    a plain move (a refusal, a stale or repeated action, the game's end, which records its
    statistics), takes the locked path, which reads everything again under the lock."""
    plan = _prepare(code, seat, action_id, version, action)
    with transaction.atomic():
        if count_write is not None and (reason := count_write()) is not None:
            raise TooManyWrites(reason)
        if plan is not None and _store(plan):
            return plan.room, plan.seat, None
        try:
            return _act_locked(code, seat, action_id, version, action)
        except PlayError as exc:
            if count_write is None:
                raise
            refused = exc
    raise refused  # after the commit that keeps the count


class _NeedsLock(Exception):
    """The prepared move does something only the locked path does (the game ends)."""


class _Plan:
    """A move applied to a room read without the lock, and what storing it writes."""

    def __init__(self, room: Room, seat: Seat, read_version: int) -> None:
        self.room, self.seat, self.read_version = room, seat, read_version
        self.logs: list[ActionLog] = []  # the actions to log (the move and the bots' answers)
        self.seats: list[Seat] = []  # seats whose ``away`` changed
        self.columns: dict[str, Any] = {}  # the room's columns that changed


def _prepare(code: str, seat: Seat, action_id: str, version: int,
             action: dict[str, Any]) -> _Plan | None:
    """The move applied to the room as it is now, read without the lock (the seat's own lookup
    read it: no query), or ``None`` when only the locked path may answer."""
    try:
        room = seat_room(seat) if "_room_row" in seat.__dict__ else find_room(code)
        # a deferred state is read with its version: the room may become a newer one here
        if room is None or room.code != code or room_state(room) is None:
            return None
    except PlayError:
        return None
    if room.status != Room.Status.PLAYING or version != room.version:
        return None
    plan = _Plan(room, seat, room.version)
    before = {f.attname: room.__dict__.get(f.attname) for f in Room._meta.concrete_fields}
    room.__dict__["_plan"] = plan
    try:
        plan.seat, stale, moved = _apply(room, seat, action_id, version, action)
    except (PlayError, _NeedsLock):
        return None
    finally:
        del room.__dict__["_plan"]
    if stale is not None or not moved:
        return None
    plan.columns = {name: room.__dict__[name] for name in before
                    if name in room.__dict__ and room.__dict__[name] != before[name]}
    return plan


def _store(plan: _Plan) -> bool:
    """Store a prepared move if the room is still at the version it was made on (one UPDATE
    that checks and writes); ``False`` (nothing written) when it has moved on."""
    room = plan.room
    if not Room.objects.filter(pk=room.pk, version=plan.read_version).update(**plan.columns):
        return False
    ActionLog.objects.bulk_create(plan.logs)
    for seat in plan.seats:
        seat.save(update_fields=["away"])
    state, key = room_state(room), _state_key(room)
    transaction.on_commit(lambda: _STATES.put(key, state))
    # an UPDATE sends no post_save: send the one room.save() would (the event fan-out hears it)
    post_save.send(sender=Room, instance=room, created=False, raw=False, using=room._state.db,
                   update_fields=frozenset(plan.columns))
    return True


def _act_locked(code: str, seat: Seat, action_id: str, version: int,
                action: dict[str, Any]) -> tuple[Room, Seat, str | None]:
    """The locked path of ``act``: returns the room, the seat and a Stale message or None."""
    with transaction.atomic():
        room = _locked(code)
        seat, stale, moved = _apply(room, seat, action_id, version, action)
        if moved:
            room.save()
    return room, seat, stale


def _apply(room: Room, seat: Seat, action_id: str, version: int,
           action: dict[str, Any]) -> tuple[Seat, str | None, bool]:
    """The checks and the move of ``act`` on ``room`` (locked, or read for a ``_Plan``):
    the seat as the room has it, a Stale message or None, and whether the room changed."""
    fresh = next((s for s in _seats(room) if s.pk == seat.pk), None)
    if fresh is None or fresh.removed or fresh.bot:
        raise NotASeat("This seat no longer belongs to this room.")
    seat = fresh
    earlier = ActionLog.objects.filter(room=room, action_id=action_id).first()
    if earlier is not None:
        if earlier.seat != seat.seat:
            raise Refused("This action id was already used by another seat; send a fresh one.")
        return seat, None, False  # applied before: nothing happens again
    if room.status != Room.Status.PLAYING:
        if version < room.version:
            return seat, "The game has moved on.", False
        raise Refused("The game is not running." if room.status == Room.Status.LOBBY
                      else "The game is over.")
    if version > room.version:
        raise Refused(f"Version {version} is newer than the room's ({room.version}).")
    if version < room.version and room.game != "sign":
        return seat, "Someone was faster: the game has moved on. Look again.", False
    engine = _engine(room)
    state = room_state(room)
    action = translate(action, card_maps(room)[1])  # the room's card ids back to pack keys
    try:
        new = engine.apply(state, seat.seat, action)
    except IllegalAction as exc:
        if version < room.version:
            return seat, f"Someone was faster: {exc}", False
        raise Refused(str(exc)) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        raise Refused("The engine could not read this action; check its fields.") from None
    now = _now()
    if seat.away:
        seat.away = False
        plan: _Plan | None = room.__dict__.get("_plan")
        if plan is not None:
            plan.seats.append(seat)
        else:
            seat.save(update_fields=["away"])
    _record(room, seat.seat, action_id, action, new, now, by="player")
    _run_bots(room, now)
    _schedule(room, now)
    return seat, None, True


def _record(room: Room, player: str, action_id: str, action: dict[str, Any],
            new: dict[str, Any], now: datetime, *, by: str) -> None:
    plan: _Plan | None = room.__dict__.get("_plan")
    result = _engine(room).result(new)
    if plan is not None and result is not None:
        raise _NeedsLock  # the game's end records its statistics: the locked path does it
    room.version += 1
    room.last_activity = now
    room.last_action_at = now
    _set_state(room, new)
    log = ActionLog(room=room, game_number=room.game_number, seat=player, action_id=action_id,
                    action=action, version=room.version, by=by)
    if plan is not None:
        plan.logs.append(log)
    else:
        log.save(force_insert=True)
    if result is not None:
        room.status = Room.Status.FINISHED
        room.due_at = None
        games = [dict(g) for g in room.games]
        games[-1]["result"] = result
        room.games = games
        from games.stats import record_game

        record_game(room)


def _bot_seats(room: Room) -> list[Seat]:
    return [s for s in _seats(room) if s.bot or (s.away and not s.removed)]


def _sign_delay(room: Room) -> float:
    low, high = settings.KARTOTHEK_PLAY_SIGN_BOT_DELAY
    return bot_rng(room, "pace").uniform(low, high)


def _run_bots(room: Room, now: datetime) -> None:
    """Bots (and away seats) move until none wants to; in Sign one move, and only once the
    human pace's delay since the last action has passed."""
    if room.status != Room.Status.PLAYING:
        return
    seats = _bot_seats(room)
    if not seats:
        return
    engine = _engine(room)
    realtime = room.game == "sign"
    for _ in range(MAX_BOT_STEPS):
        if room.status != Room.Status.PLAYING:
            return
        moved = False
        for seat in seats:
            if realtime:
                last = room.last_action_at or now
                if (now - last).total_seconds() < _sign_delay(room):
                    return
            state = room_state(room)
            assert state is not None
            action = bots.act(room.game, state, seat.seat, bot_rng(room, seat.seat))
            if action is None:
                continue
            try:
                new = engine.apply(state, seat.seat, action)
            except IllegalAction:
                # A bot's mistake must not block the room for the people in it.
                logger.warning("Bot in %s/%s chose an illegal action %r", room.code, seat.seat, action)
                continue
            _record(room, seat.seat, f"~bot.{room.game_number}.{room.version + 1}", action, new,
                    now, by="bot")
            moved = True
            if realtime:
                return
            if room.status != Room.Status.PLAYING:
                return
        if not moved:
            return


def _owes(engine: Any, state: dict[str, Any], player: str) -> bool:
    return any(a.get("type") not in OPTIONAL_ACTIONS for a in engine.legal_actions(state, player))


def _schedule(room: Room, now: datetime) -> None:
    """When a poll must next take the lock: a Sign bot's next move, or the turn timer."""
    room.due_at = None
    if room.status != Room.Status.PLAYING:
        return
    state = room_state(room)
    assert state is not None
    engine = _engine(room)
    last = room.last_action_at or now
    due: list[datetime] = []
    if room.game == "sign":
        if any(engine.legal_actions(state, s.seat) for s in _bot_seats(room)):
            delay = timedelta(seconds=_sign_delay(room))
            # bots that just passed are asked again a pace later, not on every poll
            due.append(last + delay if last + delay > now else now + delay)
    elif room.turn_timer:
        humans = [s for s in _seats(room) if not (s.removed or s.bot or s.away)]
        if any(_owes(engine, state, s.seat) for s in humans):
            due.append(last + timedelta(seconds=room.turn_timer))
    room.due_at = min(due) if due else None


def step_bots(room: Room) -> Room:
    """Let bots (and the turn timer) move if they are due; what a poll calls. Cheap when
    nothing is due (reads ``room.due_at`` only). The timer hands every human seat that owes
    an action to a bot (marks it away) when it runs out; the player's next action returns it."""
    now = _now()
    if room.due_at is None or room.due_at > now or room.status != Room.Status.PLAYING:
        return room
    with transaction.atomic():
        room = _locked(room.code)
        if room.due_at is None or room.due_at > now or room.status != Room.Status.PLAYING:
            return room
        if room.turn_timer and room.game != "sign" and room.last_action_at is not None and \
                (now - room.last_action_at).total_seconds() >= room.turn_timer:
            state = room_state(room)
            engine = _engine(room)
            for seat in [s for s in _seats(room) if not (s.removed or s.bot or s.away)]:
                if state is not None and _owes(engine, state, seat.seat):
                    seat.away = True
                    seat.save(update_fields=["away"])
                    room.version += 1
        _run_bots(room, now)
        _schedule(room, now)
        room.save()
    return room


# --- answers ---------------------------------------------------------------------------------


_SEAT_LISTS = _Lru(1024)


def seats_list(room: Room) -> list[dict[str, Any]]:
    """The seats as every answer shows them; kept per version (every change to a seat bumps
    the room's version), so a poll of an unchanged room's seats reads nothing. Inside a
    transaction that changes seats, the room's own seat objects are read instead."""
    key = _state_key(room)
    if "_seats_cache" not in room.__dict__:
        found = _SEAT_LISTS.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
    listed = [{"seat": s.seat, "name": s.name, "host": s.host, "bot": s.bot, "away": s.away,
               "moved": s.moved} for s in _seats(room)]
    transaction.on_commit(lambda: _SEAT_LISTS.put(key, listed))  # at once outside a transaction
    return listed


def snapshot(room: Room, seat: Seat | None) -> dict[str, Any]:
    """The GET body of DESIGN.md: ``code, game, language, status, version, seats, you, view,
    legal_actions, result``, made from ``engine.view(state, seat)`` only (``None``: the table).
    In the lobby ``view`` is ``None`` and ``legal_actions`` empty."""
    state = room_state(room) if room.status != Room.Status.LOBBY else None
    engine = _engine(room)
    player = seat.seat if seat is not None and state is not None and seat.seat in state["scores"] \
        else None
    view = engine.view(state, player) if state is not None else None
    if view is not None and len(view.get("log") or ()) > RECENT_LOG:
        view = {**view, "log": view["log"][-RECENT_LOG:]}  # bounded: a long game's poll stays small
    legal: list[dict[str, Any]] = []
    if player is not None and seat is not None and not seat.bot and room.status == Room.Status.PLAYING:
        legal = engine.legal_actions(state, player)
    result = engine.result(state) if state is not None else None
    if state is not None:  # cards by the room's ids, never by pack keys (games/cardids.py)
        to_id = card_maps(room)[0]
        view, legal, result = translate(view, to_id), translate(legal, to_id), translate(result, to_id)
    return {
        "code": room.code,
        "game": room.game,
        "language": room.card_language,
        "market": room.market,
        "status": room.status,
        "version": room.version,
        "seats": [dict(entry) for entry in seats_list(room)],
        "you": seat.seat if seat is not None else None,
        "view": view,
        "legal_actions": legal,
        "result": result,
    }


def card_maps(room: Room) -> tuple[dict[str, str], dict[str, str], dict[str, Any]]:
    """The room's card ids: (pack key → id, id → pack key, the pack with ids for the pages)."""
    return cardids.maps(room, room_pack(room))


def replay(room: Room, game_number: int | None = None) -> list[dict[str, Any]]:
    """The game step by step from its log: ``[{"version", "seat", "action", "by", "at",
    "view"}]`` where ``view`` is the table view after that step (the first entry is the deal,
    with ``seat`` and ``action`` None). Only for finished games (``NotAllowed`` otherwise)."""
    number = game_number or room.game_number
    games = [g for g in room.games if g["number"] == number]
    if not games or games[0]["result"] is None:
        raise NotAllowed("Only a finished game can be replayed.")
    entry = games[0]
    engine = _engine(room)
    state = engine.setup(list(entry["players"]), room_pack(room), seed=entry["seed"],
                         options=entry["options"])
    to_id = card_maps(room)[0]
    steps: list[dict[str, Any]] = [{"version": None, "seat": None, "action": None, "by": None,
                                    "at": entry.get("started"),
                                    "view": translate(engine.view(state, None), to_id)}]
    for row in room.log.filter(game_number=number).order_by("version"):
        state = engine.apply(state, row.seat, row.action)
        steps.append({"version": row.version, "seat": row.seat, "action": translate(row.action, to_id),
                      "by": row.by, "at": row.at.isoformat(),
                      "view": translate(engine.view(state, None), to_id)})
    return steps


def bot_rng(room: Room, seat: str) -> random.Random:
    """The generator a bot uses for one move: seeded from the room, its game and version."""
    return random.Random(f"{room.seed}:{room.game_number}:{room.version}:{seat}")


__all__ += [
    "NoRelease",
    "allowed_divisions",
    "check_expiry",
    "find_room",
    "find_seat",
    "hash_token",
    "is_curator",
    "load_room",
    "moved_away",
    "moved_message",
    "new_token",
    "normal_code",
    "room_pack",
    "room_state",
    "seat_room",
    "seats_list",
]
_ = (IntegrityError, CardPlayStat)
