"""How an action is stored (games/moves.py ``_act_counted``): a plain move is prepared before
the write lock and stored under it with one checking UPDATE and its log; a room that moved
on in between, and everything but a plain move, takes the locked path and answers as it
always did. SQLite's write lock is the one every writer of the database queues on, so what
runs inside it is pinned here statement by statement."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from games import bots, cardids, moves, rooms, states
from games.models import ActionLog, Room
from tests.play.core_helpers import Player, all_releases, table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def releases(db):
    all_releases()


def _place(player: Player) -> dict[str, Any]:
    return next(a for a in player.body()["legal_actions"] if a["type"] == "place")


def _active(players: list[Player]) -> Player:
    seat = players[0].body()["view"]["active"]
    return next(p for p in players if p.seat == seat)


def _inside_the_write(queries: list[dict[str, str]]) -> list[str]:
    """The statements between the action's transaction's start and its end (the test's own
    transaction turns it into a savepoint)."""
    sql = [q["sql"] for q in queries]
    start = next(i for i, s in enumerate(sql) if s.startswith(("SAVEPOINT", "BEGIN")))
    end = next(i for i, s in enumerate(sql) if i > start and s.startswith(("RELEASE SAVEPOINT", "COMMIT")))
    return [s for s in sql[start + 1:end] if "pg_notify" not in s]


@pytest.mark.postgres
@pytest.mark.parametrize("limits", [0, 900])
def test_a_plain_move_holds_the_write_for_the_count_one_checking_update_and_its_log(limits):
    players = table("sauschwer", 3)
    active = _active(players)
    action, version = _place(active), active.body()["version"]
    with override_settings(KARTOTHEK_PLAY_ROOM_WRITE_LIMIT=limits, KARTOTHEK_PLAY_WRITE_LIMIT=limits), \
            CaptureQueriesContext(connection) as seen:
        response = active.act(action, version, action_id="plain")
    assert response.status_code == 200, response.content
    inside = _inside_the_write(seen.captured_queries)
    assert not [s for s in inside if s.startswith("SELECT")], inside  # everything was read before
    room_updates = [s for s in inside if s.startswith('UPDATE "games_room"')]
    assert len(room_updates) == 1 and '"version" =' in room_updates[0].split("WHERE")[1]
    assert len([s for s in inside if s.startswith('INSERT INTO "games_actionlog"')]) == 1
    counts = [s for s in inside if s.startswith('INSERT INTO "games_ratehit"')]
    assert len(counts) == (2 if limits else 0)  # the client's and the room's, when limits are on
    assert len(inside) == 2 + len(counts), inside
    assert response.json()["version"] == version + 1
    assert ActionLog.objects.get(action_id="plain").version == version + 1


def _interleaved(monkeypatch: pytest.MonkeyPatch, between) -> None:  # type: ignore[no-untyped-def]
    """Run ``between()`` (another writer's commit) after the action is prepared and before it
    is stored, once."""
    real = moves._prepare
    done: list[bool] = []

    def prepare_then_let_another_write(*args: Any) -> Any:
        plan = real(*args)
        if not done:
            done.append(True)
            assert plan is not None, "the move was not prepared"
            between()
        return plan

    monkeypatch.setattr(moves, "_prepare", prepare_then_let_another_write)


def test_a_turn_move_whose_room_moved_on_before_it_was_stored_is_stale_and_writes_nothing(monkeypatch):
    players = table("sauschwer", 3)
    active = _active(players)
    other = next(p for p in players if p is not active and p is not players[0])
    host = players[0]
    action, version = _place(active), active.body()["version"]
    room = Room.objects.get(code=host.code)
    prepared_key = (room.pk, room.code, room.seed, room.game_number, version + 1)
    # the host marks another seat away meanwhile: the room's version grows, the turn stays
    _interleaved(monkeypatch, lambda: host.post(f"/seats/{other.seat}/away", {"away": True}))
    response = active.act(action, version, action_id="late")
    assert response.status_code == 409, response.content
    assert "faster" in response.json()["error"]
    assert not ActionLog.objects.filter(action_id="late").exists()
    after = Room.objects.get(code=host.code)
    assert after.version == version + 1  # the away change only
    # the prepared state never reached the cache under the version the away change took
    cached = states._STATES.get(prepared_key)
    assert cached is None or cached == after.state


def test_a_sign_move_whose_room_moved_on_is_applied_again_under_the_lock(monkeypatch):
    """Sign is played by everyone at once: an action sent at an older version still applies
    when the engine accepts it, so the move is made again on the newer room."""
    players = table("sign", 4)
    first, second = players[0], players[1]
    version = first.body()["version"]
    _interleaved(monkeypatch, lambda: second.act({"type": "ready"}, version, action_id="second"))
    response = first.act({"type": "ready"}, version, action_id="first")
    assert response.status_code == 200, response.content
    logs = list(ActionLog.objects.filter(action_id__in=["first", "second"]).order_by("version"))
    assert [(log.action_id, log.version) for log in logs] == [("second", version + 1), ("first", version + 2)]
    room = Room.objects.get(code=first.code)
    assert room.version == version + 2 == response.json()["version"]


def test_a_repeated_action_id_is_answered_by_the_locked_path_and_applies_nothing():
    players = table("sauschwer", 2)
    active = _active(players)
    action, version = _place(active), active.body()["version"]
    assert active.act(action, version, action_id="once").status_code == 200
    again = active.act(action, version, action_id="once")
    assert again.status_code == 200
    assert again.json()["version"] == version + 1
    assert ActionLog.objects.filter(action_id="once").count() == 1


def test_the_move_that_ends_a_game_is_stored_under_the_lock_with_its_statistics(monkeypatch):
    """The last move of a game records the cards' statistics (games.stats): the prepared path
    leaves it to the locked one."""
    locked: list[str] = []
    real = moves._act_locked

    def counted(code: str, seat: Any, action_id: str, *rest: Any) -> Any:
        locked.append(action_id)
        return real(code, seat, action_id, *rest)

    monkeypatch.setattr(moves, "_act_locked", counted)
    code = table("sauschwer", 2, options={"rounds": 1, "max_cards": 2})[0].code
    rng = random.Random("end")
    step = 0
    room = Room.objects.get(code=code)
    while room.status == Room.Status.PLAYING:
        assert step < 200, "the game does not end"
        seat_id, action = next((s, a) for s in room.state["players"]
                               if (a := bots.act("sauschwer", room.state, s, rng)) is not None)
        to_id = rooms.card_maps(room)[0]
        rooms.act(code, room.seats.get(seat=seat_id), action_id=f"m{step}", version=room.version,
                  action=cardids.translate(action, to_id))
        step += 1
        room = Room.objects.get(code=code)
    assert locked == [f"m{step - 1}"]  # every move but the last was stored the prepared way
    assert room.stats_recorded == room.game_number


def test_a_prepared_move_tells_the_event_streams_of_its_version(monkeypatch):
    """The prepared path stores the room with an UPDATE (no save()): the room's post_save,
    which the event fan-out listens to, must still be sent with the new version."""
    from games import events

    heard: list[tuple[str, int]] = []
    monkeypatch.setattr(events, "notify", lambda code, version: heard.append((code, version)))
    players = table("sauschwer", 2)
    active = _active(players)
    action, version = _place(active), active.body()["version"]
    heard.clear()  # the opening, the joins and the start
    assert active.act(action, version, action_id="told").status_code == 200
    assert heard == [(active.code, version + 1)]
