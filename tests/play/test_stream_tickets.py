"""A seat's stream from a page on another origin (CONTRACT: stream tickets, CORS, streams end):
``POST rooms/CODE/stream-tickets`` with the seat's token, then ``GET …/events?ticket=…`` as a
browser's EventSource opens it, against a real ASGI server (uvicorn on loopback); and every
open stream ends with ``event: closed`` when its room is deleted or closes."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import httpx
import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.utils import timezone

from games.models import Room, StreamTicket
from tests.play.core_helpers import all_releases, open_room, table
from tests.play.sse_helpers import Server, stream
from tests.play.test_events import bearer, events_url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(name="server")
def running_server(transactional_db):  # type: ignore[no-untyped-def]
    all_releases()
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as running:
        yield running

GAME = "http://127.0.0.1:8123"  # the web game's origin (CONTRACT: two loopback ports)


def ticket_of(player) -> dict:  # type: ignore[no-untyped-def]
    response = player.post("/stream-tickets")
    assert response.status_code == 201, response.content
    assert response["Cache-Control"] == "no-store"
    return response.json()


def refused(url: str) -> httpx.Response:
    response = httpx.get(url, timeout=10)
    assert response.status_code == 403, response.text[:300]
    assert response.headers["content-type"] == "application/json"  # before any stream started
    assert "ticket" in response.json()["error"]
    return response


def test_a_ticket_opens_its_seats_stream_once(server):
    host, guest = table("sauschwer", 2)
    made = ticket_of(guest)
    assert set(made) == {"ticket", "expires_in", "events_url"} and made["expires_in"] == 30
    assert made["events_url"] == f"/api/play/rooms/{host.code}/events?ticket={made['ticket']}"
    with stream(server.url + made["events_url"]) as events:
        assert events.status == 200
        first = events.next()
        assert first.kind == "room" and first.body == guest.body()
    refused(server.url + made["events_url"])  # used: an EventSource's reconnect gets a 403


def test_a_ticket_shows_only_its_own_seats_view(server):
    players = table("sauschwer", 3)
    opened = {p.seat: stream(server.url + ticket_of(p)["events_url"]) for p in players}
    try:
        streams = {seat: s.__enter__() for seat, s in opened.items()}
        for player in players:
            body = streams[player.seat].next().body
            assert body["you"] == player.seat and body == player.body()
        views = [json.dumps(p.body()["view"], sort_keys=True) for p in players]
        assert len(set(views)) == len(views)  # the seats' views differ: none saw another's
        mover = next(p for p in players if p.body()["legal_actions"])
        action = next(a for a in mover.body()["legal_actions"] if a["type"] == "place")
        assert mover.act(action).status_code == 200
        for player in players:
            event = streams[player.seat].next()
            assert event.body["you"] == player.seat and event.body == player.body()
    finally:
        for s in opened.values():
            s.__exit__(None, None, None)


def test_a_bearer_token_beside_a_ticket_changes_nothing(server):
    host, guest = table("sauschwer", 2)
    made = ticket_of(guest)
    with stream(server.url + made["events_url"], bearer(host)) as events:
        assert events.next().body["you"] == guest.seat  # the ticket's seat, not the header's


def test_an_expired_ticket_is_refused_and_expire_rooms_forgets_it(server):
    host, _guest = table("sauschwer", 2)
    made = ticket_of(host)
    StreamTicket.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    refused(server.url + made["events_url"])
    call_command("expire_rooms", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert not StreamTicket.objects.exists()


def test_a_ticket_of_another_room_is_refused_and_still_opens_its_own(server):
    host, _guest = table("sauschwer", 2)
    other, _ = table("sauschwer", 2)
    made = ticket_of(host)
    refused(f"{events_url(server, other.code)}?ticket={made['ticket']}")
    with stream(server.url + made["events_url"]) as events:
        assert events.next().body["you"] == host.seat


@pytest.mark.parametrize("ticket", [
    "", "x", "A" * 32, "A" * 5000, "../../etc/passwd", "%ff%fe", "%C3%BC" * 20, "a b c",
    "ticket=nested", "%F0%9F%83%8F" * 10, "-" * 40,
])
def test_a_forged_ticket_is_a_json_403_never_a_5xx(server, ticket):
    host, _guest = table("sauschwer", 2)
    refused(f"{events_url(server, host.code)}?ticket={ticket}")
    assert not StreamTicket.objects.filter(used=True).exists()


def test_a_ticket_with_a_nul_is_a_json_400_before_any_stream(server):
    # kartothek/storable_text.py: refused at the door, on the real server (uvicorn)
    host, _guest = table("sauschwer", 2)
    response = httpx.get(f"{events_url(server, host.code)}?ticket=%00%ff", timeout=10)
    assert response.status_code == 400, response.text[:300]
    assert response.headers["content-type"] == "application/json"
    assert "cannot be stored" in response.json()["error"]


@pytest.mark.parametrize(("who", "status"), [
    ("host", 201), ("guest", 201),
    ("no token", 403), ("another room's seat", 403), ("a removed seat", 403),
    ("the table's host token", 403), ("a garbage token", 403),
    ("the host, unknown room", 404),
])
def test_who_may_make_a_ticket(who, status):
    """The permission table of ``POST rooms/CODE/stream-tickets``: a seat of the room, by its
    own token; nobody else (the table needs no ticket: ``?as=table``)."""
    all_releases()
    host, guest, third = table("sauschwer", 3)
    other, _ = table("sauschwer", 2)
    assert host.post("/seats/p3/remove").status_code == 200
    table_room = Client().post("/api/play/rooms", {"game": "sauschwer", "language": "en", "seat": False},
                               content_type="application/json").json()
    tokens = {"host": host.token, "guest": guest.token, "no token": None,
              "another room's seat": other.token, "a removed seat": third.token,
              "the table's host token": table_room["host_token"], "a garbage token": "x" * 40,
              "the host, unknown room": host.token}
    code = "ZZZZZZZZ" if who.endswith("unknown room") else (
        table_room["code"] if who.startswith("the table") else host.code)
    headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens[who]}"} if tokens[who] else {}
    response = Client().post(f"/api/play/rooms/{code}/stream-tickets", "{}",
                             content_type="application/json", **headers)
    assert response.status_code == status, response.content
    assert ("ticket" in response.json()) == (status == 201)
    assert StreamTicket.objects.count() == (1 if status == 201 else 0)


def test_making_tickets_counts_as_a_play_write():
    all_releases()
    host = open_room(Client(), "sauschwer")
    with override_settings(KARTOTHEK_PLAY_WRITE_LIMIT=2):
        answers = [host.post("/stream-tickets").status_code for _ in range(3)]
    assert answers == [201, 201, 429]


def test_no_ticket_reaches_a_log(caplog):
    all_releases()
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    access = logging.getLogger("uvicorn.access")
    access.addHandler(handler)
    try:
        with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), \
                Server(access_log=True) as running, caplog.at_level(logging.INFO):
            host, _guest = table("sauschwer", 2)
            made = ticket_of(host)
            with stream(running.url + made["events_url"]) as events:
                events.next()
            refused(running.url + made["events_url"])  # a 403 is logged by Django too
    finally:
        access.removeHandler(handler)
    server_side = [r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    logged = "\n".join(lines + server_side)  # (the test's own HTTP client logs its URLs)
    assert f"/api/play/rooms/{host.code}/events" in logged  # the requests were logged
    assert made["ticket"] not in logged


# --- cross-origin: the stream's own route (kartothek/asgi.py) carries the headers too -------


def test_a_stream_and_its_preflight_answer_an_allowed_origin_only(server):
    host, _guest = table("sauschwer", 2)
    made = ticket_of(host)
    url = server.url + made["events_url"]
    with override_settings(CORS_ALLOWED_ORIGINS=[GAME]):
        preflight = httpx.options(url, headers={
            "Origin": GAME, "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "last-event-id"})
        assert preflight.status_code in (200, 204)
        assert preflight.headers["access-control-allow-origin"] == GAME
        assert "last-event-id" in preflight.headers["access-control-allow-headers"]
        with stream(url, {"Origin": GAME}) as events:
            assert events.headers["access-control-allow-origin"] == GAME
            assert "access-control-allow-credentials" not in events.headers
            assert events.next().body["you"] == host.seat
        with stream(events_url(server, host.code) + "?as=table",
                    {"Origin": "https://elsewhere.example"}) as elsewhere:
            assert elsewhere.status == 200
            assert "access-control-allow-origin" not in elsewhere.headers


# --- streams end when their room goes ------------------------------------------------------


def _ends_with_closed(events, status: int = 404) -> None:  # type: ignore[no-untyped-def]
    last = events.next(timeout=4)
    assert last.kind == "closed", last
    assert json.loads(last.data)["status"] == status
    with pytest.raises(AssertionError, match="the stream ended"):
        events.next(timeout=4)


def _gone_from_the_database_alone(code: str) -> None:
    """What another server process's delete looks like here: the rows go, nobody is told."""
    with connection.cursor() as cursor:
        for table_name in ("games_seat", "games_actionlog", "games_streamticket"):
            cursor.execute(f"DELETE FROM {table_name} WHERE room_id IN "
                           "(SELECT id FROM games_room WHERE code = %s)", [code])
        cursor.execute("DELETE FROM games_room WHERE code = %s", [code])


@pytest.mark.parametrize("how", ["expire_rooms", "the admin's delete", "another process"])
def test_every_stream_of_a_deleted_room_gets_closed(server, settings, how):
    settings.KARTOTHEK_PLAY_EVENTS_HEARTBEAT = 1  # read as a stream opens
    host, guest = table("sauschwer", 2)
    urls = [(events_url(server, host.code), bearer(host)), (events_url(server, host.code), None),
            (server.url + ticket_of(guest)["events_url"], None)]
    opened = [stream(url, headers) for url, headers in urls]
    streams = [s.__enter__() for s in opened]
    try:
        for events in streams:
            events.next()
        if how == "expire_rooms":
            Room.objects.filter(code=host.code).update(last_activity=timezone.now() - timedelta(days=3))
            call_command("expire_rooms", stdout=open("/dev/null", "w"))  # noqa: SIM115
        elif how == "the admin's delete":
            Room.objects.get(code=host.code).delete()
        else:  # heard of by no one: SQLite's version check or, on PostgreSQL, the keep-alive
            _gone_from_the_database_alone(host.code)
        assert not Room.objects.filter(code=host.code).exists()
        for events in streams:
            _ends_with_closed(events)
    finally:
        for s in opened:
            s.__exit__(None, None, None)


def test_a_room_that_closed_unvisited_ends_its_stream_at_the_next_keep_alive(server):
    """Nobody deleted it: it outlived KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS while its players left."""
    host, _guest = table("sauschwer", 2)
    with override_settings(KARTOTHEK_PLAY_EVENTS_HEARTBEAT=0.5), \
            stream(events_url(server, host.code), bearer(host)) as events:
        events.next()
        Room.objects.filter(code=host.code).update(last_activity=timezone.now() - timedelta(days=3))
        _ends_with_closed(events)
    assert not Room.objects.filter(code=host.code).exists()  # closed for good on the way
