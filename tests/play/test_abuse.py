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
    new_token = re.search(rf"/play/{host.code}/rejoin/([A-Za-z0-9_-]+)", page.content.decode()).group(1)
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
