"""The pages learn of a move from the event stream, not by polling, and fall back to polling
when the stream is cut (issue 20): Chromium against a real ASGI server (uvicorn)."""

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from games import rooms
from tests.play.core_helpers import release_of
from tests.play.sse_helpers import Server
from tests.play.ui_helpers import PHONE, fresh_room_caches  # noqa: F401  (autouse)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _lobby_page(browser, server, room, token, *, cut_stream: bool):
    context = browser.new_context(viewport=PHONE)
    context.add_cookies([{"name": f"kt_seat_{room.code}", "value": token, "url": server.url}])
    page = context.new_page()
    seen = {"polls": 0, "streams": 0}

    def count(request):
        if request.url.endswith(f"/api/play/rooms/{room.code}") and request.method == "GET":
            seen["polls"] += 1
        if f"/api/play/rooms/{room.code}/events" in request.url:
            seen["streams"] += 1

    page.on("request", count)
    if cut_stream:
        page.route("**/events*", lambda route: route.abort())
    page.goto(f"{server.url}/play/{room.code}/")
    return context, page, seen


def test_a_joiner_reaches_the_hosts_screen_through_the_stream_without_polls(browser):
    release_of("sauschwer")
    room, host = rooms.open_room(game="sauschwer", language="en", name="Ada")
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as server:
        context, page, seen = _lobby_page(browser, server, room, host.token, cut_stream=False)
        try:
            page.wait_for_timeout(1500)  # the stream is open, its first event drawn
            rooms.join(rooms.get_room(room.code), name="Ben")
            expect(page.locator("body")).to_contain_text("Ben", timeout=3000)
            assert seen["streams"] >= 1
            assert seen["polls"] == 0, seen
        finally:
            context.close()


def test_a_cut_stream_falls_back_to_polling_and_the_page_stays_live(browser):
    release_of("sauschwer")
    room, host = rooms.open_room(game="sauschwer", language="en", name="Ada")
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as server:
        context, page, seen = _lobby_page(browser, server, room, host.token, cut_stream=True)
        try:
            page.wait_for_timeout(1500)
            rooms.join(rooms.get_room(room.code), name="Cleo")
            expect(page.locator("body")).to_contain_text("Cleo", timeout=5000)
            assert seen["polls"] >= 1, seen
        finally:
            context.close()
