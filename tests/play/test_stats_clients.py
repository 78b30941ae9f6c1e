"""The card statistics count a game only when its moving seats come from different clients,
and a client's games only up to a daily cap (games/stats.py, games/clients.py; issue 38:
8 games in 60 s from one address, one client holding both seats, added 96 plays with the
answers it chose).

Played over real HTTP against a real server (uvicorn on loopback): each "browser" connects
from an address of its own (127.0.0.x, the server sees it as the peer address) and carries
the device cookie the play pages gave it.
"""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import httpx
import pytest
from django.test import override_settings

from games import bots, cardids, rooms, stats
from games.clients import DEVICE_COOKIE
from games.models import CardPlayStat, PlayStatsTally, Room, Seat
from tests.play.core_helpers import all_releases
from tests.play.sse_helpers import Server, stream

pytestmark = pytest.mark.django_db(transaction=True)

_ids = itertools.count(1)


@pytest.fixture
def server(transactional_db):
    all_releases()
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as running:
        yield running


class Browser:
    """One client: an address of its own and the device cookie the lobby page gave it."""

    def __init__(self, server: Server, address: str, device: str | None = None) -> None:
        self.http = httpx.Client(base_url=server.url, timeout=20,
                                 transport=httpx.HTTPTransport(local_address=address))
        self.lobby = self.http.get("/play/")
        assert self.lobby.status_code == 200
        self.device = device or self.lobby.cookies.get(DEVICE_COOKIE)
        assert self.device, "the lobby gives a browser its device cookie"

    def cookies(self, **more: str) -> dict[str, str]:
        jar = {DEVICE_COOKIE: self.device, **more}
        return {"Cookie": "; ".join(f"{name}={value}" for name, value in jar.items())}

    def post(self, path: str, data: dict[str, Any], token: str | None = None) -> httpx.Response:
        headers = self.cookies()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return self.http.post(f"/api/play/rooms{path}", json=data, headers=headers)

    def get(self, path: str, **cookies: str) -> httpx.Response:
        return self.http.get(path, headers=self.cookies(**cookies))


def _open(host: Browser, guest: Browser) -> tuple[str, dict[str, tuple[Browser, str]]]:
    """A Sauschwer room of one short round: the host's seat from ``host``, the other from
    ``guest`` (they may be one browser); started."""
    made = host.post("", {"game": "sauschwer", "language": "en", "name": "Ada", "cookie": False})
    assert made.status_code == 201, made.text
    code, seats = made.json()["code"], {made.json()["seat"]: (host, made.json()["token"])}
    joined = guest.post(f"/{code}/seats", {"name": "Bo", "cookie": False})
    assert joined.status_code == 201, joined.text
    seats[joined.json()["seat"]] = (guest, joined.json()["token"])
    host_token = seats[made.json()["seat"]][1]
    started = host.post(f"/{code}/start", {"options": {"rounds": 1}}, host_token)
    assert started.status_code == 200, started.text
    return code, seats


def _play_out(code: str, seats: dict[str, tuple[Browser, str]], seed: str) -> None:
    """Every move of the game sent by the seat's own browser (the bots' choices)."""
    rng = random.Random(seed)
    room = Room.objects.get(code=code)
    for _step in range(300):
        if room.status != Room.Status.PLAYING:
            return
        seat, action = next((s, a) for s in room.state["players"]
                            if (a := bots.act("sauschwer", room.state, s, rng)) is not None)
        browser, token = seats[seat]
        answer = browser.post(f"/{code}/actions", {
            "id": f"m{next(_ids)}", "version": room.version,
            "action": cardids.translate(action, rooms.card_maps(room)[0])}, token)
        assert answer.status_code == 200, answer.text
        room = Room.objects.get(code=code)
    raise AssertionError("the game does not end")


Seats = dict[str, tuple[Browser, str]]


def _games(host: Browser, guest: Browser, number: int,
           room: tuple[str, Seats] | None = None) -> tuple[str, Seats]:
    """``number`` games (start, then play again; or more games in ``room``), every move by its
    seat's browser."""
    code, seats = room or _open(host, guest)
    before = Room.objects.get(code=code).stats_recorded
    for game in range(number):
        if game or room:
            again = host.post(f"/{code}/again", {}, seats["p1"][1])
            assert again.status_code == 200, again.text
        _play_out(code, seats, f"{code}-{before + game}")
    assert Room.objects.get(code=code).stats_recorded == before + number
    return code, seats


def _plays() -> int:
    return sum(CardPlayStat.objects.values_list("played", flat=True))


def _tally() -> dict[str, int]:
    return stats.not_counted()


def test_one_client_holding_two_seats_adds_no_plays_however_many_games(server):
    attacker = Browser(server, "127.0.0.5")
    _games(attacker, attacker, 3)
    assert _plays() == 0
    assert _tally() == {"not:one_client": 3}


@pytest.mark.parametrize("second,counts", [
    ("another address, another cookie", True),
    ("one address, another cookie (cleared or invented)", False),
    ("another address, the same cookie (one browser moving between networks)", False),
])
def test_a_game_counts_only_when_its_seats_come_from_different_clients(server, second, counts):
    first = Browser(server, "127.0.0.11")
    if second.startswith("another address, another"):
        other = Browser(server, "127.0.0.12")
    elif second.startswith("one address"):
        other = Browser(server, "127.0.0.11")
        assert other.device != first.device
    else:
        other = Browser(server, "127.0.0.12", device=first.device)
    _games(first, other, 2)
    assert (_plays() > 0) is counts
    assert _tally() == ({"counted": 2} if counts else {"not:one_client": 2})


def test_the_daily_cap_stops_counting_a_clients_games_until_the_next_day(server, monkeypatch):
    ada, bo = Browser(server, "127.0.0.21"), Browser(server, "127.0.0.22")
    day = stats.today()
    with override_settings(KARTOTHEK_PLAY_STATS_DAILY_CAP=2):
        room = _games(ada, bo, 3)
        assert _tally() == {"counted": 2, "not:daily_cap": 1}
        after_two = _plays()
        assert after_two > 0
        monkeypatch.setattr(stats, "today", lambda: day + 1)  # the same room, the next day
        _games(ada, bo, 1, room)
    assert _tally() == {"counted": 3, "not:daily_cap": 1}
    assert _plays() > after_two
    # yesterday's per-client counts are gone; the reasons stay for the curators
    assert not PlayStatsTally.objects.filter(day=day, key__startswith="client:").exists()


def test_the_device_cookie_is_httponly_and_no_page_answer_or_stream_shows_it(server):
    ada, bo = Browser(server, "127.0.0.31"), Browser(server, "127.0.0.32")
    header = ada.lobby.headers["set-cookie"]
    assert re.search(rf"{DEVICE_COOKIE}=[^;]+;", header)
    assert "httponly" in header.lower() and "samesite=lax" in header.lower()
    code, seats = _open(ada, bo)
    stored = list(Seat.objects.filter(room__code=code).values_list("client_hash", "device_hash"))
    assert all(address and device for address, device in stored)
    secrets = {ada.device, bo.device, "127.0.0.31", "127.0.0.32",
               *(value for pair in stored for value in pair)}
    for seat, (browser, token) in seats.items():
        seat_cookie = {f"kt_seat_{code}": token}
        answers = [
            browser.get(f"/play/{code}/", **seat_cookie),
            browser.get(f"/play/{code}/fragment", **seat_cookie),
            browser.get(f"/play/{code}/table"),
            browser.http.get(f"/api/play/rooms/{code}", headers={"Authorization": f"Bearer {token}"}),
        ]
        for answer in answers:
            assert answer.status_code == 200, (answer.url, answer.status_code)
            assert not [s for s in secrets if s in answer.text], answer.url
        with stream(f"{server_url(browser)}/api/play/rooms/{code}/events",
                    {"Authorization": f"Bearer {token}"}) as events:
            first = events.next()
        assert first.kind == "room" and first.body["you"] == seat
        assert not [s for s in secrets if s in first.data]


def server_url(browser: Browser) -> str:
    return str(browser.http.base_url).rstrip("/")


@pytest.mark.parametrize("one,other,same", [
    ("2001:db8:1:2::1", "2001:db8:1:2:ffff::9", True),  # one /64: one household, one attacker
    ("2001:db8:1:2::1", "2001:db8:1:3::1", False),
    ("::ffff:192.0.2.7", "192.0.2.7", True),
    ("192.0.2.7", "192.0.2.8", False),
])
def test_a_client_is_its_ipv4_address_or_its_ipv6_64(one, other, same):
    from games.clients import network

    assert (network(one) == network(other)) is same
    assert network("unknown") == "" and network("") == ""


def test_the_seat_keeps_a_keyed_hash_of_the_address_never_the_address(server):
    import hashlib

    ada, bo = Browser(server, "127.0.0.41"), Browser(server, "127.0.0.42")
    code, _seats = _open(ada, bo)
    stored = dict(Seat.objects.filter(room__code=code).values_list("seat", "client_hash"))
    assert stored["p1"] != stored["p2"]
    for address in ("127.0.0.41", "127.0.0.42"):
        assert hashlib.sha256(address.encode()).hexdigest() not in stored.values()
        assert not Seat.objects.filter(room__code=code, client_hash__contains=address).exists()
