"""The pages stay live: they poll the room about once a second with If-None-Match, pause while
hidden, poll at once when shown again, and come back to their seat after a reload."""

import time

import pytest
from playwright.sync_api import expect

from games import rooms
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import PHONE, fresh_room_caches  # noqa: F401  (autouse)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HIDE = """() => {
  Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true});
  document.dispatchEvent(new Event('visibilitychange'));
}"""
SHOW = """() => {
  Object.defineProperty(document, 'visibilityState', {value: 'visible', configurable: true});
  document.dispatchEvent(new Event('visibilitychange'));
}"""


def test_a_hidden_page_stops_polling_and_a_shown_one_polls_at_once(live_server, browser):
    release_of("sauschwer")
    room, host = rooms.open_room(game="sauschwer", language="en", name="Ada")
    context = browser.new_context(viewport=PHONE)
    context.add_cookies([{"name": f"kt_seat_{room.code}", "value": host.token,
                          "url": live_server.url}])
    page = context.new_page()
    polls: list[tuple[float, str | None]] = []
    page.on("request", lambda r: polls.append((time.monotonic(), r.headers.get("if-none-match")))
            if r.url.endswith(f"/api/play/rooms/{room.code}") and r.method == "GET" else None)
    try:
        page.goto(f"{live_server.url}/play/{room.code}/")
        page.wait_for_timeout(3500)
        assert 2 <= len(polls) <= 5
        assert any(tag for _, tag in polls[1:])  # later polls ask "changed since this ETag?"
        page.evaluate(HIDE)
        page.wait_for_timeout(300)
        hidden_at = len(polls)
        page.wait_for_timeout(3000)
        assert len(polls) == hidden_at
        page.evaluate(SHOW)
        page.wait_for_timeout(400)
        assert len(polls) == hidden_at + 1
    finally:
        context.close()


def test_a_new_joiner_appears_in_the_lobby_and_a_reload_keeps_the_seat(live_server, browser):
    release_of("sauschwer")
    room, host = rooms.open_room(game="sauschwer", language="en", name="Ada")
    context = browser.new_context(viewport=PHONE)
    context.add_cookies([{"name": f"kt_seat_{room.code}", "value": host.token,
                          "url": live_server.url}])
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/play/{room.code}/")
        expect(page.locator(".lobby-seats li")).to_have_count(1)
        rooms.join(room, name="Ben")  # another phone joins: no reload needed here
        expect(page.locator(".lobby-seats li")).to_have_count(2, timeout=4000)
        page.reload()
        expect(page.locator(".seat-row.you")).to_contain_text("Ada")
        expect(page.locator("text=Start the game")).to_be_visible()
    finally:
        context.close()
