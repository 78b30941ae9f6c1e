"""Slogan in the browser: the questioner alone sees the options and the answer; the questioned
player sees them only in the tip step; Spießer Alfons carries a piece to the goal."""

import pytest
from playwright.sync_api import expect

from tests.engines.packs import slogan_pack
from tests.play.ui_helpers import (
    act,
    assert_no_buttons,
    fresh_room_caches,  # noqa: F401  (autouse)
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every Spießer Alfons card moves 30 spaces: two draws reach the goal (37).
LEAP = [{"kind": "move", "amount": 30}] * 12


def ask(slogan: int = 0, stake: int = 3) -> dict:
    return {"type": "ask", "slogan": slogan, "stake": stake}


@pytest.mark.parametrize("table_only", [False, True], ids=["phone-host", "table-only"])
def test_three_phones_play_slogan_to_the_goal(live_server, browser, table_only):
    table = open_table(browser, live_server.url, "slogan", ["Ada", "Ben", "Cleo"], table_only=table_only,
                       pack=slogan_pack(effects=LEAP),
                       options={"first_player": "p1", "stack": {"cards": ["karte-001"]}})
    try:
        ada, ben, cleo = table.players
        # Ada asks Ben: her card with both slogans, their options and answers, is hers alone.
        card = ada.page.locator(".slogan-card")
        expect(card).to_contain_text("Slogan 1/1 …")
        expect(card.locator(".options li.correct").first).to_contain_text("Brand 1-1-2")
        for other in (ben.page, cleo.page, table.table):
            expect(other.locator(".slogan-card")).to_have_count(0)
            expect(other.locator(".options")).to_have_count(0)
            expect(other.locator("main")).not_to_contain_text("Brand 1-1")
        # Only a player behind the leader may challenge: at 0 chips each, everyone leads.
        expect(cleo.page.locator("button.challenge")).to_have_count(0)
        assert_no_buttons(table.table)

        act(table, ada, ask())
        expect(cleo.page.locator("button.challenge")).to_have_count(0)
        for page in (ben.page, cleo.page, table.table):
            expect(page.locator(".slogan-asked")).to_contain_text("Slogan 1/1 …")
            expect(page.locator(".slogan-asked .options")).to_have_count(0)
        expect(ada.page.locator(".slogan-asked .options li.correct")).to_contain_text("Brand 1-1-2")
        expect(ben.page.locator(".turn")).to_contain_text("Say the brand out loud")
        act(table, ada, {"type": "judge", "correct": False})

        # Wrong: now Ben sees the options to tip, and may draw Spießer Alfons instead.
        expect(ben.page.locator(".tips button")).to_have_count(4)
        expect(ben.page.locator(".slogan-asked .options li.correct")).to_have_count(0)
        expect(cleo.page.locator(".slogan-asked .options")).to_have_count(0)
        act(table, ben, {"type": "alfons"})
        expect(table.table.locator(".log")).to_contain_text("Ben drew Spießer Alfons")
        expect(table.table.locator(".log")).to_contain_text("“Slogan 1/1 …” — Brand 1-1-2.")

        act(table, ben, ask())  # Ben asks Cleo, who answers right
        act(table, ben, {"type": "judge", "correct": True})
        act(table, cleo, ask(stake=1))  # Cleo asks Ada, who answers wrong and tips
        act(table, cleo, {"type": "judge", "correct": False})
        act(table, ada, {"type": "tip", "option": 0})
        act(table, ada, ask())  # Ada asks Ben: wrong, and his second Alfons reaches the goal
        act(table, ada, {"type": "judge", "correct": False})
        act(table, ben, {"type": "alfons"})

        state = table.state()
        assert state["phase"] == "over" and state["positions"]["p2"] == 37
        winners = [p.name for p in table.players if p.seat in table.state()["log"][-1]["winners"]]
        for page in (ada.page, ben.page, cleo.page, table.table):
            expect(page.locator(".result")).to_be_visible()
            expect(page.locator(".goal .piece")).to_have_attribute("title", "Ben")
            assert_no_buttons(page)
        for name in winners:
            expect(table.table.locator(".result .winners")).to_contain_text(name)
        table.check_fit()
    finally:
        table.close()
