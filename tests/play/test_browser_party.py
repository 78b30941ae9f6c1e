"""The party test's findings in the browser: the home page and the 404 page at 360 px, a
room opened "table only" from the lobby form, the favicon under the CSP, the turn cue, and a
second tab of the same seat."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import rooms
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import (
    LAPTOP,
    PHONE,
    WAIT,
    act,
    assert_fits,
    fresh_room_caches,  # noqa: F401  (autouse)
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def console_errors(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    return errors


def test_the_home_page_fits_a_360_px_phone_with_the_join_button_in_view(live_server, browser):
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    errors = console_errors(page)
    try:
        page.goto(f"{live_server.url}/play/")
        assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
        box = page.get_by_role("button", name="Join", exact=True).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        assert_fits(page)
        page.set_viewport_size(LAPTOP)
        assert_fits(page)
        page.set_viewport_size(PHONE)
        # The favicon is a static SVG the CSP allows: no page logs a CSP error for it.
        page.reload()
        assert not [e for e in errors if "Content Security Policy" in e or "favicon" in e], errors
        icon = page.evaluate("document.querySelector('link[rel=icon]').href")
        assert page.request.get(icon).headers["content-type"].startswith("image/svg+xml")
    finally:
        context.close()


@pytest.mark.parametrize("language, title, back", [
    ("en", "No such room", "Back to joining a room"),
    ("de", "Diesen Raum gibt es nicht", "Zurück zum Beitreten"),
])
def test_a_wrong_room_code_shows_a_play_page_with_the_way_back(live_server, browser, language, title, back):
    context = browser.new_context(viewport=PHONE, locale=language)
    page = context.new_page()
    try:
        response = page.goto(f"{live_server.url}/play/ZZZZZ/join")
        assert response is not None and response.status == 404
        expect(page.locator("h1")).to_have_text(title)
        expect(page.locator("html")).to_have_attribute("lang", language)
        assert_fits(page)
        page.get_by_role("link", name=back).click()
        expect(page).to_have_url(f"{live_server.url}/play/")
    finally:
        context.close()


def test_a_room_opened_table_only_from_the_lobby_shows_the_table_and_hands_the_controls_on(
        live_server, browser):
    release_of("sauschwer")
    laptop = browser.new_context(viewport=LAPTOP, locale="en-GB")
    table = laptop.new_page()
    phones = []
    try:
        table.goto(f"{live_server.url}/play/")
        table.locator("input[name=game][value=sauschwer]").check()
        table.locator("[data-table-only]").check()
        table.get_by_role("button", name="Open the room").click()  # no name needed
        expect(table).to_have_url(re.compile(r"/play/[A-Z0-9]+/table$"))
        code = table.url.rstrip("/").split("/")[-2]
        expect(table.locator(".table-host summary")).to_contain_text("the first phone to join")
        room = rooms.get_room(code)
        assert room.seats.count() == 0 and room.table_token_hash
        for name in ("Ada", "Ben", "Cleo"):
            phone = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
            phone.goto(f"{live_server.url}/play/{code}/join")
            phone.fill("#name", name)
            phone.click(".join-form button")
            expect(phone.locator(".room-lobby")).to_be_visible()
            phones.append(phone)
        ada, ben, _cleo = phones
        expect(ada.locator("text=Start the game")).to_be_visible()  # the first phone is the host
        expect(ben.locator("text=Start the game")).to_have_count(0)
        expect(table.locator(".table-host summary")).to_contain_text("Host controls: Ada", timeout=WAIT)
        give = table.get_by_role("button", name="Give to Ben")
        if not give.is_visible():
            table.locator(".table-host summary").click()
        give.click()
        expect(table.locator(".table-host summary")).to_contain_text("Host controls: Ben")
        ben.reload()
        ben.locator("text=Start the game").click()
        for phone in phones:
            expect(phone.locator(".game.seat-view")).to_be_visible(timeout=WAIT)
        expect(table.locator(".game.table-view")).to_be_visible(timeout=WAIT)
        # The table is no seat: it never shows a hand.
        expect(table.locator(".place-buttons")).to_have_count(0)
        assert_fits(table, table=True)
    finally:
        for phone in phones:
            phone.context.close()
        laptop.close()


BUZZ = "navigator.vibrate = (pattern) => { window.__buzz = (window.__buzz || 0) + 1; return true; };"


def test_your_turn_changes_the_tab_title_and_buzzes_when_the_cue_is_on(live_server, browser):
    table = open_table(browser, live_server.url, "sauschwer", ["Ada", "Ben", "Cleo"], table_only=True,
                       options={"rounds": 1, "first_player": "p1"})
    try:
        ada, ben, _cleo = table.players
        ben.context.add_init_script(BUZZ)
        ben.page.reload()
        toggle = ben.page.locator("#cue-toggle")
        expect(toggle).to_have_attribute("aria-pressed", "false")
        toggle.click()
        expect(toggle).to_have_attribute("aria-pressed", "true")
        expect(toggle).to_contain_text("on")
        assert not ben.page.title().startswith("●")
        assert ada.page.title().startswith("● Your turn – ")
        act(table, ada, {"type": "place", "card": table.state()["hands"]["p1"][0], "helmut": "red"})
        # Ben's turn to place (Cleo's to stop or wait): his title and his buzz.
        ben.page.wait_for_function("document.title.startsWith('● Your turn')", timeout=WAIT)
        assert ben.page.evaluate("window.__buzz || 0") >= 1
        assert not ada.page.title().startswith("●")
    finally:
        table.close()


def test_a_second_tab_of_the_same_seat_says_so(live_server, browser):
    table = open_table(browser, live_server.url, "slogan", ["Ada", "Ben", "Cleo"], table_only=True)
    try:
        ada = table.players[0]
        expect(ada.page.locator("#other-tab")).to_be_hidden()
        second = ada.context.new_page()
        second.goto(f"{table.base}/play/{table.room.code}/")
        for page in (ada.page, second):
            expect(page.locator("#other-tab")).to_be_visible(timeout=WAIT)
            expect(page.locator("#other-tab")).to_contain_text("open in another tab")
        expect(table.players[1].page.locator("#other-tab")).to_be_hidden()
    finally:
        table.close()
