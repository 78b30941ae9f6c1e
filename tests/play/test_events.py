"""The event stream's contract (DESIGN.md: Pushed updates): ``GET /api/play/rooms/CODE/events``
served by a real ASGI server (uvicorn on loopback, kartothek.asgi) and read over real HTTP."""

from __future__ import annotations

import contextlib
import json
import random
import threading

import httpx
import pytest
from django.test import Client, override_settings

from games import bots
from games.models import Room
from tests.play.core_helpers import all_releases, release_of, table
from tests.play.sse_helpers import Server, Stream, stream
from tests.play.test_secrecy import OPTIONS, PLAYERS, Secrets, _check

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(transactional_db):
    all_releases()
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as running:
        yield running


def events_url(server: Server, code: str) -> str:
    return f"{server.url}/api/play/rooms/{code}/events"


def bearer(player) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {"Authorization": f"Bearer {player.token}"}


def place(player) -> dict:  # type: ignore[no-untyped-def]
    """The active seat's first legal place action (Sauschwer)."""
    return next(a for a in player.body()["legal_actions"] if a["type"] == "place")


def active_of(players):  # type: ignore[no-untyped-def]
    seat = players[0].body()["view"]["active"]
    return next(p for p in players if p.seat == seat)


def test_the_first_event_is_the_body_the_get_gives_the_same_seat(server):
    host, guest = table("sauschwer", 2)
    with stream(events_url(server, host.code), bearer(guest)) as events:
        assert events.status == 200
        assert events.headers["content-type"].startswith("text/event-stream")
        assert "no-cache" in events.headers["cache-control"]
        first = events.next()
    assert first.kind == "room"
    assert first.body == guest.body()
    assert first.id == str(guest.body()["version"])


def test_each_new_version_is_one_event_with_that_version_as_id(server):
    players = table("sauschwer", 3)
    watcher = players[0]
    with stream(events_url(server, watcher.code), bearer(watcher)) as events:
        seen = [int(events.next().id)]
        for _ in range(3):
            active = active_of(players)
            assert active.act(place(active)).status_code == 200
            event = events.next()
            assert event.body == watcher.body()
            seen.append(int(event.id))
        assert seen == list(range(seen[0], seen[0] + 4))
        assert events.quiet(0.5) == []  # nothing more without a change


def test_last_event_id_behind_gets_the_current_body_at_once_and_at_the_version_nothing(server):
    players = table("sauschwer", 2)
    watcher = players[1]
    old = watcher.body()["version"]
    active = active_of(players)
    active.act(place(active))
    now = watcher.body()
    with stream(events_url(server, watcher.code), {**bearer(watcher), "Last-Event-ID": str(old)}) as events:
        event = events.next(timeout=2)
        assert int(event.id) == now["version"] and event.body == now
    with stream(events_url(server, watcher.code),
                {**bearer(watcher), "Last-Event-ID": str(now["version"])}) as events:
        assert events.quiet(0.6) == []  # up to date: nothing to resend
        active = active_of(players)
        active.act(place(active))
        assert int(events.next().id) == now["version"] + 1  # and nothing skipped after


def test_a_heartbeat_comment_keeps_a_quiet_stream_open(server):
    host, _guest = table("sauschwer", 2)
    with override_settings(KARTOTHEK_PLAY_EVENTS_HEARTBEAT=0.3), \
            stream(events_url(server, host.code), bearer(host)) as events:
        events.next()
        beat = events.next(timeout=3, heartbeats=True)
        assert beat.comment is not None and not beat.data
        assert events.next(timeout=3, heartbeats=True).comment is not None


def test_a_quiet_stream_pings_every_so_often_with_the_version_it_sent(server):
    host, guest = table("sauschwer", 2)
    with override_settings(KARTOTHEK_PLAY_EVENTS_PING=0.2), \
            stream(events_url(server, host.code), bearer(host)) as events:
        first = events.next()
        pings = [events.next(timeout=3, heartbeats=True) for _ in range(3)]
        assert [p.kind for p in pings] == ["ping"] * 3
        assert all(p.body == {"version": int(first.id), "every": 0.2} for p in pings)
        active = active_of([host, guest])
        active.act(place(active))
        assert int(events.next().id) == int(first.id) + 1  # the pings never hide a move


def test_the_table_gets_the_table_view_and_a_seat_its_own(server):
    host, guest = table("sauschwer", 2)
    with stream(events_url(server, host.code)) as anonymous, \
            stream(events_url(server, host.code) + "?as=table",
                   {"Cookie": f"kt_seat_{host.code}={host.token}"}) as tv, \
            stream(events_url(server, host.code), bearer(host)) as own, \
            stream(events_url(server, host.code), {"Cookie": f"kt_seat_{host.code}={guest.token}"}) as cookie:
        table_body = Client().get(f"/api/play/rooms/{host.code}").json()
        assert anonymous.next().body == table_body and table_body["you"] is None
        assert tv.next().body == table_body  # a seat cookie on the TV's browser changes nothing
        assert own.next().body == host.body() and host.body()["you"] == host.seat
        assert cookie.next().body == guest.body()  # the seat cookie proves the seat
        assert table_body["view"] != host.body()["view"]


def test_a_wrong_token_is_a_json_403_and_an_unknown_room_a_json_404(server):
    host, _guest = table("sauschwer", 2)
    other, _ = table("sauschwer", 2)
    wrong = httpx.get(events_url(server, host.code), headers=bearer(other))
    assert wrong.status_code == 403 and wrong.headers["content-type"] == "application/json"
    assert "not a seat" in wrong.json()["error"]
    missing = httpx.get(events_url(server, "ZZZZZZ"))
    assert missing.status_code == 404 and "no room" in missing.json()["error"].lower()
    posted = httpx.post(events_url(server, host.code))
    assert posted.status_code == 405


def test_a_seat_removed_while_its_stream_is_open_gets_a_closed_event_with_the_403(server):
    host, _b, c = table("sauschwer", 3)
    with stream(events_url(server, host.code), bearer(c)) as events:
        events.next()
        assert host.post("/seats/p3/remove").status_code == 200
        last = events.next()
        assert last.kind == "closed" and json.loads(last.data)["status"] == 403


def test_a_move_saved_by_another_process_arrives_through_the_version_check(server):
    """The SQLite safety net: a commit this process's fan-out never hears of (another app
    server on the same file) still reaches the stream within the check interval."""
    host, _guest = table("sauschwer", 2)
    with stream(events_url(server, host.code), bearer(host)) as events:
        version = int(events.next().id)
        # what another process's commit looks like here: the row changes, nobody is notified
        Room.objects.filter(code=host.code).update(version=version + 1)
        assert int(events.next(timeout=3).id) == version + 1


def test_a_waiting_stream_holds_no_thread(server):
    host, _guest = table("sauschwer", 2)
    before = threading.active_count()
    with stream(events_url(server, host.code), bearer(host)) as first:
        first.next()
        opened = []
        try:
            for _ in range(12):
                s = stream(events_url(server, host.code), bearer(host))
                opened.append(s)
                s.__enter__().next()
            # each stream here has a reader thread of its own in this test process (2 per
            # stream with httpx's); the server side adds none that stays
            grown = threading.active_count() - before
            assert grown <= 13 + 4, grown
        finally:
            for s in opened:
                s.__exit__(None, None, None)


def test_the_streams_read_rooms_on_a_bounded_pool_of_their_own(server, settings):
    """A move wakes every stream of its room at once; their looks queue on a few threads of
    their own (KARTOTHEK_PLAY_LOOK_THREADS), not on as many threads as there are streams."""
    settings.KARTOTHEK_PLAY_LOOK_THREADS = 2
    players = table("sauschwer", 3)
    with contextlib.ExitStack() as opened:
        streams = [opened.enter_context(stream(events_url(server, player.code), bearer(player)))
                   for _ in range(4) for player in players]
        for each in streams:
            each.next()
        active = active_of(players)
        assert active.act(place(active)).status_code == 200
        version = active.body()["version"]
        assert [int(each.next().id) for each in streams] == [version] * 12  # each stream told
        lookers = [t.name for t in threading.enumerate() if t.name.startswith("kartothek-look")]
        assert 1 <= len(lookers) <= 2, lookers


# --- secrecy: a seat's stream never carries another seat's secrets ---------------------------

STREAM_GAMES = 12


def _play_watched(server: Server, game: str, number: int, rng: random.Random) -> int:
    """One random game through the API while every seat and the table read their streams;
    every event is checked against the state it was made from."""
    low, high = PLAYERS[game]
    players = table(game, rng.randint(low, high), options=OPTIONS[game])
    code = players[0].code
    secrets = Secrets(game)
    streams: dict[str | None, Stream] = {p.seat: Stream(events_url(server, code), bearer(p))
                                         for p in players}
    streams[None] = Stream(events_url(server, code))
    by_id = {p.seat: p for p in players}
    steps = 0
    try:
        room = Room.objects.get(code=code)
        states = {room.version: room.state}
        secrets.observe(room.state)
        while room.status != "finished":
            order = list(by_id)
            rng.shuffle(order)
            for seat_id in order:
                action = bots.act(game, room.state, seat_id, rng)
                if action is not None:
                    break
            else:
                pytest.fail(f"{game} game {number}: every seat passes")
            response = by_id[seat_id].act(action, room.version, action_id=f"e{steps}")
            assert response.status_code == 200, response.content
            steps += 1
            room = Room.objects.get(code=code)
            states[room.version] = room.state
            secrets.observe(room.state)
            assert steps < 3000
        final = room.version
        for reader, events in streams.items():
            version = -1
            while version < final:
                event = events.next(timeout=10)
                assert event.kind == "room", event
                version = int(event.id)
                _check(secrets.problems(states[version], reader, event.body), game, number)
                assert event.body["you"] == reader
    finally:
        for events in streams.values():
            events.close()
    return steps


@pytest.mark.slow
@pytest.mark.parametrize("game", ["symbols", "sign", "slogan", "sauschwer"])
def test_no_stream_carries_another_seats_secret(server, game):
    from tests.engines.packs import slogan_pack

    if game == "slogan":
        release_of("slogan", pack=slogan_pack(n_cards=6))
    rng = random.Random(f"stream-secrecy-{game}")
    total = sum(_play_watched(server, game, number, rng) for number in range(STREAM_GAMES))
    assert total > STREAM_GAMES
