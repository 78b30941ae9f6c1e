"""The rooms service beyond the HTTP contract: bots on poll at a human pace in Sign, the turn
timer, replays of finished games, and the card statistics they leave for the admin."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client, override_settings
from django.utils import timezone

from games import rooms
from games.models import ActionLog, CardPlayStat, Room, Seat
from games.stats import sauschwer_counts, slogan_counts, symbols_counts
from tests.engines.packs import slogan_pack
from tests.play.core_helpers import Player, all_releases, release_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def releases(db):
    all_releases()


def _with_bots(game: str, bots: int, **options: object) -> tuple[Room, Player]:
    room, host = rooms.open_room(game=game, language="en", name="Host", options=options or None)
    for _ in range(bots):
        rooms.give_to_bot(room, host, None)
    return room, Player(Client(), room.code, host.seat, host.token)


def _earlier(code: str, seconds: float) -> None:
    """Pretend the last action happened ``seconds`` ago (the clock is the database's row)."""
    room = Room.objects.get(code=code)
    Room.objects.filter(pk=room.pk).update(
        last_action_at=room.last_action_at - timedelta(seconds=seconds),
        due_at=room.due_at - timedelta(seconds=seconds) if room.due_at else None)


def test_room_codes_avoid_look_alike_characters(releases):
    assert not set(rooms.ALPHABET) & set("0O1IL2Z5S8BUV")
    assert len(rooms.ALPHABET) ** rooms.CODE_LENGTH > 5 * 10**10  # guessing one is hopeless
    room, _host = rooms.open_room(game="sauschwer", language="en", name="A")
    assert len(room.code) == rooms.CODE_LENGTH == 8 and set(room.code) <= set(rooms.ALPHABET)
    typed = f"{room.code[:4].lower()} {room.code[4:].lower()}"
    assert rooms.get_room(typed).pk == room.pk  # lower case and a space are fine


@override_settings(KARTOTHEK_PLAY_SIGN_BOT_DELAY=(2.0, 4.0))
def test_sign_bots_move_at_a_human_pace_when_the_room_is_polled(releases):
    room, host = _with_bots("sign", 3)
    rooms.start(room, room.seats.get(host=True))
    first = host.get()
    version = first.json()["version"]
    assert not ActionLog.objects.filter(room__code=room.code).exists()
    # within the pace's first two seconds a poll changes nothing (and may answer 304)
    again = host.client.get(f"/api/play/rooms/{room.code}", HTTP_IF_NONE_MATCH=first["ETag"], **host.auth)
    assert again.status_code == 304
    _earlier(room.code, 4.1)
    moved = host.get()
    assert moved.status_code == 200
    assert moved.json()["version"] == version + 1  # one bot move per pace, not a burst
    assert ActionLog.objects.filter(room__code=room.code, by="bot").count() == 1
    # the next bot move is a pace away: polls until then answer without the lock
    assert Room.objects.get(code=room.code).due_at > timezone.now() + timedelta(seconds=1.5)


def test_bots_play_the_same_game_from_the_same_seed(releases):
    curator = User.objects.create_user("carla", password="pw-karten-1", is_staff=True)
    curator.groups.add(Group.objects.get(name="Curators"))
    logs = []
    for _ in range(2):
        room, host = rooms.open_room(game="sauschwer", language="en", name="A", seed="s-1",
                                     user=curator, options={"rounds": 1})
        rooms.give_to_bot(room, host, None)
        rooms.start(room, host)
        rooms.set_away(Room.objects.get(pk=room.pk), host, host.seat)
        logs.append([(r.seat, r.action) for r in ActionLog.objects.filter(room=room).order_by("version")])
    assert logs[0] and logs[0] == logs[1]


def test_the_turn_timer_hands_a_slow_seat_to_a_bot(releases):
    room, host = rooms.open_room(game="sauschwer", language="en", name="A", turn_timer=30)
    guest = rooms.join(room, name="B")
    room = rooms.start(room, host)
    state = rooms.room_state(room)
    slow = host if state["active"] == host.seat else guest
    fresh = Room.objects.get(pk=room.pk)
    assert fresh.due_at is not None and 29 <= (fresh.due_at - fresh.last_action_at).total_seconds() <= 30
    _earlier(room.code, 31)
    Player(Client(), room.code, guest.seat, guest.token).get()  # any poll runs the timer
    seats = {s.seat: s for s in Room.objects.get(pk=room.pk).seats.all()}
    assert seats[slow.seat].away is True
    log = list(ActionLog.objects.filter(room=room).values_list("seat", "by", "action"))
    assert (slow.seat, "bot") in [(seat, by) for seat, by, _ in log], (slow.seat, log, state["active"])


def test_without_a_timer_nothing_is_due(releases):
    room, host = rooms.open_room(game="sauschwer", language="en", name="A")
    rooms.join(room, name="B")
    rooms.start(room, host)
    assert Room.objects.get(pk=room.pk).due_at is None


def _play_out(game: str, players: int, **options: object) -> Room:
    """A whole game: the host steps away, so bots play every seat at once."""
    room, _host = _with_bots(game, players - 1, **options)
    host_seat = room.seats.get(host=True)
    rooms.start(room, host_seat)
    rooms.set_away(Room.objects.get(pk=room.pk), host_seat, host_seat.seat)
    room = Room.objects.get(pk=room.pk)
    assert room.status == "finished", room.status
    return room


def test_replay_steps_through_a_finished_game(releases):
    room = _play_out("sauschwer", 3, rounds=2)
    steps = rooms.replay(room)
    log = list(ActionLog.objects.filter(room=room).order_by("version"))
    assert len(steps) == len(log) + 1
    assert steps[0]["action"] is None
    assert [s["version"] for s in steps[1:]] == [row.version for row in log]
    assert steps[-1]["view"]["result"] == room.games[0]["result"]
    assert all(step["view"]["you"] is None for step in steps)  # the table's view only
    response = Client().get(f"/api/play/rooms/{room.code}/replay")
    assert response.status_code == 200 and len(response.json()["steps"]) == len(steps)


def test_a_running_game_cannot_be_replayed(releases):
    room, host = rooms.open_room(game="sauschwer", language="en", name="A")
    rooms.join(room, name="B")
    rooms.start(room, host)
    response = Client().get(f"/api/play/rooms/{room.code}/replay")
    assert response.status_code == 403


def _as_if_people_played(room: Room) -> Room:
    """Count a bot play-out as if every seat had made its own moves, each from a client of its
    own (the statistics take only games people played from different clients: games/stats.py)."""
    assert not CardPlayStat.objects.filter(game=room.game).exists()  # bots alone count nothing
    ActionLog.objects.filter(room=room).update(by="player")
    for seat in room.seats.all():
        Seat.objects.filter(pk=seat.pk).update(client_hash=f"address-{seat.seat}",
                                               device_hash=f"device-{seat.seat}")
    Room.objects.filter(pk=room.pk).update(stats_recorded=0)
    room = Room.objects.get(pk=room.pk)
    from games.stats import record_game

    record_game(room)
    room.save(update_fields=["stats_recorded"])
    return room


def test_finished_games_leave_card_statistics_once(releases):
    room = _as_if_people_played(_play_out("sauschwer", 3, rounds=2))
    counts = sauschwer_counts(room.state["log"])
    stats = {s.key: s for s in CardPlayStat.objects.filter(game="sauschwer")}
    assert stats and {k: s.played for k, s in stats.items()} == {k: c["played"] for k, c in counts.items()}
    assert sum(s.played for s in stats.values()) == sum(
        len(e["weights"]) for e in room.state["log"] if e["type"] == "revealed")
    from games.stats import record_game

    record_game(Room.objects.get(pk=room.pk))  # a second call counts nothing more
    assert {s.key: s.played for s in CardPlayStat.objects.filter(game="sauschwer")} == \
        {k: s.played for k, s in stats.items()}


def test_slogan_and_symbols_statistics(db):
    release_of("slogan", pack=slogan_pack(n_cards=6))
    release_of("symbols")
    slogan = _as_if_people_played(_play_out("slogan", 3))
    counts = slogan_counts(slogan.state["log"])
    judged = sum(1 for e in slogan.state["log"] if e["type"] in ("judge", "duel_answer"))
    assert sum(c["right"] + c["wrong"] for c in counts.values()) == judged
    symbols = _as_if_people_played(_play_out("symbols", 3, goal=4))
    solved = symbols_counts(symbols.state["log"])
    rounds = sum(1 for e in symbols.state["log"] if e["type"] == "round_ended")
    assert sum(c["played"] for c in solved.values()) == rounds
    stored = {s.key: (s.played, s.right, s.wrong, s.hints)
              for s in CardPlayStat.objects.filter(game="symbols")}
    assert stored == {k: (c["played"], c["right"], c["wrong"], c["hints"]) for k, c in solved.items()}


def test_the_admin_shows_each_cards_difficulty_in_play(mini_catalogue, client):
    from cards.models import SauschwerObject

    card = SauschwerObject.objects.first()
    CardPlayStat.objects.create(game="sauschwer", key=card.key, played=5, doubted=3, right=2, wrong=1)
    curator = User.objects.create_user("carla", password="pw-karten-1", is_staff=True)
    curator.groups.add(Group.objects.get(name="Curators"))
    client.force_login(curator)
    page = client.get("/admin/cards/sauschwerobject/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "in play" in text.lower()
    assert "doubted 3/5, doubter won 2" in text


def test_the_host_can_give_a_running_seat_to_a_bot_and_its_token_stops(releases):
    room, host = rooms.open_room(game="sauschwer", language="en", name="A")
    guest = rooms.join(room, name="B")
    rooms.start(room, host)
    rooms.give_to_bot(Room.objects.get(pk=room.pk), host, guest.seat)
    assert Player(Client(), room.code, guest.seat, guest.token).get().status_code == 403
    assert Room.objects.get(pk=room.pk).seats.get(seat=guest.seat).bot


def test_a_new_token_moves_a_seat_to_another_device(releases):
    room, host = rooms.open_room(game="sauschwer", language="en", name="A")
    guest = rooms.join(room, name="B")
    with pytest.raises(rooms.NotAllowed):
        rooms.new_token(room, guest, host.seat)
    token = rooms.new_token(room, host, guest.seat)
    assert Player(Client(), room.code, guest.seat, guest.token).get().status_code == 403
    assert Player(Client(), room.code, guest.seat, token).body()["you"] == guest.seat
