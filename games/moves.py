"""A player's move: the envelope checked, the move prepared before the write lock and stored
with one checking UPDATE, or applied under the lock when the room moved on, was refused, or
the game ends; repeated action ids apply nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.db.models.signals import post_save

from games.cardids import translate
from games.clients import PlayClient
from games.engines import IllegalAction
from games.errors import NotASeat, PlayError, Refused, Stale, TooManyWrites
from games.lookup import _engine, _locked, _now, _seats, find_room, seat_room
from games.models import ActionLog, Room, Seat
from games.snapshots import snapshot
from games.states import _STATES, _state_key, card_maps, room_state
from games.turns import _NeedsLock, _Plan, _record, _run_bots, _schedule

ACTION_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
SEAT_MOVE_FIELDS = ["away", "client_hash", "device_hash"]  # what a seat's own move changes


def act(code: str, seat: Seat, *, action_id: str, version: int, action: dict[str, Any],
        count_write: Callable[[], str | None] | None = None,
        client: PlayClient | None = None) -> dict[str, Any]:
    """Apply one action of ``seat``; returns ``snapshot(room, seat)`` after it and after the
    bots' moves. ``Stale(body)`` when the action is no longer legal, ``Refused`` when the engine
    refuses it, ``NotASeat`` for a removed seat; the same ``action_id`` again applies nothing.

    ``count_write`` counts the write against the play limits inside the action's transaction
    (one write lock per action instead of one for the count and one for the move: on SQLite the
    two queued behind each other); it answers a reason when over a limit (``TooManyWrites``,
    nothing counted or applied). A refused action stays counted.

    ``client``: where the move comes from (games/clients.py); an applied move records it on
    the seat, for the statistics' check that a game's seats come from different clients."""
    problem = _malformed(action_id, version, action)
    if problem is not None:
        if count_write is not None and (reason := count_write()) is not None:
            raise TooManyWrites(reason)  # a malformed action counts as a write too
        raise Refused(problem)
    # The answer (the view, the JSON) is made after the commit: the lock is held only while
    # the action is checked, applied and stored.
    room, seat, stale = _act_counted(code, seat, action_id, version, action, count_write, client)
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
                 count_write: Callable[[], str | None] | None,
                 client: PlayClient | None = None) -> tuple[Room, Seat, str | None]:
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
    plan = _prepare(code, seat, action_id, version, action, client)
    with transaction.atomic():
        if count_write is not None and (reason := count_write()) is not None:
            raise TooManyWrites(reason)
        if plan is not None and _store(plan):
            return plan.room, plan.seat, None
        try:
            return _act_locked(code, seat, action_id, version, action, client)
        except PlayError as exc:
            if count_write is None:
                raise
            refused = exc
    raise refused  # after the commit that keeps the count


def _prepare(code: str, seat: Seat, action_id: str, version: int,
             action: dict[str, Any], client: PlayClient | None = None) -> _Plan | None:
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
        plan.seat, stale, moved = _apply(room, seat, action_id, version, action, client)
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
        seat.save(update_fields=SEAT_MOVE_FIELDS)
    state, key = room_state(room), _state_key(room)
    transaction.on_commit(lambda: _STATES.put(key, state))
    # an UPDATE sends no post_save: send the one room.save() would (the event fan-out hears it)
    post_save.send(sender=Room, instance=room, created=False, raw=False, using=room._state.db,
                   update_fields=frozenset(plan.columns))
    return True


def _act_locked(code: str, seat: Seat, action_id: str, version: int, action: dict[str, Any],
                client: PlayClient | None = None) -> tuple[Room, Seat, str | None]:
    """The locked path of ``act``: returns the room, the seat and a Stale message or None."""
    with transaction.atomic():
        room = _locked(code)
        seat, stale, moved = _apply(room, seat, action_id, version, action, client)
        if moved:
            room.save()
    return room, seat, stale


def _still_open(room: Room, seat: Seat, version: int, action: dict[str, Any]) -> bool:
    """Whether an action sent at an older ``version`` met nothing that changes it: it is one of
    the moves the players make at the same time (the engine's ``SIMULTANEOUS``: Sauschwer's
    markers), and every move since that version is another seat's such move in this game (the
    room's other changes since, seats and hosts, leave the game as it was). Then it applies
    when the engine accepts it; a move of a turn, or one after anything else, stays stale.

    Symbols and Slogan have no such moves: a replacement or a challenge at the same time as
    another player's is a race for one thing (the first one wins). Sign is played all at once
    and applies every move the engine still accepts (``_apply``)."""
    kinds = getattr(_engine(room), "SIMULTANEOUS", ())
    if action.get("type") not in kinds:
        return False
    log = ActionLog.objects.filter(room=room)
    if not log.filter(game_number=room.game_number, version__lte=version).exists():
        return False  # the version the sender saw is not of this game (or before its first move)
    since = log.filter(version__gt=version).values_list("game_number", "seat", "action")
    return all(number == room.game_number and other != seat.seat and isinstance(move, dict)
               and move.get("type") in kinds for number, other, move in since)


def _apply(room: Room, seat: Seat, action_id: str, version: int, action: dict[str, Any],
           client: PlayClient | None = None) -> tuple[Seat, str | None, bool]:
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
    if version < room.version and room.game != "sign" and not _still_open(room, seat, version, action):
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
    came_from = (client.address, client.device) if client is not None else None
    if seat.away or (came_from is not None and came_from != (seat.client_hash, seat.device_hash)):
        # back from away, or the move comes from another client than the seat's last one
        seat.away = False
        if came_from is not None:
            seat.client_hash, seat.device_hash = came_from
        plan: _Plan | None = room.__dict__.get("_plan")
        if plan is not None:
            plan.seats.append(seat)
        else:
            seat.save(update_fields=SEAT_MOVE_FIELDS)
    _record(room, seat.seat, action_id, action, new, now, by="player")
    _run_bots(room, now)
    _schedule(room, now)
    return seat, None, True
