"""Moves the rules make at the same time are never "too late" for each other (issue 39, 8):
Sauschwer's secret markers sent at once by several phones all count, on a real server (threads
over HTTP; PostgreSQL too) and in Chromium (two phones tapping together), while a move of a
turn, or one made before anything else happened, is still refused as stale."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
from django.db import connections
from playwright.sync_api import Route, expect

from games import rooms
from games.models import ActionLog, Room
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import WAIT, click_action, fresh_room_caches, open_table  # noqa: F401

ATTEMPTS = 8


def _post(url: str, token: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def _together(url: str, sends: list[tuple[str, dict[str, Any]]]) -> list[int]:
    """POST each (token, body) to the live server from its own thread, released at once."""
    barrier = threading.Barrier(len(sends))
    statuses = [0] * len(sends)
    problems: list[BaseException] = []

    def run(index: int, token: str, body: dict[str, Any]) -> None:
        try:
            barrier.wait(timeout=10)
            statuses[index] = _post(url, token, body)[0]
        except BaseException as exc:  # reported in the main thread
            problems.append(exc)

    threads = [threading.Thread(target=run, args=(i, *send)) for i, send in enumerate(sends)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not problems, problems
    return statuses


def _at_markers(players: int, attempt: int) -> tuple[Room, dict[str, Any]]:
    """A Sauschwer room of ``players`` whose first round is in the markers phase (p1 placed,
    p2 doubted); the seats by id."""
    room, host = rooms.open_room(game="sauschwer", language="en", name="P1",
                                 options={"first_player": "p1", "rounds": 1})
    seats = {"p1": host, **{f"p{n}": rooms.join(room, name=f"P{n}") for n in range(2, players + 1)}}
    room = rooms.start(room, host)
    card = rooms.room_state(room)["hands"]["p1"][0]
    rooms.act(room.code, host, action_id=f"place-{attempt}", version=room.version,
              action={"type": "place", "card": card, "helmut": "red"})
    version = Room.objects.get(pk=room.pk).version
    rooms.act(room.code, seats["p2"], action_id=f"stop-{attempt}", version=version,
              action={"type": "stop"})
    room = Room.objects.get(pk=room.pk)
    assert rooms.room_state(room)["phase"] == "markers"
    return room, seats


SIDE = {"p1": "red", "p2": "violet", "p3": "red", "p4": "violet"}  # p1 backs Helmut, p2 doubts


@pytest.mark.slow
@pytest.mark.postgres  # CI runs it again on PostgreSQL (row locks there, not queued writers)
@pytest.mark.django_db(transaction=True)
def test_every_seats_secret_marker_sent_at_once_counts(live_server):
    release_of("sauschwer")
    for attempt in range(ATTEMPTS):
        room, seats = _at_markers(4, attempt)
        url = f"{live_server.url}/api/play/rooms/{room.code}/actions"
        statuses = _together(url, [
            (seat.token, {"id": f"marker-{attempt}-{sid}", "version": room.version,
                          "action": {"type": "marker", "side": SIDE[sid]}})
            for sid, seat in seats.items()])
        assert statuses == [200] * 4, (attempt, statuses)
        fresh = Room.objects.get(pk=room.pk)
        assert ActionLog.objects.filter(room=fresh, action__type="marker").count() == 4
        assert fresh.version == room.version + 4
        assert fresh.status == Room.Status.FINISHED  # the one round was weighed and scored
    connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_a_move_after_anything_but_other_seats_markers_is_still_stale(live_server):
    release_of("sauschwer")
    room, host = rooms.open_room(game="sauschwer", language="en", name="P1",
                                 options={"first_player": "p1", "rounds": 1})
    ben, cleo = rooms.join(room, name="P2"), rooms.join(room, name="P3")
    room = rooms.start(room, host)
    url = f"{live_server.url}/api/play/rooms/{room.code}/actions"
    placed_at = room.version
    card = rooms.room_state(room)["hands"]["p1"][0]
    assert _post(url, host.token, {"id": "place", "version": placed_at,
                                   "action": {"type": "place", "card": card, "helmut": "red"}})[0] == 200
    stop_at = placed_at + 1
    assert _post(url, ben.token, {"id": "stop", "version": stop_at, "action": {"type": "stop"}})[0] == 200
    # A turn's move against an old state: Cleo's stop after Ben's is too late.
    status, body = _post(url, cleo.token, {"id": "stop-2", "version": stop_at, "action": {"type": "stop"}})
    assert status == 409 and "faster" in body["error"]
    # A marker chosen before the stop (a placement and a stop came since) is stale too.
    status, body = _post(url, cleo.token, {"id": "early", "version": stop_at,
                                           "action": {"type": "marker", "side": "red"}})
    assert status == 409
    markers_at = stop_at + 1
    assert _post(url, cleo.token, {"id": "m3", "version": markers_at,
                                   "action": {"type": "marker", "side": "red"}})[0] == 200
    # The same seat's second marker (a double tap) at the old version: refused, the first counts.
    status, body = _post(url, cleo.token, {"id": "m3-again", "version": markers_at,
                                           "action": {"type": "marker", "side": "violet"}})
    assert status == 409
    # Another seat's marker at that version still counts: only Cleo's marker came in since.
    assert _post(url, ben.token, {"id": "m2", "version": markers_at,
                                  "action": {"type": "marker", "side": "violet"}})[0] == 200
    state = rooms.room_state(Room.objects.get(pk=room.pk))
    assert state["markers"] == {"p3": "red", "p2": "violet"}
    connections.close_all()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_two_phones_tapping_their_secret_markers_together_both_count(live_server, browser):
    table = open_table(browser, live_server.url, "sauschwer", ["Ada", "Ben", "Cleo", "Dora"],
                       options={"rounds": 1, "first_player": "p1", "opening_side": "violet"})
    try:
        ada, ben, cleo, dora = table.players
        click_action(ada.page, {"type": "place", "card": _room_card(table, "p1"), "helmut": "red"})
        expect(ben.page.locator("button.stop")).to_be_visible(timeout=WAIT)
        ben.page.locator("button.stop").click()
        for player in (cleo, dora):
            expect(player.page.locator(".marker-buttons button")).to_have_count(2, timeout=WAIT)
        version = table.version()
        table.wait_version(version)
        # Both taps leave their phones at the same version; their requests are held until both
        # are sent, then go on together: the second reaches the server after the first applied.
        held: list[Route] = []

        def hold(route: Route) -> None:
            if route.request.method == "POST":
                held.append(route)
            else:
                route.continue_()

        for player in (cleo, dora):
            player.page.route("**/api/play/rooms/*/actions", hold)
        click_action(cleo.page, {"type": "marker", "side": "red"})
        click_action(dora.page, {"type": "marker", "side": "violet"})
        deadline = 200
        while len(held) < 2 and deadline:
            cleo.page.wait_for_timeout(25)  # lets the route handlers run (the sync API's loop)
            deadline -= 1
        assert len(held) == 2, "both taps were sent"
        assert all(json.loads(r.request.post_data or "{}")["version"] == version for r in held)
        for route in held:
            route.continue_()
        expect(cleo.page.locator(".your-marker")).to_contain_text("red", timeout=WAIT)
        expect(dora.page.locator(".your-marker")).to_contain_text("violet", timeout=WAIT)
        for player in (cleo, dora):
            expect(player.page.locator("#rejected")).not_to_contain_text("Too late")
        state = table.state()
        assert state["markers"] == {"p3": "red", "p4": "violet"}
        # Each phone shows its own marker only; the others' stay hidden until all are in.
        expect(cleo.page.locator(".your-marker")).not_to_contain_text("violet")
        expect(dora.page.locator(".your-marker")).not_to_contain_text("red")
        expect(table.table.locator(".your-marker")).to_have_count(0)
    finally:
        table.close()


def _room_card(table: Any, seat: str) -> str:
    from games import cardids

    room = Room.objects.get(pk=table.room.pk)
    key = table.state()["hands"][seat][0]
    return cardids.translate({"card": key}, rooms.card_maps(room)[0])["card"]
