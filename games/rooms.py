"""The play mode's service layer: the one place between the network and the rules, and the
rooms' life: opening, joining, seats and teams, the host, starting and playing again.

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
player decided on has changed: a "Stop!" meant for one placement must not hit the next), but
a move all players make at the same time (an engine's ``SIMULTANEOUS``: Sauschwer's markers)
applies when only other seats' such moves came in since (games/moves.py). In
Sign, which is played in real time by everyone at once, an action sent at an older version
applies when the engine still accepts it, and is ``Stale`` otherwise (the card was taken).

Idempotency: an action id is remembered per room; the same id again applies nothing and
answers with the room as it is now (which includes the first application).

Tokens: a seat's token is shown once, when the seat is made (``seat.token``, not stored);
the database keeps its sha256.

The layer's other rooms, each imported here so that views and the API call ``rooms.…`` only:
``games.errors`` (the errors below), ``games.lookup`` (a room and a seat by code and token,
expiry), ``games.states`` (the parsed states and packs), ``games.turns`` (recording a move,
the bots, the timer), ``games.snapshots`` (the answers) and ``games.moves`` (``act``).
"""

from __future__ import annotations

import secrets
import unicodedata
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction

from cards.text import ascii_number
from games import engines
from games.clients import NOBODY, PlayClient
from games.errors import (
    NoRelease,
    NoRoom,
    NotAllowed,
    NotASeat,
    PlayError,
    Refused,
    RoomFull,
    RoomStarted,
    Stale,
    TooManyWrites,
)
from games.lookup import (
    ALPHABET,
    CODE_LENGTH,
    _engine,
    _forget_seats,
    _game_seed,
    _locked,
    _now,
    _seats,
    check_expiry,
    find_room,
    find_seat,
    find_seat_hashed,
    get_room,
    hash_token,
    is_curator,
    load_room,
    normal_code,
    seat_for_token,
    seat_room,
    typed_code,
)
from games.models import Room, Seat
from games.moves import act
from games.snapshots import RECENT_LOG, finished_game, replay, seats_list, snapshot
from games.states import _set_state, card_maps, room_pack, room_state
from games.turns import _run_bots, _schedule, bot_rng, step_bots

__all__ = [
    "ALPHABET",
    "CODE_LENGTH",
    "RECENT_LOG",
    "NoRelease",
    "NoRoom",
    "NotASeat",
    "NotAllowed",
    "PlayError",
    "Refused",
    "RoomFull",
    "RoomStarted",
    "Stale",
    "TooManyWrites",
    "act",
    "allowed_divisions",
    "bot_rng",
    "card_maps",
    "check_expiry",
    "find_room",
    "find_seat",
    "find_seat_hashed",
    "finished_game",
    "get_room",
    "give_host",
    "give_host_from_table",
    "give_to_bot",
    "hash_token",
    "is_curator",
    "is_table_token",
    "join",
    "load_room",
    "moved_away",
    "moved_away_hashed",
    "moved_message",
    "new_token",
    "normal_code",
    "open_room",
    "play_again",
    "remove_seat",
    "replay",
    "room_pack",
    "room_state",
    "seat_for_token",
    "seat_room",
    "seats_list",
    "set_away",
    "set_teams",
    "snapshot",
    "start",
    "step_bots",
    "typed_code",
]


# The rulebook's Sign divisions (team sizes, largest first) by number of players.
SIGN_DIVISIONS: dict[int, list[tuple[int, ...]]] = {
    4: [(2, 2)], 5: [(3, 2)], 6: [(3, 3), (2, 2, 2)], 7: [(4, 3), (3, 2, 2)],
    8: [(4, 4)], 9: [(3, 3, 3)],
}


NAME_MAX = 40


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


def _new_seat(room: Room, *, name: str, host: bool = False, bot: bool = False,
              client: PlayClient = NOBODY) -> Seat:
    _forget_seats(room)
    numbers = [int(s[1:]) for s in room.seats.values_list("seat", flat=True) if s[1:].isdigit()]
    number = max(numbers, default=0) + 1
    token = secrets.token_urlsafe(24)
    seat = Seat.objects.create(room=room, seat=f"p{number}", position=number, name=name,
                               token_hash=hash_token(token), host=host, bot=bot,
                               client_hash=client.address, device_hash=client.device)
    seat.token = token  # type: ignore[attr-defined]  # shown once, never stored
    return seat


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


def open_room(*, game: str, language: str, release: int | str = "latest",
              options: dict[str, Any] | None = None, name: str, user: Any = None,
              seed: str | int | None = None, pass_and_play: bool = False,
              turn_timer: int = 0, seat: bool = True,
              market: str | None = None, client: PlayClient = NOBODY) -> tuple[Room, Seat]:
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
        host = _new_seat(room, name=name, host=True, client=client)
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


def join(room: Room, *, name: str, client: PlayClient = NOBODY) -> Seat:
    """A new seat in the lobby (``seat.token`` holds the plain token); ``RoomFull`` at the
    game's maximum, ``RoomStarted`` once the game has started. ``client``: where the request
    came from (games/clients.py), recorded on the seat."""
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
        seat = _new_seat(room, name=name, host=hostless, client=client)
        room.options.pop("teams", None)  # the seats changed: the host sets teams again
        _touch(room, _now())
        room.save()
    return seat


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
    return moved_away_hashed(code, hash_token(token))


def moved_away_hashed(code: str, token_hash: str) -> Seat | None:
    """``moved_away`` by the token's sha256."""
    return (Seat.objects.filter(room__code=(code or "").strip().upper(), old_token_hash=token_hash,
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
