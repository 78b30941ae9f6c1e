"""The play API's contract end to end (DESIGN.md "Play mode"), through Django's test client."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client, override_settings

from games.models import ActionLog, Room
from tests.play.core_helpers import Player, all_releases, join, open_room, release_of, table

pytestmark = pytest.mark.django_db


@pytest.fixture
def releases(db):
    all_releases()


def post(client: Client, path: str, data: object, **headers: str):  # type: ignore[no-untyped-def]
    return client.post(path, json.dumps(data), content_type="application/json", **headers)


def test_creating_a_room_answers_code_seat_token_and_version(releases):
    response = post(Client(), "/api/play/rooms", {"game": "sauschwer", "language": "en", "name": "Ada"})
    assert response.status_code == 201
    data = response.json()
    assert set(data) == {"code", "seat", "token", "version"}
    assert len(data["code"]) == 8 and not set(data["code"]) & set("0O1IL")
    room = Room.objects.get(code=data["code"])
    assert room.status == "lobby" and room.release.version == 1
    assert room.seats.get().host and room.seats.get().token_hash != data["token"]


def test_the_room_pins_the_release_it_was_opened_with(releases):
    host = open_room(Client(), "sauschwer")
    release_of("sauschwer")  # a newer release appears
    assert Room.objects.get(code=host.code).release.version == 1


def test_a_room_needs_a_published_release(db):
    response = post(Client(), "/api/play/rooms", {"game": "sign", "language": "en", "name": "A"})
    assert response.status_code == 404
    assert "No release" in response.json()["error"]


@pytest.mark.parametrize("extra, message", [
    ({"release": "draft"}, "curators"),
    ({"seed": 7}, "curators"),
    ({"options": {"stack": {"cards": []}}}, "curators"),
])
def test_draft_seed_and_stack_are_for_curators_only(releases, extra, message):
    data = {"game": "sauschwer", "language": "en", "name": "A", **extra}
    response = post(Client(), "/api/play/rooms", data)
    assert response.status_code == 403
    assert message in response.json()["error"]


def test_a_curator_may_choose_the_seed(releases):
    curator = User.objects.create_user("carla", password="pw-karten-1", is_staff=True)
    curator.groups.add(Group.objects.get(name="Curators"))
    client = Client()
    client.force_login(curator)
    response = post(client, "/api/play/rooms", {"game": "sauschwer", "language": "en",
                                                "name": "C", "seed": 7})
    assert response.status_code == 201
    assert Room.objects.get(code=response.json()["code"]).seed == "7"


@pytest.mark.parametrize("data, status, message", [
    ({"game": "chess", "language": "en", "name": "A"}, 400, "no game"),
    ({"game": "sign", "language": "xx", "name": "A"}, 400, "no language"),
    ({"game": "sign", "language": "en", "name": "  "}, 400, "name"),
    ({"game": "sign", "language": "en", "name": "A", "options": {"colour": 1}}, 400, "no option"),
    ({"game": "sign", "language": "en", "name": "A", "release": 99}, 404, "no release 99"),
])
def test_bad_room_requests_get_readable_errors_and_no_room(releases, data, status, message):
    response = post(Client(), "/api/play/rooms", data)
    assert response.status_code == status
    assert message in response.json()["error"]
    assert not Room.objects.exists()


def test_malformed_json_is_a_400(releases):
    response = Client().post("/api/play/rooms", "{nope", content_type="application/json")
    assert response.status_code == 400
    assert "not JSON" in response.json()["error"]


def test_unknown_room_is_a_json_404(db):
    response = Client().get("/api/play/rooms/XXXXX")
    assert response.status_code == 404
    assert "no room" in response.json()["error"]


def test_joining_until_full_then_409(releases):
    host = open_room(Client(), "slogan")  # 2 to 6 players
    seats = [join(Client(), host.code, f"P{n}") for n in range(5)]
    assert [s.seat for s in seats] == ["p2", "p3", "p4", "p5", "p6"]
    response = post(Client(), f"/api/play/rooms/{host.code}/seats", {"name": "Late"})
    assert response.status_code == 409
    assert "full" in response.json()["error"]


def test_joining_a_started_room_is_409(releases):
    seats = table("sauschwer", 2)
    response = post(Client(), f"/api/play/rooms/{seats[0].code}/seats", {"name": "Late"})
    assert response.status_code == 409
    assert "started" in response.json()["error"]


def test_only_the_host_starts_and_only_with_enough_players(releases):
    host = open_room(Client(), "sign")
    guest = join(Client(), host.code, "B")
    assert guest.post("/start").status_code == 403
    response = host.post("/start")
    assert response.status_code == 400
    assert "at least 4" in response.json()["error"]


def test_the_room_body_has_exactly_the_designed_keys(releases):
    host, _guest = table("sauschwer", 2)
    body = host.body()
    assert set(body) == {"code", "game", "language", "market", "status", "version", "seats", "you",
                         "view", "legal_actions", "result"}
    assert body["market"] is None  # only an English Slogan room plays one market's deck
    assert body["status"] == "playing" and body["you"] == "p1" and body["result"] is None
    assert body["seats"][0] == {"seat": "p1", "name": "Ada", "host": True, "bot": False, "away": False,
                                "moved": 0}
    assert body["view"]["you"] == "p1"
    table_body = Client().get(f"/api/play/rooms/{host.code}").json()
    assert table_body["you"] is None and table_body["legal_actions"] == []
    assert table_body["view"]["you"] is None


def test_etag_and_304_without_change(releases):
    host, _ = table("sauschwer", 2)
    first = host.get()
    etag = first["ETag"]
    again = host.client.get(f"/api/play/rooms/{host.code}", HTTP_IF_NONE_MATCH=etag, **host.auth)
    assert again.status_code == 304 and again["ETag"] == etag
    # the table's ETag differs from the seat's: the bodies differ
    table_etag = Client().get(f"/api/play/rooms/{host.code}")["ETag"]
    assert table_etag != etag


def test_a_304_poll_reads_only_the_version(releases, django_assert_max_num_queries):
    host, _ = table("sauschwer", 2)
    etag = host.get()["ETag"]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = host.client.get(f"/api/play/rooms/{host.code}", HTTP_IF_NONE_MATCH=etag, **host.auth)
    assert response.status_code == 304
    assert len(queries) == 1
    assert "state_json" not in queries[0]["sql"]


def test_an_action_answers_the_new_body_and_bumps_the_version(releases):
    host, _guest = table("sauschwer", 2)
    body = host.body()
    place = next(a for a in body["legal_actions"] if a["type"] == "place")
    response = host.act(place, body["version"])
    assert response.status_code == 200
    after = response.json()
    assert after["version"] == body["version"] + 1
    assert response["ETag"] == f'"{after["version"]}.p1"'
    # the log keeps the engine's pack keys; the answer names cards by the room's ids
    from games import cardids, rooms
    from games.models import Room

    to_key = rooms.card_maps(Room.objects.get(code=host.code))[1]
    assert ActionLog.objects.get(room__code=host.code).action == cardids.translate(place, to_key)


def test_the_same_action_id_applies_once(releases):
    host, _guest = table("sauschwer", 2)
    body = host.body()
    place = next(a for a in body["legal_actions"] if a["type"] == "place")
    first = host.act(place, body["version"], action_id="same-1")
    second = host.act(place, body["version"], action_id="same-1")
    assert first.status_code == second.status_code == 200
    assert second.json()["version"] == first.json()["version"]
    assert ActionLog.objects.filter(room__code=host.code).count() == 1


def test_an_illegal_action_is_a_400_with_the_engines_message(releases):
    _host, guest = table("sauschwer", 2)
    body = guest.body()
    response = guest.act({"type": "place", "card": "nonsense", "helmut": "red"}, body["version"])
    assert response.status_code == 400
    assert response.json()["error"]
    assert not ActionLog.objects.exists()


def test_a_stale_stop_is_a_409_with_the_fresh_body(releases):
    a, b, c = table("sauschwer", 3)
    body = a.body()
    active = {p.seat: p for p in (a, b, c)}[body["view"]["active"]]
    place = next(x for x in active.body()["legal_actions"] if x["type"] == "place")
    version = active.act(place).json()["version"]
    others = [p for p in (a, b, c) if p is not active]
    assert others[0].act({"type": "stop"}, version).status_code == 200
    late = others[1].act({"type": "stop"}, version)
    assert late.status_code == 409
    data = late.json()
    assert data["error"] and data["version"] == version + 1 and data["view"]["doubter"] == others[0].seat


def test_a_turn_based_action_at_an_old_version_is_stale_even_if_legal(releases):
    a, b = table("sauschwer", 2)
    version = a.body()["version"]
    a.post("/seats/p2/away", {"away": False})  # any change bumps the version
    active = a if a.body()["view"]["active"] == "p1" else b
    place = next(x for x in active.body()["legal_actions"] if x["type"] == "place")
    assert active.act(place, version).status_code == 409


def test_nobody_without_a_seat_can_act(releases):
    host, _guest = table("sauschwer", 2)
    stranger = Player(Client(), host.code, "p9", "not-a-token")
    response = stranger.act({"type": "stop"}, 1)
    assert response.status_code == 403
    anonymous = post(Client(), f"/api/play/rooms/{host.code}/actions", {"id": "x", "version": 1,
                                                                      "action": {"type": "stop"}})
    assert anonymous.status_code == 403


def test_a_token_of_another_room_is_refused(releases):
    first, _ = table("sauschwer", 2)
    second, _ = table("sauschwer", 2)
    intruder = Player(Client(), second.code, first.seat, first.token)
    assert intruder.get().status_code == 403


def test_a_removed_seat_token_stops_working_and_a_bot_plays_it(releases):
    host, _b, c = table("sauschwer", 3)
    response = host.post("/seats/p3/remove")
    assert response.status_code == 200
    assert c.get().status_code == 403
    seat = next(s for s in response.json()["seats"] if s["seat"] == "p3")
    assert seat["bot"] is True


def test_removing_a_seat_in_the_lobby_frees_it(releases):
    host = open_room(Client(), "sauschwer")
    guest = join(Client(), host.code, "B")
    assert host.post(f"/seats/{guest.seat}/remove").status_code == 200
    assert guest.get().status_code == 403
    assert [s["seat"] for s in host.body()["seats"]] == ["p1"]


def test_only_the_host_uses_host_controls(releases):
    _host, b, _c = table("sauschwer", 3)
    for path in ("/seats/p3/remove", "/seats/p3/host", "/seats/p3/bot", "/again"):
        response = b.post(path)
        assert response.status_code == 403, path
        assert "host" in response.json()["error"]


def test_handing_the_host_role_on(releases):
    host, b = table("sauschwer", 2)
    seats = host.post("/seats/p2/host").json()["seats"]
    assert [s["host"] for s in seats] == [False, True]
    assert b.post("/seats/p1/away").status_code == 200


def test_a_player_may_mark_themselves_away_and_acting_brings_them_back(releases):
    a, b = table("sauschwer", 2)
    body = a.body()
    active, other = (a, b) if body["view"]["active"] == "p1" else (b, a)
    # the other player steps away: a bot plays their seat (stops, markers) meanwhile
    seats = other.post(f"/seats/{other.seat}/away").json()["seats"]
    assert next(s for s in seats if s["seat"] == other.seat)["away"] is True
    place = next(x for x in active.body()["legal_actions"] if x["type"] == "place")
    active.act(place)
    # a placement makes it the away seat's turn (or lets it doubt): its bot acted at once
    assert ActionLog.objects.filter(room__code=a.code, seat=other.seat, by="bot").exists()
    legal = other.body()["legal_actions"]
    if legal:
        assert other.act(legal[0]).status_code == 200
        seats = other.body()["seats"]
        assert next(s for s in seats if s["seat"] == other.seat)["away"] is False


def test_a_player_cannot_mark_another_away(releases):
    _host, b, _c = table("sauschwer", 3)
    assert b.post("/seats/p3/away").status_code == 403


def test_a_lobby_bot_fills_a_seat_and_plays(releases):
    host = open_room(Client(), "sauschwer")
    assert host.post("/bots").status_code == 200
    host.post("/start")
    body = host.body()
    assert body["seats"][1]["bot"] is True
    if body["view"]["active"] == "p2":  # the bot's turn: it must have moved already
        pytest.fail("the bot did not move")
    place = next(x for x in body["legal_actions"] if x["type"] == "place")
    after = host.act(place, body["version"]).json()
    # the bot answered at once (stop, marker or a placement of its own)
    assert after["version"] > body["version"] + 1


def test_sign_teams_only_the_rulebooks_divisions(releases):
    host = open_room(Client(), "sign")
    for n in range(5):
        join(Client(), host.code, f"P{n}")
    bad = host.post("/teams", {"teams": [["p1", "p2", "p3", "p4"], ["p5", "p6"]]})
    assert bad.status_code == 400 and "3-3 or 2-2-2" in bad.json()["error"]
    missing = host.post("/teams", {"teams": [["p1", "p2", "p3"], ["p4", "p5"]]})
    assert missing.status_code == 400
    good = host.post("/teams", {"teams": [["p1", "p2"], ["p3", "p4"], ["p5", "p6"]]})
    assert good.status_code == 200
    assert host.post("/start").status_code == 200
    room = Room.objects.get(code=host.code)
    assert room.options["teams"] == [["p1", "p2"], ["p3", "p4"], ["p5", "p6"]]
    assert room.games[0]["options"]["teams"] == room.options["teams"]


@override_settings(KARTOTHEK_PLAY_RATE_LIMIT=3)
def test_room_creation_and_joins_are_rate_limited_per_client(releases):
    host = open_room(Client(), "slogan")
    join(Client(), host.code, "B")
    join(Client(), host.code, "C")
    response = post(Client(), f"/api/play/rooms/{host.code}/seats", {"name": "D"})
    assert response.status_code == 429 and response["Retry-After"] == "60"
    other = post(Client(), f"/api/play/rooms/{host.code}/seats", {"name": "E"},
                 REMOTE_ADDR="10.0.0.2")
    assert other.status_code == 201


def test_cookie_clients_need_csrf_bearer_clients_do_not(releases):
    browser = Client(enforce_csrf_checks=True)
    created = post(browser, "/api/play/rooms", {"game": "sauschwer", "language": "en", "name": "A"})
    assert created.status_code == 201  # no cookie yet: nothing to forge
    code = created.json()["code"]
    assert browser.cookies[f"kt_seat_{code}"]["httponly"]
    refused = post(browser, f"/api/play/rooms/{code}/bots", {})
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]
    browser.get("/admin/login/")  # any page that sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    allowed = post(browser, f"/api/play/rooms/{code}/bots", {}, HTTP_X_CSRFTOKEN=token)
    assert allowed.status_code == 200
    bearer = Client(enforce_csrf_checks=True)
    response = post(bearer, f"/api/play/rooms/{code}/bots", {},
                    HTTP_AUTHORIZATION=f"Bearer {created.json()['token']}")
    assert response.status_code == 200


def test_the_browser_cookie_proves_the_seat(releases):
    browser = Client()
    created = post(browser, "/api/play/rooms", {"game": "sauschwer", "language": "en", "name": "A"})
    assert browser.get(f"/api/play/rooms/{created.json()['code']}").json()["you"] == "p1"


def test_play_again_keeps_the_seats_and_the_code(releases):
    host, guest = table("sauschwer", 2, )
    room = Room.objects.get(code=host.code)
    room.status = "finished"
    room.games = [{**room.games[0], "result": {"scores": {}, "winners": []}}]
    room.save()
    response = host.post("/again")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "playing" and [s["seat"] for s in body["seats"]] == ["p1", "p2"]
    assert Room.objects.get(code=host.code).game_number == 2
    assert guest.get().status_code == 200


def test_in_sign_an_action_from_an_older_version_applies_when_still_legal(releases):
    seats = table("sign", 4)
    for seat in seats:  # engines with a checking phase: everyone has looked at their hand
        if {"type": "ready"} in seat.body()["legal_actions"]:
            assert seat.act({"type": "ready"}).status_code == 200
    body = seats[0].body()
    first, second = body["view"]["table"][:2]
    version = body["version"]
    assert seats[0].act({"type": "take", "card": first}, version).status_code == 200
    # seats[1] chose at the same version; its card is still on the table: it applies
    late = seats[1].act({"type": "take", "card": second}, version)
    assert late.status_code == 200 and late.json()["version"] == version + 2
    # the first card is gone: the same stale version now loses the race
    assert seats[2].act({"type": "take", "card": first}, version).status_code == 409


def test_behind_one_proxy_the_rate_limit_counts_each_forwarded_client(settings):
    """Behind a proxy every request comes from the proxy's address: with
    KARTOTHEK_PROXY_COUNT=1 the limit counts the address the proxy saw, not the proxy."""
    from django.test import RequestFactory

    from games.ratelimit import client_key

    settings.KARTOTHEK_PROXY_COUNT = 1
    factory = RequestFactory()
    ada = factory.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")
    forged = factory.get("/", REMOTE_ADDR="10.0.0.1",
                         HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.5")
    ben = factory.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert client_key(ada) == client_key(forged) == "203.0.113.5"
    assert client_key(ben) == "198.51.100.7"
    settings.KARTOTHEK_PROXY_COUNT = 0
    assert client_key(ada) == "10.0.0.1"
