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

import random
from typing import Any

from games.models import ActionLog, Room, Seat

__all__ = [
    "ALPHABET", "NoRoom", "NotASeat", "NotAllowed", "PlayError", "Refused", "RoomFull",
    "RoomStarted", "Stale", "act", "get_room", "give_host", "give_to_bot", "join",
    "open_room", "play_again", "remove_seat", "replay", "seat_for_token", "set_away",
    "set_teams", "snapshot", "start", "step_bots",
]

# Room codes: no look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B, U/V).
ALPHABET = "34679ACDEFGHJKMNPQRTWXY"
CODE_LENGTH = 5


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


class Refused(PlayError):
    status = 400


class Stale(PlayError):
    """The action is no longer legal: someone was faster. ``body`` is the fresh snapshot."""

    status = 409

    def __init__(self, message: str, body: dict[str, Any]) -> None:
        super().__init__(message)
        self.body = body


def open_room(*, game: str, language: str, release: int | str = "latest",
              options: dict[str, Any] | None = None, name: str, user: Any = None,
              seed: str | int | None = None, pass_and_play: bool = False,
              turn_timer: int = 0) -> tuple[Room, Seat]:
    """A new room in the lobby with its creator as host; returns the room and the host's seat
    (``seat.token`` holds the plain token, shown once).

    ``release``: a release number, ``"latest"`` or ``"draft"`` (the draft's bytes are pinned).
    ``"draft"``, ``seed`` and the ``stack`` option need a curator ``user`` (``NotAllowed``).
    Options are checked by the engine at ``start`` (they may name seats); unknown names and
    bad values are refused there with the engine's message.
    """
    raise NotImplementedError


def get_room(code: str) -> Room:
    """The room with that code (case-insensitive), or ``NoRoom``; an unfinished room idle for
    longer than ``KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS`` is deleted and reported as ``NoRoom``."""
    raise NotImplementedError


def join(room: Room, *, name: str) -> Seat:
    """A new seat in the lobby (``seat.token`` holds the plain token); ``RoomFull`` at the
    game's maximum, ``RoomStarted`` once the game has started."""
    raise NotImplementedError


def start(room: Room, seat: Seat, *, options: dict[str, Any] | None = None) -> Room:
    """Host only: deal the game for the seats present (at least the game's minimum).
    ``options`` are merged over the room's (e.g. Sign ``teams`` as lists of seat ids)."""
    raise NotImplementedError


def act(code: str, seat: Seat, *, action_id: str, version: int, action: dict[str, Any]) -> dict[str, Any]:
    """Apply one action of ``seat``; returns ``snapshot(room, seat)`` after it and after the
    bots' moves. ``Stale(body)`` when the action is no longer legal, ``Refused`` when the engine
    refuses it, ``NotASeat`` for a removed seat; the same ``action_id`` again applies nothing."""
    raise NotImplementedError


def snapshot(room: Room, seat: Seat | None) -> dict[str, Any]:
    """The GET body of DESIGN.md: ``code, game, language, status, version, seats, you, view,
    legal_actions, result``, made from ``engine.view(state, seat)`` only (``None``: the table).
    In the lobby ``view`` is ``None`` and ``legal_actions`` empty."""
    raise NotImplementedError


def seat_for_token(room: Room, token: str) -> Seat | None:
    """The room's seat that token proves (a removed seat proves nothing)."""
    raise NotImplementedError


def remove_seat(room: Room, by: Seat, seat_id: str) -> Room:
    """Host only: the seat's token stops working. In the lobby the seat goes; during a game
    a bot takes over its place (the engine's players cannot change mid-game)."""
    raise NotImplementedError


def set_away(room: Room, by: Seat, seat_id: str, away: bool = True) -> Room:
    """Host (any seat), or a player for their own seat: while away, a bot plays the seat;
    the player's next action brings them back."""
    raise NotImplementedError


def give_host(room: Room, by: Seat, seat_id: str) -> Room:
    """Host only: another human seat becomes the host."""
    raise NotImplementedError


def give_to_bot(room: Room, by: Seat, seat_id: str | None = None) -> Room:
    """Host only: the seat becomes a bot (its token stops working). ``seat_id=None`` in the
    lobby adds a new bot seat instead (three friends can play a four-player game)."""
    raise NotImplementedError


def play_again(room: Room, by: Seat) -> Room:
    """Host only, after the game has finished: a new game with the same seats and options in
    the same room (same code, same tokens), a new seed; the old game stays in the log."""
    raise NotImplementedError


def set_teams(room: Room, by: Seat, teams: list[list[str]]) -> Room:
    """Host only, Sign, in the lobby: the teams as lists of seat ids; only the rulebook's
    divisions (4 → 2-2, 5 → 3-2, 6 → 3-3 or 2-2-2, 7 → 4-3 or 3-2-2, 8 → 4-4, 9 → 3-3-3)."""
    raise NotImplementedError


def step_bots(room: Room) -> Room:
    """Let bots (and the turn timer) move if they are due; what a poll calls. Cheap when
    nothing is due (reads ``room.due_at`` only)."""
    raise NotImplementedError


def replay(room: Room, game_number: int | None = None) -> list[dict[str, Any]]:
    """The game step by step from its log: ``[{"version", "seat", "action", "at", "view"}]``
    where ``view`` is the table view after that step (the first entry is the deal, with
    ``action`` None). Only for finished games of the room (``NotAllowed`` otherwise)."""
    raise NotImplementedError


def bot_rng(room: Room, seat: str) -> random.Random:
    """The generator a bot uses for one move: seeded from the room, its game and version."""
    return random.Random(f"{room.seed}:{room.game_number}:{room.version}:{seat}")


_ = (ActionLog,)
