"""Issue 38, finding 1: a room's budgets belong to its players. Whoever merely knows a room's
code (no seat token of it, nor its table's host token) is charged against their own address's
write limit only, never against the room's write budget or its game-start budget; a seat's own
writes still are, and a game's start (start, play again) counts only for the host — anyone
else gets 403 before the room's budgets are touched."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.play.core_helpers import Player, all_releases, join, open_room

pytestmark = pytest.mark.django_db


@pytest.fixture
def releases(db):
    all_releases()


@pytest.fixture(autouse=True)
def _one_minute(monkeypatch):
    """Every request of a test falls in one window of the rate limits (none crosses a minute)."""
    from games import ratelimit

    monkeypatch.setattr(ratelimit, "clock", lambda: 1_800_000_030.0)


def _production(name: str) -> int:
    from kartothek import settings as production

    return int(getattr(production, name))


@pytest.fixture
def limits(settings):
    """The limits as deployed."""
    for name in ("KARTOTHEK_PLAY_WRITE_LIMIT", "KARTOTHEK_PLAY_ROOM_WRITE_LIMIT",
                 "KARTOTHEK_PLAY_GAME_LIMIT"):
        setattr(settings, name, _production(name))
    return settings


def _counted(key: str) -> int:
    from games.models import RateHit

    return sum(RateHit.objects.filter(key=key).values_list("count", flat=True))


def _room_counts(code: str) -> tuple[int, int]:
    """What a room's budgets have been charged this minute: writes and games started."""
    return _counted(f"room:{code}"), _counted(f"games:{code}")


def _lobby(game: str = "sauschwer") -> tuple[Player, Player]:
    host = open_room(Client(REMOTE_ADDR="10.0.0.1"), game)
    guest = join(Client(REMOTE_ADDR="10.0.0.2"), host.code, "Bea")
    return host, guest


def _stranger(number: int) -> Client:
    return Client(REMOTE_ADDR=f"192.0.2.{number}")


# Every play POST that charges a room's budget: (kind, path under the room, starts a game).
API_ROUTES = [("api", "/start", True), ("api", "/again", True), ("api", "/actions", False),
              ("api", "/bots", False), ("api", "/teams", False), ("api", "/seats/{seat}/remove", False),
              ("api", "/seats/{seat}/away", False), ("api", "/seats/{seat}/host", False),
              ("api", "/seats/{seat}/bot", False)]
PAGE_ROUTES = [("page", f"/host/{control}", control in ("start", "again"))
               for control in ("start", "bot", "remove", "away", "host", "teams", "again", "rejoin")]
ROUTES = API_ROUTES + PAGE_ROUTES


def _post(client: Client, kind: str, code: str, path: str, seat: str, token: str | None = None) -> Any:
    path = path.format(seat=seat)
    if kind == "api":
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
        body = {"id": "x1", "version": 0, "action": {"type": "noop"}, "teams": [[seat]], "away": True}
        return client.post(f"/api/play/rooms/{code}{path}", json.dumps(body),
                           content_type="application/json", **headers)
    if token:
        client.cookies["kt_seat_" + code] = token
    return client.post(f"/play/{code}{path}", {"seat": seat})


def test_the_routes_listed_here_are_every_play_post_that_charges_a_room():
    """The parametrised tests below cover each room-charging route: a new host control or API
    route must be added to the list (the route walk in test_play_post_limits.py checks that
    every play POST has a limit at all)."""
    from django.urls import get_resolver

    from games import views

    assert {path for _, path, _ in PAGE_ROUTES} == {f"/host/{c}" for c in views.CONTROLS}
    play_api = next(p for p in get_resolver().url_patterns if getattr(p, "namespace", None) == "play_api")
    api = {str(p.pattern) for p in play_api.url_patterns if str(p.pattern).startswith("rooms/<str:code>/")}
    listed = {"rooms/<str:code>" + path.replace("{seat}", "<str:seat_id>") for _, path, _ in API_ROUTES}
    # the others: a join (counted with room creations), GETs, and stream tickets (changes no room)
    assert api - listed == {"rooms/<str:code>/events", "rooms/<str:code>/seats", "rooms/<str:code>/replay",
                            "rooms/<str:code>/stream-tickets"}


@pytest.mark.parametrize(("kind", "path", "starts"), ROUTES, ids=[f"{k}{p}" for k, p, _ in ROUTES])
def test_a_write_that_proves_no_seat_is_never_charged_to_the_room(releases, limits, kind, path, starts):
    host, guest = _lobby()
    other, _other_guest = _lobby()  # a seat of another room proves nothing here
    for number, token in enumerate([None, "not-a-token-of-this-room", other.token]):
        answer = _post(_stranger(number + 1), kind, host.code, path, guest.seat, token)
        assert answer.status_code == 403, (token, answer.content[:300])
    assert _room_counts(host.code) == (0, 0)
    assert _counted("write:192.0.2.1") == 1  # the stranger's own address pays


@pytest.mark.parametrize(("kind", "path", "starts"), ROUTES, ids=[f"{k}{p}" for k, p, _ in ROUTES])
def test_a_seats_own_write_is_charged_to_the_room(releases, limits, kind, path, starts):
    host, guest = _lobby()
    _post(Client(REMOTE_ADDR="10.0.0.1"), kind, host.code, path, guest.seat, host.token)
    assert _room_counts(host.code) == (1, 1 if starts else 0)
    assert _counted("write:10.0.0.1") == 1  # and to its client


@pytest.mark.parametrize(("kind", "path", "starts"), [r for r in ROUTES if r[2]],
                         ids=[f"{k}{p}" for k, p, s in ROUTES if s])
def test_a_game_started_by_a_seat_that_is_not_the_host_is_a_403_that_the_room_does_not_pay(
        releases, limits, kind, path, starts):
    host, guest = _lobby()
    answer = _post(Client(REMOTE_ADDR="10.0.0.2"), kind, host.code, path, host.seat, guest.token)
    assert answer.status_code == 403, answer.content[:300]
    assert _room_counts(host.code) == (0, 0)


def test_the_room_budget_still_stops_its_own_seats(releases, settings):
    settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = 3
    host, guest = _lobby()
    for _ in range(3):
        assert guest.post(f"/seats/{guest.seat}/away", {"away": True}).status_code == 200
    over = host.post(f"/seats/{guest.seat}/away", {"away": False})
    assert over.status_code == 429 and "this room" in over.json()["error"]


def test_token_less_play_again_from_several_addresses_leaves_the_hosts_start_working(releases, limits):
    """4–5 token-less ``POST …/again`` used to block the host's start for the rest of the minute."""
    host, _guest = _lobby()
    for number in range(1, 6):
        stranger = _stranger(number)
        for _ in range(limits.KARTOTHEK_PLAY_GAME_LIMIT + 2):
            for route in ("again", "start"):
                assert stranger.post(f"/api/play/rooms/{host.code}/{route}", "{}",
                                     content_type="application/json").status_code == 403
            assert stranger.post(f"/play/{host.code}/host/again").status_code == 403
            assert stranger.post(f"/play/{host.code}/host/start").status_code == 403
    assert _room_counts(host.code) == (0, 0)
    assert host.post("/start").status_code == 200
    assert _room_counts(host.code) == (1, 1)


def test_four_addresses_of_token_less_writes_leave_real_moves_unthrottled(releases, limits):
    """4 addresses × their whole write limit of token-less writes is more than the room's
    budget: the room's players still move (the limits scaled down 6× from production's 240
    per client and 900 per room, the same shape)."""
    settings = limits
    settings.KARTOTHEK_PLAY_WRITE_LIMIT = 40
    settings.KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = 150
    host, guest = _lobby("slogan")
    assert host.post("/start").status_code == 200
    paths = ["/actions", "/bots", f"/seats/{guest.seat}/away", "/again", "/teams"]
    answers = []
    for number in range(1, 5):
        stranger = _stranger(number)
        for n in range(settings.KARTOTHEK_PLAY_WRITE_LIMIT + 5):
            headers = {"HTTP_AUTHORIZATION": "Bearer forged"} if n % 2 else {}
            answers.append(stranger.post(f"/api/play/rooms/{host.code}{paths[n % len(paths)]}",
                                         json.dumps({"version": 0, "action": {"type": "noop"}}),
                                         content_type="application/json", **headers).status_code)
    assert set(answers) == {403, 429} and answers.count(403) == 4 * settings.KARTOTHEK_PLAY_WRITE_LIMIT
    assert _room_counts(host.code) == (1, 1)  # the host's start alone
    for _ in range(6):  # the game goes on: every real move is applied
        body = host.body()
        mover = host if body["legal_actions"] else guest
        legal = mover.body()
        answer = mover.act(legal["legal_actions"][0], legal["version"])
        assert answer.status_code == 200, answer.content[:300]


def test_the_tables_host_token_is_charged_to_the_room_and_a_forged_one_is_not(releases, limits):
    made = Client().post("/api/play/rooms", {"game": "sauschwer", "language": "en", "seat": False},
                         content_type="application/json").json()
    code, host_token = made["code"], made["host_token"]
    ada = join(Client(), code, "Ada")
    bea = join(Client(), code, "Bea")
    for number in range(1, 4):
        forged = _stranger(number)
        answer = forged.post(f"/api/play/rooms/{code}/seats/{bea.seat}/host", "{}",
                             content_type="application/json", HTTP_AUTHORIZATION="Bearer forged")
        assert answer.status_code == 403
        forged.cookies["kt_table_" + code] = "forged"
        assert forged.post(f"/play/{code}/table/host", {"seat": bea.seat}).status_code == 403
    assert _room_counts(code) == (0, 0)
    answer = Client().post(f"/api/play/rooms/{code}/seats/{bea.seat}/host", "{}",
                           content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {host_token}")
    assert answer.status_code == 200, answer.content[:300]
    table = Client()
    table.cookies["kt_table_" + code] = host_token
    assert table.post(f"/play/{code}/table/host", {"seat": ada.seat}).status_code == 302
    assert _room_counts(code) == (2, 0)
