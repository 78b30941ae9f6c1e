"""Sign in the browser: four phones swap with the table and one calls "Sign!" on a quintet."""

import pytest
from playwright.sync_api import expect

from tests.play.ui_helpers import (
    act,
    assert_no_buttons,
    fresh_room_caches,  # noqa: F401  (autouse)
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Dealt from the dealer's (Ada's) left: Ben's five cards come first: a quintet of anchors.
QUINTET = ["anker-rot", "anker-orange", "anker-gelb", "anker-gruen", "anker-blau"]


@pytest.mark.parametrize("table_only", [False, True], ids=["phone-host", "table-only"])
def test_four_phones_play_sign_until_a_quintet_is_called(live_server, browser, table_only):
    table = open_table(browser, live_server.url, "sign", ["Ada", "Ben", "Cleo", "Dana"],
                       table_only=table_only, options={
        "target_points": 1, "stack": {"deck": QUINTET},
    })
    try:
        ada, ben, cleo, dana = table.players
        if table.state()["phase"] == "checking":  # the rulebook's check of the hands first
            for player in table.players:
                act(table, player, {"type": "ready"})
        state = table.state()
        assert state["hands"]["p2"] == QUINTET
        # Each phone shows its own hand (symbol, colour and the colour's mark), no other.
        expect(ben.page.locator(".hand .sign-card")).to_have_count(5)
        expect(ben.page.locator(".hand")).to_contain_text("Anker")
        expect(ben.page.locator(".hand .mark").first).to_have_text("●")
        for other in (ada, cleo, dana):
            expect(other.page.locator(".hand .sign-card")).to_have_count(5)
            expect(other.page.locator(".hand")).not_to_contain_text("Anker Rot")
        expect(table.table.locator(".hand")).to_have_count(0)
        expect(table.table.locator(".table-cards .cards .sign-card")).to_have_count(len(state["table"]))
        assert_no_buttons(table.table)
        # Sign! on each other player, team-mates marked in words.
        expect(ada.page.locator("button.sign-call")).to_have_count(3)
        expect(ada.page.locator("button.sign-call.mate")).to_contain_text("Cleo")

        taken = state["table"][0]
        act(table, ada, {"type": "take", "card": taken})
        expect(ada.page.locator(".hand .sign-card")).to_have_count(6)
        expect(ada.page.locator(".table-cards button")).to_have_count(0)  # six cards: drop first
        expect(ada.page.locator(".turn")).to_contain_text("six cards")
        expect(ben.page.locator(".player-chips")).to_contain_text("Ada 6 cards")
        expect(ben.page.locator(".log")).to_contain_text("Ada took a card from the table.")
        act(table, ada, {"type": "drop", "card": taken})
        expect(ada.page.locator(".hand .sign-card")).to_have_count(5)

        act(table, cleo, {"type": "sign", "target": "p2"})
        for page in (ada.page, ben.page, cleo.page, dana.page, table.table):
            expect(page.locator(".result")).to_be_visible()
            expect(page.locator(".log")).to_contain_text("Cleo called “Sign!” on Ben: a quintet!")
            assert_no_buttons(page)
        expect(cleo.page.locator(".result h2")).to_have_text("You win!")
        expect(ada.page.locator(".result h2")).to_have_text("You win!")
        expect(ben.page.locator(".result h2")).to_have_text("The game is over")
        table.check_fit()
    finally:
        table.close()
