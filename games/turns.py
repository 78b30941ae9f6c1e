"""What follows a move inside its transaction: recording it (version, state, log, the game's
end and its statistics), the bots' and away seats' answers, and when a room is next due (a
Sign bot's pace, the turn timer)."""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from games import bots
from games.engines import IllegalAction
from games.lookup import _engine, _locked, _now, _seats
from games.models import ActionLog, Room, Seat
from games.states import _set_state, room_state

logger = logging.getLogger(__name__)


# Actions that nobody owes: the turn timer never hands a seat to a bot for skipping these.
OPTIONAL_ACTIONS = {"stop", "replace", "challenge"}
MAX_BOT_STEPS = 2_000  # per request: a game of bots ends long before


class _NeedsLock(Exception):
    """The prepared move does something only the locked path does (the game ends)."""


class _Plan:
    """A move applied to a room read without the lock, and what storing it writes."""

    def __init__(self, room: Room, seat: Seat, read_version: int) -> None:
        self.room, self.seat, self.read_version = room, seat, read_version
        self.logs: list[ActionLog] = []  # the actions to log (the move and the bots' answers)
        self.seats: list[Seat] = []  # seats whose ``away`` changed
        self.columns: dict[str, Any] = {}  # the room's columns that changed


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


def bot_rng(room: Room, seat: str) -> random.Random:
    """The generator a bot uses for one move: seeded from the room, its game and version."""
    return random.Random(f"{room.seed}:{room.game_number}:{room.version}:{seat}")
