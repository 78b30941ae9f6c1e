"""What a seat or the table is answered: the room's body made from ``engine.view`` only (the
API's GET, the stream's events, the pages), the seat list, and a finished game's replay."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from games.cardids import translate
from games.errors import NotAllowed
from games.lookup import _engine, _seats
from games.models import Room, Seat
from games.states import _Lru, _state_key, card_maps, room_pack, room_state

# What a poll's view carries of the game's log: the last events (the screens show fewer); the
# whole log stays in the state for the replay and the statistics.
RECENT_LOG = 50
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


def finished_game(room: Room, game_number: int | None = None) -> dict[str, Any]:
    """The room's finished game ``game_number`` (``None``: the newest finished one), from
    ``room.games``; ``NotAllowed`` when there is none such (not finished, or no such game)."""
    finished = [g for g in room.games if g.get("result") is not None]
    games = finished[-1:] if game_number is None else [g for g in finished if g["number"] == game_number]
    if not games:
        raise NotAllowed("Only a finished game can be replayed.")
    return games[0]


def replay(room: Room, game_number: int | None = None) -> list[dict[str, Any]]:
    """The game step by step from its log: ``[{"version", "seat", "action", "by", "at",
    "view"}]`` where ``view`` is the table view after that step (the first entry is the deal,
    with ``seat`` and ``action`` None). Only for finished games (``NotAllowed`` otherwise).

    ``game_number``: any game of the room (each keeps its replay after *Play again*); ``None``
    is the newest finished one (while a game after it runs, the one before)."""
    entry = finished_game(room, game_number)
    number = entry["number"]
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
