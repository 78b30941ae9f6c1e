"""Issue 21's abuse findings in the play mode, each pinned by behaviour: hostile bodies and
query strings answer JSON (never a 500, never HTML), room codes resist guessing, failed
lookups and every play write are rate limited, bot-only games never reach the card
statistics, a poll carries a bounded log, finished rooms expire, and a seat moved to another
device by the host is announced and voids the old token."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.play.core_helpers import all_releases, open_room

pytestmark = pytest.mark.django_db


@pytest.fixture
def releases(db):
    all_releases()


@pytest.fixture(autouse=True)
def _one_minute(monkeypatch):
    """Every request of a test falls in one window of the rate limits (none crosses a minute)."""
    from games import ratelimit

    monkeypatch.setattr(ratelimit, "clock", lambda: 1_800_000_030.0)


# --- finding 6: hostile input answers JSON, never 500 ----------------------------------------


def _is_json_error(response, status: int | None = None) -> bool:
    assert response.status_code < 500, response.content[:300]
    if status is not None:
        assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    return "error" in response.json()


def test_a_deeply_nested_body_is_a_json_400_not_a_500(releases):
    client = Client(raise_request_exception=False)
    nested = "[" * 100_000 + "]" * 100_000
    assert _is_json_error(client.post("/api/play/rooms", nested, content_type="application/json"), 400)
    host = open_room(Client(), "slogan")
    response = client.post(f"/api/play/rooms/{host.code}/actions", nested,
                           content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {host.token}")
    assert _is_json_error(response, 400)


@pytest.mark.parametrize("number", ["²", "١", "99999999999999999999999", "-1", "0"])
def test_a_replay_game_number_that_is_not_ascii_digits_is_a_json_400(releases, number):
    host = open_room(Client(), "slogan")
    response = Client(raise_request_exception=False).get(f"/api/play/rooms/{host.code}/replay",
                                                         {"game": number})
    assert _is_json_error(response)
    assert response.status_code in (400, 403)


def test_a_body_over_the_upload_limit_is_a_json_413(releases, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    client = Client(raise_request_exception=False)
    big = json.dumps({"game": "slogan", "language": "en", "name": "x" * 5000})
    assert _is_json_error(client.post("/api/play/rooms", big, content_type="application/json"), 413)
    form = client.post("/api/play/rooms", "a=" + "x" * 5000,
                       content_type="application/x-www-form-urlencoded")
    assert _is_json_error(form)


def test_too_many_query_fields_on_a_pack_endpoint_is_json(releases, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 10
    client = Client(raise_request_exception=False)
    query = "&".join(f"f{i}=1" for i in range(50))
    for path in ("/api/packs/", "/api/packs/slogan/en/1.json", "/api/play/rooms/ABCDEFGH/replay"):
        response = client.get(f"{path}?{query}")
        assert response.status_code < 500
        assert response["Content-Type"].startswith("application/json"), (path, response.content[:200])


# --- finding 9: moving a seat to another device is announced -----------------------------------


def _started(game: str = "sauschwer", players: int = 2):
    host_client = Client()
    host = open_room(host_client, game)
    guests = []
    for number in range(players - 1):
        made = Client().post(f"/api/play/rooms/{host.code}/seats", json.dumps({"name": f"Anna{number}"}),
                             content_type="application/json").json()
        guests.append(type(host)(Client(), host.code, made["seat"], made["token"]))
    assert host.post("/start").status_code == 200
    return host, guests


def test_the_host_moving_a_seat_bumps_the_version_tells_the_table_and_voids_the_old_token(releases):
    import re

    host, (anna,) = _started()
    before = host.body()["version"]
    page = host.client.post(f"/play/{host.code}/host/rejoin", {"seat": anna.seat})
    assert page.status_code == 200
    new_token = re.search(rf"/play/{host.code}/rejoin#([A-Za-z0-9_-]+)", page.content.decode()).group(1)
    assert new_token != anna.token
    table = Client().get(f"/api/play/rooms/{host.code}").json()
    assert table["version"] > before  # every poll sees the change
    assert next(s for s in table["seats"] if s["seat"] == anna.seat)["moved"] == 1
    html = Client().get(f"/play/{host.code}/table").content.decode()
    assert "Anna0&#x27;s seat was moved to another device by the host." in html
    old = anna.get()
    assert old.status_code == 403 and "moved" in old.json()["error"] and "Anna0" in old.json()["error"]
    anna.token = new_token
    assert anna.body()["you"] == anna.seat
    # the old device's page says so too
    stale = Client()
    stale.cookies["kt_seat_" + host.code] = "x"
    stale.cookies["kt_seat_" + host.code] = old.wsgi_request.headers["Authorization"][7:]
    moved_page = stale.get(f"/play/{host.code}/")
    assert moved_page.status_code == 403 and "moved" in moved_page.content.decode()


def test_a_player_showing_their_own_rejoin_link_moves_nothing(releases):
    host, (anna,) = _started()
    before = anna.body()["version"]
    anna.client.cookies["kt_seat_" + host.code] = anna.token
    assert anna.client.post(f"/play/{host.code}/host/rejoin", {"seat": anna.seat}).status_code == 200
    assert anna.body()["version"] == before
    assert not any(s["moved"] for s in anna.body()["seats"])


# --- finding 4: limits on play writes, bot games out of the statistics, bounded poll log ---------


def _production(name: str) -> int:
    from kartothek import settings as production

    return int(getattr(production, name))


def _assert_429(response) -> None:
    assert response.status_code == 429, response.content[:300]
    assert int(response["Retry-After"]) >= 1
    assert response["Content-Type"].startswith("application/json")
    assert "wait" in response.json()["error"]


def test_one_client_flooding_actions_gets_a_json_429_and_a_fast_human_does_not(releases, settings):
    settings.KARTOTHEK_PLAY_WRITE_LIMIT = _production("KARTOTHEK_PLAY_WRITE_LIMIT")
    settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = _production("KARTOTHEK_PLAY_ROOM_WRITE_LIMIT")
    host, (anna,) = _started("slogan")
    # a fast human: 3 moves a second for 20 seconds is well inside a minute's budget
    for _ in range(60):
        assert anna.post("/actions", {"id": "x", "version": 0, "action": {"type": "noop"}}).status_code != 429
    answers = [host.post("/actions", {"version": 0, "action": {"type": "noop"}}).status_code
               for _ in range(settings.KARTOTHEK_PLAY_WRITE_LIMIT)]
    assert 429 in answers  # one client making 600 moves in 4 s is stopped within the minute
    _assert_429(host.post("/bots"))
    _assert_429(host.post(f"/seats/{anna.seat}/away", {"away": True}))


def test_a_room_has_its_own_write_limit_across_clients(releases, settings):
    settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = 6
    host, (anna,) = _started("slogan")  # the start is the room's first write
    for number in range(5):
        who = host if number % 2 else anna
        assert who.post("/actions", {"version": 0, "action": {"type": "noop"}}).status_code != 429
    anna.client.defaults["REMOTE_ADDR"] = "10.9.9.9"
    _assert_429(anna.post("/actions", {"version": 0, "action": {"type": "noop"}}))


def _bot_game(game: str = "sauschwer"):
    from games.models import Room

    host = open_room(Client(), game)
    for _ in range(2):
        assert host.post("/bots").status_code == 200
    assert host.post("/start").status_code == 200
    assert host.post(f"/seats/{host.seat}/away", {"away": True}).status_code == 200
    assert Room.objects.get(code=host.code).status == "finished"
    return host


def test_playing_bot_games_again_in_a_loop_is_limited_and_never_counts_in_the_statistics(releases, settings):
    from games.models import CardPlayStat, Room

    settings.KARTOTHEK_PLAY_GAME_LIMIT = _production("KARTOTHEK_PLAY_GAME_LIMIT")
    host = _bot_game()
    answers = [host.post("/again").status_code for _ in range(settings.KARTOTHEK_PLAY_GAME_LIMIT + 3)]
    assert answers.count(200) == settings.KARTOTHEK_PLAY_GAME_LIMIT - 1  # the start was the first
    _assert_429(host.post("/again"))
    room = Room.objects.get(code=host.code)
    assert room.game_number == settings.KARTOTHEK_PLAY_GAME_LIMIT and room.status == "finished"
    assert not CardPlayStat.objects.exists()  # bots alone: nothing for the admin's numbers


def test_one_human_among_bots_counts_nothing_two_humans_of_three_do(releases):
    from games.models import ActionLog, CardPlayStat, Room
    from games.stats import played_by_people

    host = _bot_game()
    room = Room.objects.get(code=host.code)
    assert not played_by_people(room)
    rows = ActionLog.objects.filter(room=room)
    rows.filter(seat="p1").update(by="player")
    assert not played_by_people(room)  # one person among two bots
    rows.filter(seat="p2").update(by="player")
    assert played_by_people(room)  # two of three
    assert not CardPlayStat.objects.exists()


def test_a_poll_carries_a_bounded_log_and_the_replay_the_whole_game(releases):
    from games import cardids, rooms
    from games.models import Room

    host = _bot_game()
    room = Room.objects.get(code=host.code)
    full = cardids.translate(room.state["log"], rooms.card_maps(room)[0])  # as the room names cards
    assert len(full) > rooms.RECENT_LOG
    table = Client().get(f"/api/play/rooms/{host.code}").json()
    assert table["view"]["log"] == full[-rooms.RECENT_LOG:]
    seat = host.body()["view"]["log"]
    assert len(seat) == rooms.RECENT_LOG
    steps = Client().get(f"/api/play/rooms/{host.code}/replay").json()["steps"]
    assert steps[-1]["view"]["log"] == full


def test_finished_rooms_expire(releases, settings):
    from datetime import timedelta

    from django.utils import timezone

    from games.models import Room

    settings.KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS = 1
    host = _bot_game()
    Room.objects.filter(code=host.code).update(last_activity=timezone.now() - timedelta(hours=2))
    response = Client().get(f"/api/play/rooms/{host.code}/replay")
    assert response.status_code == 404 and "closed" in response.json()["error"]
    assert not Room.objects.filter(code=host.code).exists()


# --- finding 7: guessing room codes ---------------------------------------------------------------


@pytest.fixture
def lookups(settings):
    from django.core.cache import cache

    cache.clear()
    settings.KARTOTHEK_PLAY_LOOKUP_LIMIT = 3
    yield
    cache.clear()


def test_failed_room_lookups_are_limited_per_client_then_even_a_real_code_is_a_429(releases, lookups):
    host = open_room(Client(REMOTE_ADDR="10.7.7.7"), "slogan")
    guesser = Client()
    for guess in ("AAAAAAAA", "CCCCCCCC", "DDDDDDDD"):
        assert guesser.get(f"/api/play/rooms/{guess}").status_code == 404
    response = guesser.get("/api/play/rooms/EEEEEEEE")
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert "check the code" in response.json()["error"]
    for path in (f"/api/play/rooms/{host.code}", f"/api/play/rooms/{host.code}/replay",
                 f"/play/{host.code}/table", f"/play/{host.code}/join"):
        assert guesser.get(path).status_code == 429, path
    other = Client(REMOTE_ADDR="10.1.2.3")  # another client is not blocked
    assert other.get(f"/api/play/rooms/{host.code}").status_code == 200
    assert host.body()["code"] == host.code  # nor the players of the room (another address)


# --- finding 5: cards by per-room ids, never by pack keys -----------------------------------------


def _quoted(keys: list[str], text: str) -> list[str]:
    """Pack keys that appear as a value (JSON, an attribute, a button's data) in a text."""
    forms = ('"{}"', "&quot;{}&quot;", "'{}'", "&#x27;{}&#x27;", "={}&", "/{}\"")
    return [key for key in keys if any(form.format(key) in text for form in forms)]


@pytest.mark.parametrize("game", ["sauschwer", "slogan", "symbols", "sign"])
def test_no_view_page_or_button_names_a_card_by_its_pack_key(releases, game):
    import random

    from games import bots, cardids, rooms
    from games.models import Room

    players = {"symbols": 3, "sign": 4}.get(game, 2)
    room, host = rooms.open_room(game=game, language="en", name="P1")
    seats = [host] + [rooms.join(room, name=f"P{n}") for n in range(2, players + 1)]
    rooms.start(room, host)
    keys = cardids.card_keys(rooms.room_pack(room))
    assert keys
    clients = []
    for seat in seats:
        client = Client()
        client.cookies["kt_seat_" + room.code] = seat.token
        clients.append((seat, client))
    rng = random.Random(f"ids-{game}")
    for step in range(25):
        room = Room.objects.get(pk=room.pk)
        if room.status != "playing":
            break
        pages = [Client().get(f"/api/play/rooms/{room.code}").content.decode(),
                 Client().get(f"/play/{room.code}/table").content.decode()]
        for seat, client in clients:
            pages.append(client.get(f"/api/play/rooms/{room.code}",
                                    HTTP_AUTHORIZATION=f"Bearer {seat.token}").content.decode())
            pages.append(client.get(f"/play/{room.code}/").content.decode())
            pages.append(client.get(f"/play/{room.code}/fragment").content.decode())
        for page in pages:
            assert not _quoted(keys, page), (step, _quoted(keys, page)[:3])
        state = room.state
        for seat, client in rng.sample(clients, len(clients)):
            action = bots.act(game, state, seat.seat, rng)
            if action is None:
                continue
            # the client sends what it was shown: the room's ids, never keys
            shown = cardids.translate(action, rooms.card_maps(room)[0])
            body = client.post(f"/api/play/rooms/{room.code}/actions",
                               json.dumps({"id": f"i{step}", "version": room.version, "action": shown}),
                               content_type="application/json",
                               HTTP_AUTHORIZATION=f"Bearer {seat.token}")
            assert body.status_code in (200, 409), body.content[:300]
            break
    room = Room.objects.get(pk=room.pk)
    assert room.version > 1


def test_card_ids_differ_between_rooms_and_turn_back_into_keys_on_the_way_in(releases):
    from games import rooms

    first, _h1 = rooms.open_room(game="sauschwer", language="en", name="A")
    second, _h2 = rooms.open_room(game="sauschwer", language="en", name="A")
    to_id_1, to_key_1, pack_1 = rooms.card_maps(first)
    to_id_2, _to_key_2, _pack_2 = rooms.card_maps(second)
    key = next(iter(to_id_1))
    assert to_id_1[key] != to_id_2[key] and to_key_1[to_id_1[key]] == key
    assert all(card["key"] in to_key_1 for card in pack_1["body"]["cards"])  # the pages' pack


def test_slogans_judge_phase_table_names_no_card_the_public_pack_can_answer(releases):
    from games import cardids, rooms
    from games.models import Room

    room, host = rooms.open_room(game="slogan", language="en", name="A")
    guest = rooms.join(room, name="B")
    rooms.start(room, host, options={"first_player": host.seat})
    room = Room.objects.get(pk=room.pk)
    ask = next(a for a in rooms.snapshot(room, host)["legal_actions"] if a["type"] == "ask")
    rooms.act(room.code, host, action_id="ask", version=room.version, action=ask)
    room = Room.objects.get(pk=room.pk)
    assert room.state["phase"] == "judge"
    keys = cardids.card_keys(rooms.room_pack(room))
    for body in (Client().get(f"/api/play/rooms/{room.code}").content.decode(),
                 Client().get(f"/play/{room.code}/table").content.decode(),
                 json.dumps(rooms.snapshot(room, guest))):
        assert not _quoted(keys, body), _quoted(keys, body)


def _room_count(code: str) -> int:
    from games.models import RateHit

    return sum(RateHit.objects.filter(key=f"room:{code}").values_list("count", flat=True))


@pytest.mark.django_db(transaction=True)
def test_an_action_is_counted_and_applied_in_one_transaction(releases, settings):
    """One write lock per move: the rate count and the move commit together (on SQLite a
    separate count queued behind the other writers a second time)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = 100
    host, (anna,) = _started("slogan")
    before = _room_count(host.code)
    legal = host.get().json()
    mover = host if legal["legal_actions"] else anna
    body = mover.get().json()
    with CaptureQueriesContext(connection) as queries:
        answer = mover.post("/actions", {"id": "one-lock", "version": body["version"],
                                         "action": body["legal_actions"][0]})
    assert answer.status_code == 200, answer.content[:300]
    sql = [q["sql"] for q in queries]
    begins = [n for n, s in enumerate(sql) if s.startswith("BEGIN")]
    commits = [n for n, s in enumerate(sql) if s == "COMMIT"]
    count = next(n for n, s in enumerate(sql) if "ratehit" in s.lower())
    assert len(begins) == len(commits) == 1, sql
    assert begins[0] < count < commits[0]
    assert _room_count(host.code) == before + 1


def test_a_refused_move_stays_counted_and_one_over_the_limit_changes_nothing(releases, settings):
    settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = 4
    host, (anna,) = _started("slogan")  # the start is the room's first write
    version = host.get().json()["version"]
    assert anna.post("/actions", {"id": "bad-1", "version": version,
                                  "action": {"type": "noop"}}).status_code == 400
    assert anna.post("/actions", {"version": version, "action": {"type": "noop"}}).status_code == 400
    assert _room_count(host.code) == 3  # the start and both refused moves
    body = host.get().json() if host.get().json()["legal_actions"] else anna.get().json()
    mover = host if host.get().json()["legal_actions"] else anna
    assert mover.post("/actions", {"id": "fourth", "version": body["version"],
                                   "action": body["legal_actions"][0]}).status_code == 200
    after = host.get().json()["version"]
    fresh = mover.get().json()
    _assert_429(mover.post("/actions", {"id": "fifth", "version": fresh["version"],
                                        "action": (fresh["legal_actions"] or [{"type": "noop"}])[0]}))
    assert host.get().json()["version"] == after  # over the limit: nothing applied
    assert _room_count(host.code) == 4  # and nothing counted beyond the limit's reach
