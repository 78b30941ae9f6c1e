"""Races decided by the database: real threads, real transactions (no test transaction around
them to hide the locking), each request through the HTTP API with its own connection."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from games import lookup, rooms
from games.models import ActionLog, Room
from tests.play.core_helpers import all_releases

ROUNDS = 200


def _fire_together(requests: list[tuple[str, str, dict[str, Any]]]) -> list[int]:
    """POST each (path, token, body) from its own thread, all released by one barrier."""
    barrier = threading.Barrier(len(requests))
    statuses: list[int] = [0] * len(requests)
    problems: list[BaseException] = []

    def run(index: int, path: str, token: str, body: dict[str, Any]) -> None:
        client = Client()
        try:
            barrier.wait(timeout=10)
            response = client.post(path, json.dumps(body), content_type="application/json",
                                   HTTP_AUTHORIZATION=f"Bearer {token}")
            statuses[index] = response.status_code
        except BaseException as exc:  # reported below, in the main thread
            problems.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, *request)) for i, request in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not problems, problems
    return statuses


def _room(game: str, players: int) -> tuple[Room, list[Any]]:
    room, host = rooms.open_room(game=game, language="en", name="P1")
    seats = [host] + [rooms.join(room, name=f"P{n}") for n in range(2, players + 1)]
    room = rooms.start(room, host)
    return room, seats


@pytest.mark.slow
@pytest.mark.postgres  # CI runs it again on PostgreSQL (select_for_update there)
@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_stops_make_exactly_one_doubter():
    all_releases()
    for attempt in range(ROUNDS):
        room, seats = _room("sauschwer", 3)
        by_id = {seat.seat: seat for seat in seats}
        state = rooms.room_state(room)
        active = by_id[state["active"]]
        card = state["hands"][active.seat][0]
        rooms.act(room.code, active, action_id=f"place-{attempt}", version=room.version,
                  action={"type": "place", "card": card, "helmut": "red"})
        version = Room.objects.get(pk=room.pk).version
        doubters = [seat for seat in seats if seat.seat != active.seat]
        statuses = _fire_together([
            (f"/api/play/rooms/{room.code}/actions", seat.token,
             {"id": f"stop-{attempt}-{seat.seat}", "version": version, "action": {"type": "stop"}})
            for seat in doubters
        ])
        assert sorted(statuses) == [200, 409], (attempt, statuses)
        fresh = Room.objects.get(pk=room.pk)
        assert fresh.state["doubter"] in {seat.seat for seat in doubters}
        assert fresh.version == version + 1
        assert ActionLog.objects.filter(room=fresh, action__type="stop").count() == 1


def _ready_all(room: Room, seats: list[Any]) -> Room:
    """Sign's checking phase (when the engine has it): every player says ready."""
    for seat in seats:
        state = rooms.room_state(room)
        if {"type": "ready"} in lookup._engine(room).legal_actions(state, seat.seat):
            rooms.act(room.code, seat, action_id=f"ready-{room.code}-{seat.seat}",
                      version=room.version, action={"type": "ready"})
            room = Room.objects.get(pk=room.pk)
    return room


@pytest.mark.slow
@pytest.mark.postgres  # CI runs it again on PostgreSQL (select_for_update there)
@pytest.mark.django_db(transaction=True)
def test_two_players_taking_the_same_sign_card_get_one_winner():
    all_releases()
    for attempt in range(ROUNDS):
        room, seats = _room("sign", 4)
        room = _ready_all(room, seats)
        card = rooms.room_state(room)["table"][0]
        takers = seats[:2]
        statuses = _fire_together([
            (f"/api/play/rooms/{room.code}/actions", seat.token,
             {"id": f"take-{attempt}-{seat.seat}", "version": room.version,
              "action": {"type": "take", "card": card}})
            for seat in takers
        ])
        assert sorted(statuses) == [200, 409], (attempt, statuses)
        state = Room.objects.get(pk=room.pk).state
        holders = [seat.seat for seat in takers if card in state["hands"][seat.seat]]
        assert len(holders) == 1
        assert card not in state["table"]
        assert ActionLog.objects.filter(room=room, action__type="take").count() == 1
