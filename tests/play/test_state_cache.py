"""The parsed engine states a server process keeps (games/states.py ``_STATES``): one per room,
the newest, and only while the room is in play, so its memory follows the rooms being played
now, not how many moves they made nor how many rooms stay open."""

from __future__ import annotations

import pytest

from games import rooms, states
from games.states import _NewestStates
from tests.play.core_helpers import release_of, table


def key(room: int, version: int, game: int = 1) -> tuple[object, ...]:
    return (room, f"R{room}", "seed", game, version)


def test_a_rooms_newer_state_replaces_its_older_one():
    states = _NewestStates(8)
    states.put(key(1, 1), {"v": 1})
    states.put(key(1, 2), {"v": 2})
    assert len(states) == 1
    assert states.get(key(1, 2)) == {"v": 2} and states.get(key(1, 1)) is None


def test_a_slow_reader_of_an_older_version_does_not_push_the_newer_state_out():
    states = _NewestStates(8)
    states.put(key(1, 5), {"v": 5})
    states.put(key(1, 4), {"v": 4})
    assert states.get(key(1, 5)) == {"v": 5} and states.get(key(1, 4)) is None


def test_a_rematch_starts_over_at_its_own_versions():
    states = _NewestStates(8)
    states.put(key(1, 40, game=1), {"game": 1})
    states.put(key(1, 3, game=2), {"game": 2})
    assert states.get(key(1, 3, game=2)) == {"game": 2} and len(states) == 1


def test_the_room_stored_least_recently_goes_first_when_full():
    states = _NewestStates(2)
    states.put(key(1, 1), "a")
    states.put(key(2, 1), "b")
    states.put(key(1, 2), "a2")  # room 1 is the most recent now
    states.put(key(3, 1), "c")
    assert states.get(key(2, 1)) is None
    assert states.get(key(1, 2)) == "a2" and states.get(key(3, 1)) == "c"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_state_not_used_for_the_keep_time_is_dropped():
    clock = Clock()
    states = _NewestStates(8, keep=1.0, clock=clock)
    states.put(key(1, 1), {"v": 1})
    clock.now += 0.9
    assert states.get(key(1, 1)) == {"v": 1}
    clock.now += 1.0
    assert states.get(key(1, 1)) is None and len(states) == 0


def test_each_use_keeps_a_state_longer_and_only_idle_rooms_go():
    clock = Clock()
    states = _NewestStates(8, keep=1.0, clock=clock)
    states.put(key(1, 1), "played")
    states.put(key(2, 1), "idle")
    for _ in range(5):  # a room in play is read again and again, each time within the second
        clock.now += 0.6
        assert states.get(key(1, 1)) == "played"
    assert len(states) == 1 and states.get(key(2, 1)) is None
    clock.now += 0.6
    states.put(key(1, 2), "played on")  # a new version counts as a use too
    clock.now += 0.6
    assert states.get(key(1, 2)) == "played on"


def test_the_process_wide_states_follow_the_keep_setting(settings):
    clock = Clock()
    states = _NewestStates(8, clock=clock)
    settings.KARTOTHEK_PLAY_STATE_KEEP_MS = 0
    states.put(key(1, 1), "a")
    assert states.get(key(1, 1)) is None  # 0: kept for no time at all
    settings.KARTOTHEK_PLAY_STATE_KEEP_MS = 5_000
    states.put(key(1, 2), "b")
    clock.now += 4.9
    assert states.get(key(1, 2)) == "b"
    clock.now += 5.1
    assert states.get(key(1, 2)) is None


@pytest.mark.django_db
def test_a_played_room_keeps_one_parsed_state_however_many_moves(settings):
    settings.KARTOTHEK_PLAY_STATE_KEEP_MS = 600_000  # however slow the machine: this counts states
    release_of("sauschwer")
    states._STATES.clear()
    players = table("sauschwer", 3)
    moves = 0
    for _ in range(12):
        bodies = [player.body() for player in players]  # each reads the room's newest state
        mover = next((p for p, b in zip(players, bodies, strict=True) if b["legal_actions"]), None)
        if mover is None:
            break
        body = bodies[players.index(mover)]
        assert mover.act(body["legal_actions"][0], version=body["version"]).status_code == 200
        moves += 1
    assert moves >= 3
    assert len(states._STATES) == 1


@pytest.mark.django_db
def test_a_rematch_replaces_the_rooms_card_ids_instead_of_adding_a_second_set():
    from games import cardids
    from games.models import Room

    release_of("sauschwer")
    players = table("sauschwer", 3)
    room = Room.objects.get(code=players[0].code)
    pack = rooms.room_pack(room)
    cardids._MAPS.clear()
    first = cardids.maps(room, pack)
    assert cardids.maps(room, pack) is first  # kept for the game
    room.seed = f"{room.seed}-again"
    second = cardids.maps(room, pack)
    assert second[0] != first[0]  # new ids for the new game
    assert len(cardids._MAPS) == 1


@pytest.mark.django_db
@pytest.mark.parametrize("reader", ["table", "seat"])
def test_a_room_read_before_a_move_answers_with_one_version_and_its_own_state(reader, settings):
    """A poll or a stream reads the room without its state, and the state a moment later; a
    move in between must not give the newer state under the older version (it was sent as
    that version, and cached as it: the stream secrecy test saw options 'leak' that way)."""
    from games.models import Room

    settings.KARTOTHEK_PLAY_STATE_KEEP_MS = 600_000  # the cache is read back below
    release_of("sauschwer")
    players = table("sauschwer", 3)
    code = players[0].code
    seat = rooms.find_seat(code, players[0].token) if reader == "seat" else None
    stale = rooms.seat_room(seat) if seat is not None else rooms.find_room(code)
    assert stale is not None
    before = stale.version
    body = players[0].body()
    mover = next(p for p in players if p.body()["legal_actions"])
    assert mover.act(mover.body()["legal_actions"][0], version=body["version"]).status_code == 200
    states._STATES.clear()  # as in another process: the state is read from the database

    answer = rooms.snapshot(stale, seat)

    fresh = Room.objects.get(code=code)
    assert fresh.version > before
    assert answer["version"] == fresh.version
    assert answer == rooms.snapshot(fresh, seat)
    # and the cache holds the newer state under the newer version only
    assert states._STATES.get(states._state_key(fresh)) == fresh.state
