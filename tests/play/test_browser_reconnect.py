"""A phone that lost its connection notices, says so and catches up on its own (issue 39,
points 1, 3 and 6): within 3 s of the network's return every page shows the room's current
version, whether its stream died loudly or silently; the notices (reconnecting, a refused
move, a second tab) show in the first screen and cover no button. Chromium against a real
ASGI server (uvicorn: the event streams) or the test's live server (no streams: polls)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import override_settings
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from games.models import Room
from tests.play.core_helpers import Player, all_releases, table
from tests.play.sse_helpers import Server, cuttable_streams
from tests.play.ui_helpers import LAPTOP, PHONE, act, fresh_room_caches, open_table  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CATCH_UP = 3000  # ms: the promise, after the network's return or a move

SHOWN = "() => { const h = document.querySelector('#live [data-version]');" \
        " return h ? parseInt(h.dataset.version, 10) : null; }"

# Every enabled button a notice's box meets (boxes in the viewport), and every one in the
# viewport that a tap at its middle would miss.
COVERED = """(selectors) => {
  const notes = selectors.map(s => document.querySelector(s))
    .filter(e => e && e.offsetHeight).map(e => e.getBoundingClientRect());
  const hits = [];
  for (const b of document.querySelectorAll("button, a.btn, summary")) {
    if (b.disabled || b.closest("[inert]")) continue;
    const r = b.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    for (const n of notes) {
      if (r.left < n.right && n.left < r.right && r.top < n.bottom && n.top < r.bottom) {
        hits.push(b.textContent.trim());
      }
    }
  }
  return hits;
}"""
MISSED = """() => [...document.querySelectorAll("#live button:not(:disabled)")].filter(b => {
  const r = b.getBoundingClientRect();
  if (!r.width || r.top < 0 || r.bottom > innerHeight) return false;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !(hit && b.contains(hit));
}).map(b => b.textContent.trim())"""


@pytest.fixture
def server(transactional_db) -> Iterator[Server]:
    all_releases()
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as running:
        yield running


class Screen:
    """A browser context on one page of the room, with the errors its console reports."""

    def __init__(self, browser: Any, base: str, code: str, seat: Player | None, *,
                 viewport: dict[str, int] = PHONE) -> None:
        self.context = browser.new_context(viewport=viewport, locale="en-GB")
        if seat is not None:
            self.context.add_cookies([{"name": f"kt_seat_{code}", "value": seat.token, "url": base}])
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.streams = 0
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        self.page.on("console", lambda message: self.errors.append(message.text)
                     if message.type == "error" and "Failed to fetch" in message.text else None)
        self.page.on("request", self._count)
        self.page.goto(f"{base}/play/{code}/" + ("" if seat else "table"))

    def _count(self, request: Any) -> None:
        if "/events" in request.url:
            self.streams += 1

    def shown(self) -> int | None:
        return self.page.evaluate(SHOWN)

    def catches_up(self, code: str, timeout: float = CATCH_UP) -> None:
        """The page shows the room's current version within ``timeout`` ms."""
        version = Room.objects.get(code=code).version
        self.page.wait_for_function(f"v => ({SHOWN})() === v", arg=version, timeout=timeout)


def active_of(players: list[Player]) -> Player:
    seat = players[0].body()["view"]["active"]
    return next(p for p in players if p.seat == seat)


def move(players: list[Player]) -> None:
    """The active seat places a card (through the API, as its own phone would)."""
    active = active_of(players)
    action = next(a for a in active.body()["legal_actions"] if a["type"] == "place")
    assert active.act(action).status_code == 200


def stream_open(screen: Screen, at_least: int = 1) -> None:
    """The page holds a stream that spoke (a ping comes every second)."""
    deadline = time.monotonic() + 10
    while screen.streams < at_least:
        assert time.monotonic() < deadline, "the page opened no stream"
        screen.page.wait_for_timeout(100)
    screen.page.wait_for_timeout(1200)  # its response, and a ping, have come


@pytest.fixture(params=["stream", "polls"])
def site(request, transactional_db) -> Iterator[tuple[str, str]]:
    """The server's address and how its pages learn of moves: uvicorn (``stream``) or the
    live server (``polls``: it serves no streams)."""
    if request.param == "stream":
        yield request.getfixturevalue("server").url, "stream"
        return
    all_releases()
    with override_settings(ALLOWED_HOSTS=["*"]):
        yield request.getfixturevalue("live_server").url, "polls"


def test_an_offline_phone_says_reconnecting_and_catches_up_within_3_s_of_the_network(browser, site):
    base, transport = site
    players = table("sauschwer", 3)
    code = players[0].code
    phone = Screen(browser, base, code, players[1])
    tv = Screen(browser, base, code, None, viewport=LAPTOP)
    try:
        for screen in (phone, tv):
            screen.catches_up(code)
            expect(screen.page.locator("#connection")).to_be_empty()
        if transport == "stream":
            stream_open(phone)
        for screen in (phone, tv):
            screen.context.set_offline(True)
        for screen in (phone, tv):
            status = screen.page.locator("#connection")
            expect(status).to_have_text("No connection: reconnecting…", timeout=CATCH_UP)
            expect(status).to_have_attribute("role", "status")  # announced, in words
            expect(status).to_be_in_viewport()
        move(players)
        move(players)
        phone.page.wait_for_timeout(5000)  # five seconds without a network (the status stays)
        expect(phone.page.locator("#connection")).to_have_text("No connection: reconnecting…")
        for screen in (phone, tv):
            screen.context.set_offline(False)
        for screen in (phone, tv):
            screen.catches_up(code)
            expect(screen.page.locator("#connection")).not_to_contain_text("reconnecting", timeout=500)
            expect(screen.page.locator("#connection")).to_be_empty(timeout=CATCH_UP)
        move(players)
        for screen in (phone, tv):
            screen.catches_up(code)
            assert screen.errors == []
    finally:
        phone.context.close()
        tv.context.close()


def test_a_move_tapped_offline_says_it_was_not_sent_and_goes_once_online(browser, server):
    players = table("sauschwer", 3)
    code = players[0].code
    active = active_of(players)
    phone = Screen(browser, server.url, code, active)
    try:
        phone.catches_up(code)
        before = Room.objects.get(code=code).version
        phone.context.set_offline(True)
        button = phone.page.locator("button[data-action]").first
        button.click()
        expect(phone.page.locator("#toast")).to_have_text(
            "Not sent: no connection. Try again once it is back.")
        expect(phone.page.locator("#connection")).to_contain_text("reconnecting")
        assert Room.objects.get(code=code).version == before
        expect(phone.page.locator("#live")).not_to_have_attribute("aria-busy", "true")
        phone.context.set_offline(False)
        expect(phone.page.locator("#connection")).not_to_contain_text("reconnecting", timeout=CATCH_UP)
        phone.page.locator("button[data-action]").first.click()
        expect(phone.page.locator("#live [data-version]")).to_have_attribute(
            "data-version", str(before + 1), timeout=CATCH_UP)
        assert phone.errors == []
    finally:
        phone.context.close()


def test_a_stream_that_falls_silent_is_noticed_and_the_page_catches_up_within_3_s(browser, server):
    players = table("sauschwer", 3)
    code = players[0].code
    with cuttable_streams() as streams:
        phone = Screen(browser, server.url, code, players[1])
        tv = Screen(browser, server.url, code, None, viewport=LAPTOP)
        try:
            for screen in (phone, tv):
                stream_open(screen)
            streams.cut()  # no byte more, the connections kept open: no error event
            move(players)
            for screen in (phone, tv):
                screen.catches_up(code)
            # the silent stream is hung up and a new one opened; it brings the next move
            for screen in (phone, tv):
                stream_open(screen, at_least=2)
            move(players)
            for screen in (phone, tv):
                screen.catches_up(code)
            # a stream the server ends (an error event): the page looks at once
            streams.cut(loud=True)
            move(players)
            for screen in (phone, tv):
                screen.catches_up(code)
                assert screen.errors == []
        finally:
            phone.context.close()
            tv.context.close()


def test_a_new_stream_that_never_answers_leaves_the_page_live_by_polls(browser, server):
    players = table("sauschwer", 3)
    code = players[0].code
    with cuttable_streams() as streams:
        phone = Screen(browser, server.url, code, players[1])
        try:
            stream_open(phone)
            waiting: list[Any] = []
            phone.page.route("**/events*", lambda route: waiting.append(route))  # asked, never answered
            streams.cut()
            move(players)
            phone.catches_up(code)
            phone.page.wait_for_timeout(6000)  # the silent stream hung up, the new one hangs
            assert waiting, "the page did not try a new stream"
            move(players)
            phone.catches_up(code)
            assert phone.errors == []
        finally:
            phone.context.close()


def test_the_second_tab_warning_shows_in_the_first_screen_and_goes_when_that_tab_does(
        browser, server):
    players = table("sauschwer", 3)
    code = players[0].code
    phone = Screen(browser, server.url, code, players[1])
    try:
        warning = phone.page.locator("#other-tab")
        expect(warning).to_be_hidden()
        for goes in ("closed", "crashed"):
            second = phone.context.new_page()
            second.goto(f"{server.url}/play/{code}/")
            for page in (phone.page, second):
                expect(page.locator("#other-tab")).to_contain_text("open in another tab")
                expect(page.locator("#other-tab")).to_be_in_viewport(ratio=1)
                box = page.locator("#other-tab").bounding_box()
                assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
                assert page.evaluate(COVERED, ["#other-tab"]) == []
            if goes == "closed":  # as a player closes a tab: "pagehide" says goodbye
                second.close(run_before_unload=True)
            else:  # the tab crashes: no goodbye, its word runs out
                with contextlib.suppress(PlaywrightError):  # the navigation dies with it
                    second.goto("chrome://crash", timeout=3000)
            expect(warning).to_be_hidden(timeout=CATCH_UP)
            if goes == "crashed":
                second.close()
    finally:
        phone.context.close()


def _too_late(page: Page) -> None:
    """The refused-move notices are shown, in the viewport, over no button."""
    expect(page.locator("#rejected")).to_have_text("Too late: someone was faster.")
    expect(page.locator("#toast")).to_contain_text("Someone was faster")
    for notice in ("#rejected", "#toast"):
        expect(page.locator(notice)).to_be_in_viewport(ratio=1)
    page.wait_for_function(f"() => ({COVERED})(['#rejected', '#toast']).length === 0", timeout=1000)


def test_a_too_late_message_covers_no_button_and_the_buttons_still_work(live_server, browser):
    table_ = open_table(browser, live_server.url, "sauschwer", ["Ada", "Ben", "Cleo"], table_only=True,
                        options={"rounds": 1, "first_player": "p1"})
    try:
        ada, ben, cleo = table_.players
        act(table_, ada, {"type": "place", "card": table_.state()["hands"]["p1"][0], "helmut": "red"})
        # Cleo's phone stops hearing about the room (a slow network) while Ben calls first.
        cleo.page.route("**/api/play/rooms/*", lambda route: route.abort()
                        if route.request.method == "GET" else route.continue_())
        ben.page.locator("button.stop").click()
        expect(ben.page.locator(".marker-buttons button")).to_have_count(1)
        cleo.page.locator("button.stop").click()
        _too_late(cleo.page)
        expect(cleo.page.locator(".marker-buttons button")).to_have_count(2)
        _too_late(cleo.page)
        assert cleo.page.evaluate(MISSED) == []  # a tap on any button reaches it
    finally:
        table_.close()
