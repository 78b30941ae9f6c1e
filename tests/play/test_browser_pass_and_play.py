"""Pass and play: one phone handed round; before each private step it names the next player
and shows nothing private until that player taps."""

import pytest
from playwright.sync_api import expect

from games import rooms
from tests.engines.packs import EXAMPLE_BOARD
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import (
    PHONE,
    WAIT,
    curator,
    fresh_room_caches,  # noqa: F401  (autouse)
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_one_phone_passed_round_plays_sags_mit_symbolen(live_server, browser):
    release_of("symbols")
    room, host = rooms.open_room(
        game="symbols", language="en", name="Ada", user=curator(), seed="pp", pass_and_play=True,
        options={"goal": 3, "first_candidate": "p1",
                 "stack": {"concepts": EXAMPLE_BOARD, "numbers": [4]}})
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    context.add_cookies([
        {"name": f"kt_seat_{room.code}", "value": host.token, "url": live_server.url},
        {"name": f"kt_pp_{room.code}", "value": host.token, "url": live_server.url},
    ])
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/play/{room.code}/")
        for name in ("Ben", "Cleo"):  # the others sit down at the same phone
            page.click("text=Add a player on this device")
            page.fill("#name", name)
            page.click(".join-form button")
        expect(page.locator(".lobby-seats li")).to_have_count(3)
        page.click("text=Start the game")

        # Ben gives the first hint: the phone asks for him, showing nothing of the board.
        handoff = page.locator(".handoff")
        expect(handoff).to_contain_text("Hand the device to Ben", timeout=WAIT)
        expect(page.locator(".slot")).to_have_count(0)
        expect(page.locator("main")).not_to_contain_text("Italien")
        page.click("text=I am Ben — show me")
        expect(page.locator(".secret-note")).to_contain_text("#4 · Italien", timeout=WAIT)
        page.click("button.tile[aria-label='Hint: Koffer']")

        # Now Ada, the candidate, decides: the secret is gone before and after her tap.
        expect(handoff).to_contain_text("Hand the device to Ada", timeout=WAIT)
        expect(page.locator(".secret-note")).to_have_count(0)
        expect(page.locator("main")).not_to_contain_text("Italien")
        page.click("text=I am Ada — show me")
        expect(page.locator(".role")).to_contain_text("You are the candidate", timeout=WAIT)
        expect(page.locator(".secret-note")).to_have_count(0)
        expect(page.locator(".slot.secret")).to_have_count(0)
        expect(page.locator(".tile.marker-green")).to_contain_text("Koffer")
        page.click("button[aria-label='Slot 4, Italien, is the secret']")

        # The game is over: the phone shows the table with the result, nobody's secrets.
        expect(page.locator(".result")).to_be_visible(timeout=WAIT)
        expect(page.locator(".result .winners")).to_contain_text("Ada")
    finally:
        context.close()
