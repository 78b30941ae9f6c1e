"""Sauschwer in the browser: three phones and the table screen play a one-round game."""

import re

import pytest
from playwright.sync_api import expect

from tests.play.ui_helpers import (
    act,
    assert_no_buttons,
    fresh_room_caches,  # noqa: F401  (autouse)
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("table_only", [False, True], ids=["phone-host", "table-only"])
def test_three_phones_play_a_round_of_sauschwer_with_a_stop_and_secret_markers(live_server, browser,
                                                                              table_only):
    table = open_table(browser, live_server.url, "sauschwer", ["Ada", "Ben", "Cleo"], table_only=table_only,
                       options={"rounds": 1, "opening_side": "violet", "first_player": "p1"})
    try:
        ada, ben, cleo = table.players
        state = table.state()
        # Ada begins: only her phone offers her cards for the scale; nobody can doubt yet.
        expect(ada.page.locator(".place-buttons button")).to_have_count(6)
        for other in (ben, cleo):
            expect(other.page.locator(".place-buttons")).to_have_count(0)
            expect(other.page.locator("button.stop")).to_have_count(0)
        assert_no_buttons(table.table)
        expect(table.table.locator(".pan-violet")).to_contain_text(
            state["names"][state["scale"][0]["card"]])
        card = state["hands"]["p1"][0]
        act(table, ada, {"type": "place", "card": card, "helmut": "red"})

        # Everyone but the placer may now call "Stop!", and the card lies on red (Helmut moved).
        expect(ada.page.locator("button.stop")).to_have_count(0)
        for other in (ben, cleo):
            expect(other.page.locator("button.stop")).to_be_visible()
        expect(table.table.locator(".pan-red")).to_contain_text(state["names"][card])
        expect(table.table.locator(".pan-red .helmut-tag")).to_be_visible()
        expect(ben.page.locator(".log")).to_contain_text("Ada put")
        act(table, ben, {"type": "stop"})

        # Markers: the placer must back Helmut (red), the doubter the other side, Cleo chooses.
        expect(ada.page.locator(".marker-buttons button")).to_have_text(["Red is heavier"])
        expect(ben.page.locator(".marker-buttons button")).to_have_text(["Violet is heavier"])
        expect(cleo.page.locator(".marker-buttons button")).to_have_count(2)
        weights = {str(table.state()["weights"][key]) for key in (card,)}
        for page in (table.table, ada.page):
            expect(page.locator(".reveal")).to_have_count(0)
            for grams in weights:
                expect(page.locator("main")).not_to_contain_text(f"{grams} g")
        act(table, cleo, {"type": "marker", "side": "red"})
        expect(cleo.page.locator(".your-marker")).to_contain_text("red")
        # Cleo's choice stays secret until all markers are in.
        for page in (ada.page, ben.page, table.table):
            expect(page.locator(".your-marker")).to_have_count(0)
        expect(table.table.locator(".scores")).to_contain_text("marker in")
        act(table, ada, {"type": "marker", "side": "red"})
        act(table, ben, {"type": "marker", "side": "violet"})

        # One round: the weights are revealed and the game is over on every screen.
        for page in (ada.page, ben.page, cleo.page, table.table):
            expect(page.locator(".reveal")).to_be_visible()
            expect(page.locator(".result")).to_be_visible()
            assert_no_buttons(page)
        result = table.state()
        assert result["phase"] == "over"
        winner_names = {p.name for p in table.players if p.seat in result["winners"]}
        for name in winner_names:
            expect(table.table.locator(".result .winners")).to_contain_text(name)
        table.check_fit()
        # The weigh-in says in words which side each object lay on, at 360 px too.
        expect(ada.page.locator(".reveal .weights li").first.locator(".side-word")).to_have_text(
            re.compile(r"(red|violet)"))
        # The replay says each step in words, never as JSON.
        table.table.goto(f"{table.base}/play/{table.room.code}/replay?step=1")
        expect(table.table.locator(".step-count")).to_contain_text("Ada put")
        expect(table.table.locator(".step-count")).not_to_contain_text("{")
        table.table.goto(f"{table.base}/play/{table.room.code}/replay?step=2")
        expect(table.table.locator(".step-count")).to_contain_text("Ben")
        expect(table.table.locator(".step-count")).not_to_contain_text("{")
    finally:
        table.close()


def test_a_stop_that_comes_too_late_shows_why_and_the_fresh_screen(live_server, browser):
    table = open_table(browser, live_server.url, "sauschwer", ["Ada", "Ben", "Cleo"], table_only=True,
                       options={"rounds": 1, "first_player": "p1"})
    try:
        ada, ben, cleo = table.players
        act(table, ada, {"type": "place", "card": table.state()["hands"]["p1"][0], "helmut": "red"})
        # Cleo's phone stops hearing about the room (a slow network) while Ben calls first.
        cleo.page.route("**/api/play/rooms/*", lambda route: route.abort()
                        if route.request.method == "GET" else route.continue_())
        ben.page.locator("button.stop").click()
        expect(ben.page.locator(".marker-buttons button")).to_have_count(1)
        expect(cleo.page.locator("button.stop")).to_be_visible()  # stale: still offered
        cleo.page.locator("button.stop").click()
        expect(cleo.page.locator("#toast")).to_contain_text("Someone was faster")
        # Said in the page's live region too (a screen reader hears it; it is not only colour).
        expect(cleo.page.locator("#rejected")).to_have_text("Too late: someone was faster.")
        expect(cleo.page.locator("#rejected")).to_have_attribute("aria-live", "assertive")
        expect(cleo.page.locator(".marker-buttons button")).to_have_count(2)
        assert table.state()["doubter"] == "p2"
    finally:
        table.close()
