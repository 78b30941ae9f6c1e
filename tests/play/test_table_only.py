"""Rooms opened "table only" (the opener's device is the table, no seat), and the play 404
page, through Django's test client."""

from __future__ import annotations

import json

import pytest
from django.test import Client, override_settings

from games import rooms
from games.models import Room
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import fresh_room_caches  # noqa: F401  (autouse)

pytestmark = pytest.mark.django_db


def post(client: Client, path: str, data: object, **headers: str):  # type: ignore[no-untyped-def]
    return client.post(path, json.dumps(data), content_type="application/json", **headers)


def test_the_api_opens_a_room_table_only_with_a_host_token_and_no_seat():
    release_of("sauschwer")
    client = Client()
    response = post(client, "/api/play/rooms", {"game": "sauschwer", "language": "en", "seat": False})
    assert response.status_code == 201
    data = response.json()
    assert set(data) == {"code", "seat", "token", "host_token", "version"}
    assert data["seat"] is None and data["token"] is None and data["host_token"]
    assert not response.cookies  # the table needs no seat cookie
    room = Room.objects.get(code=data["code"])
    assert room.seats.count() == 0
    assert room.table_token_hash and room.table_token_hash != data["host_token"]


def test_the_first_phone_to_join_a_table_only_room_is_the_host_and_the_table_can_move_it():
    release_of("sauschwer")
    data = post(Client(), "/api/play/rooms", {"game": "sauschwer", "language": "en", "seat": False}).json()
    code, host_token = data["code"], data["host_token"]
    ada = post(Client(), f"/api/play/rooms/{code}/seats", {"name": "Ada", "cookie": False}).json()
    ben = post(Client(), f"/api/play/rooms/{code}/seats", {"name": "Ben", "cookie": False}).json()
    seats = {s.seat: s.host for s in Room.objects.get(code=code).seats.all()}
    assert seats == {ada["seat"]: True, ben["seat"]: False}

    moved = post(Client(), f"/api/play/rooms/{code}/seats/{ben['seat']}/host", {},
                 HTTP_AUTHORIZATION=f"Bearer {host_token}")
    assert moved.status_code == 200, moved.content
    assert {s["seat"]: s["host"] for s in moved.json()["seats"]} == {ada["seat"]: False, ben["seat"]: True}
    # Ben starts it; Ada no longer may. A wrong table token changes nothing.
    refused = post(Client(), f"/api/play/rooms/{code}/start", {}, HTTP_AUTHORIZATION=f"Bearer {ada['token']}")
    assert refused.status_code == 403
    wrong = post(Client(), f"/api/play/rooms/{code}/seats/{ada['seat']}/host", {},
                 HTTP_AUTHORIZATION="Bearer not-the-table")
    assert wrong.status_code == 403
    assert Room.objects.get(code=code).seats.get(seat=ben["seat"]).host


@pytest.mark.parametrize("body, message", [
    ({"seat": "no"}, "\"seat\" is true or false"),
    ({"seat": False, "pass_and_play": True}, "pass-and-play"),
])
def test_a_wrong_seat_flag_is_refused_and_opens_nothing(body, message):
    release_of("sauschwer")
    response = post(Client(), "/api/play/rooms", {"game": "sauschwer", "language": "en", "name": "A", **body})
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert not Room.objects.exists()


def test_rooms_opened_as_before_still_answer_a_seat_and_token():
    release_of("sauschwer")
    data = post(Client(), "/api/play/rooms", {"game": "sauschwer", "language": "en", "name": "Ada"}).json()
    assert set(data) == {"code", "seat", "token", "version"}
    assert not Room.objects.get(code=data["code"]).table_token_hash


def test_the_lobby_form_opens_a_table_only_room_and_the_table_shows_the_host_controls():
    release_of("sauschwer")
    client = Client()
    response = client.post("/play/", {"game": "sauschwer", "language": "en", "name": "", "release": "latest",
                                      "table_only": "1"})
    assert response.status_code == 302 and response["Location"].endswith("/table")
    code = response["Location"].split("/")[2]
    assert f"kt_table_{code}" in response.cookies and f"kt_seat_{code}" not in response.cookies
    page = client.get(f"/play/{code}/table").content.decode()
    assert "Host controls: the first phone to join gets them" in page
    phone = Client()
    phone.post(f"/play/{code}/join", {"name": "Ada"})
    page = client.get(f"/play/{code}/table").content.decode()
    assert "Host controls: Ada" in page and "Give to Ada" in page
    # Another browser (a TV that only watches) sees no host controls.
    assert "Give to Ada" not in Client().get(f"/play/{code}/table").content.decode()
    seat = rooms.get_room(code).seats.get()
    assert client.post(f"/play/{code}/table/host", {"seat": seat.seat}).status_code == 302
    assert Client().post(f"/play/{code}/table/host", {"seat": seat.seat}).status_code == 403


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("language, title, back", [
    ("en", "No such room", "Back to joining a room"),
    ("de", "Diesen Raum gibt es nicht", "Zurück zum Beitreten"),
])
def test_a_wrong_room_code_answers_a_play_404_page_in_the_players_language(debug, language, title, back):
    with override_settings(DEBUG=debug):
        for path in ("/play/ZZZZZ/", "/play/ZZZZZ/join", "/play/ZZZZZ/table", "/play/ZZZZZ/replay"):
            response = Client(HTTP_ACCEPT_LANGUAGE=language).get(path)
            assert response.status_code == 404, path
            page = response.content.decode()
            assert f"<h1>{title}</h1>" in page and back in page and 'href="/play/"' in page
            assert f'<html lang="{language}">' in page
            assert "Technical" not in page and "URLconf" not in page


def test_the_english_lobby_names_the_extra_tiles_as_the_english_release_does():
    from cards.models import SymbolTile
    from tests.engines.packs import symbols_pack

    SymbolTile.objects.create(key="sonne", name="Sonne", icon="sun", position=1)
    SymbolTile.objects.create(key="kuehlschrank", name="Kühlschrank", icon="fridge", position=2,
                              is_extra=True)
    pack = symbols_pack()
    pack["body"]["symbols"] = [
        {"key": "sonne", "name": "Sun", "status": "approved", "extra": False, "position": 1, "picture": None},
        {"key": "kuehlschrank", "name": "Fridge", "status": "approved", "extra": True, "position": 2,
         "picture": None},
    ]
    release_of("symbols", language="en", pack=pack)
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/play/").content.decode()
    assert "Fridge" in english and "covers Sun" in english
    assert "Kühlschrank" not in english and "covers Sonne" not in english
    german = Client(HTTP_ACCEPT_LANGUAGE="de").get("/play/").content.decode()
    assert "Kühlschrank" in german  # no German release: the catalogue's own names
