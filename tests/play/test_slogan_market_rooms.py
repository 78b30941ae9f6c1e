"""English Slogan rooms play one market's deck: the host chooses UK or US slogans, the engine
deals that deck, and the lobby and the room's pages say which one, for every player."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from exports.packs import publish
from games.models import Room
from games.rooms import room_state
from tests.play.core_helpers import join, open_room
from tests.test_slogan_markets import UK_CARD, US_CARD, make_card


@pytest.fixture
def market_releases(mini_catalogue):
    make_card("karte-en-uk", UK_CARD)
    make_card("karte-en-us", US_CARD)
    for edition in ("en", "en-GB", "en-US"):
        publish("slogan", edition)


def dealt_cards(code: str) -> list[str]:
    return sorted(room_state(Room.objects.get(code=code))["catalogue"]["cards"])


def test_a_us_room_deals_the_us_deck_and_says_so(market_releases):
    host = open_room(Client(), "slogan", market="US")
    body = host.body()
    assert body["language"] == "en" and body["market"] == "US"
    assert Room.objects.get(code=host.code).release.language == "en-US"
    join(Client(), host.code, "Ben")
    assert host.post("/start", {}).status_code == 200
    assert dealt_cards(host.code) == ["karte-002", "karte-en-us"]


def test_a_uk_room_deals_the_uk_deck(market_releases):
    host = open_room(Client(), "slogan", market="gb")
    join(Client(), host.code, "Ben")
    assert host.post("/start", {}).status_code == 200
    assert host.body()["market"] == "GB"
    assert dealt_cards(host.code) == ["karte-002", "karte-en-uk"]


def test_an_english_room_without_a_market_plays_the_cards_both_markets_know(market_releases):
    host = open_room(Client(), "slogan")
    join(Client(), host.code, "Ben")
    assert host.post("/start", {}).status_code == 200
    assert host.body()["market"] is None
    assert dealt_cards(host.code) == ["karte-002"]


@pytest.mark.parametrize(("room", "message"), [
    ({"game": "sauschwer", "market": "GB"}, "Only the slogan game has markets"),
    ({"game": "slogan", "market": "FR"}, "There is no market 'FR' for 'en'"),
    ({"game": "slogan", "language": "de", "market": "US"}, "The 'de' edition has one market"),
    ({"game": "slogan", "market": 7}, "\"market\" is a market code"),
])
def test_a_market_that_does_not_exist_is_refused_and_no_room_opens(market_releases, room,
                                                                   message):
    data = {"language": "en", "name": "Ada", **room}
    response = Client().post("/api/play/rooms", json.dumps(data), content_type="application/json")
    assert response.status_code == 400 and message in response.json()["error"]
    assert not Room.objects.exists()


def test_the_lobby_offers_the_markets_with_the_browsers_own_first(market_releases):
    page = Client().get("/play/", headers={"Accept-Language": "en-GB,en;q=0.8"}).content.decode()
    assert 'name="market"' in page
    assert '<option value="GB" selected>' in page and '<option value="US">' in page
    page = Client().get("/play/", headers={"Accept-Language": "en-US,en;q=0.8"}).content.decode()
    assert '<option value="US" selected>' in page


def test_a_room_opened_in_the_lobby_for_the_uk_says_so_to_host_and_players(market_releases):
    host = Client()
    response = host.post("/play/", {"game": "slogan", "language": "en", "market": "GB",
                                    "name": "Ada", "release": "latest"})
    assert response.status_code == 302, response.content.decode()[:500]
    room = Room.objects.get()
    assert room.language == "en-GB"
    assert "UK slogans" in host.get(response["Location"]).content.decode()
    guest = Client()
    assert "UK slogans" in guest.get(f"/play/{room.code}/join").content.decode()
    player = join(guest, room.code, "Ben")
    page = player.client.get(f"/play/{room.code}/", headers={
        "Authorization": f"Bearer {player.token}"}).content.decode()
    assert "UK slogans" in page
    assert "UK slogans" in Client().get(f"/play/{room.code}/table").content.decode()

