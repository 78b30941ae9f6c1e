"""Sag's mit Symbolen on a 360x740 phone with the starter catalogue's real board (40 tiles): the
hint giver finds the symbols in the first screen, card replacement is offered only while the
rules allow it (before the round's first hint) and out of the way of the hand, and once the game
is over the result and "Play again" are at the top."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from cards.catalogue import import_catalogue
from exports.packs import build_pack
from tests.conftest import STARTER
from tests.play.ui_helpers import (
    PHONE,
    SHOTS,
    WAIT,
    act,
    assert_fits,
    fresh_room_caches,  # noqa: F401  (autouse)
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def top_of(page: Page, selector: str) -> float:
    """Where the first element matching ``selector`` starts, from the top of the page."""
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")


def bottom_of(page: Page, selector: str) -> float:
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().bottom + window.scrollY")


def shot(page: Page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png")


def test_symbols_on_a_phone_hand_first_replace_only_when_allowed_result_on_top(live_server, browser):
    assert not import_catalogue(STARTER).errors
    pack = build_pack("symbols", "en")
    concepts = [card["key"] for card in pack["body"]["concepts"]][:24]
    table = open_table(browser, live_server.url, "symbols", ["Ada", "Ben", "Cleo"], pack=pack, options={
        "goal": 3, "first_candidate": "p1", "stack": {"concepts": concepts, "numbers": [4]},
    })
    try:
        ada, ben, cleo = table.players
        height = PHONE["height"]
        for player in table.players:
            player.page.evaluate("window.scrollTo(0, 0)")
        # Ben gives the first hint: his symbols start in the first screen of his phone.
        expect(ben.page.locator("button.tile")).to_have_count(40)
        shot(ben.page, "phone-symbols-hint-giver")
        assert top_of(ben.page, "button.tile") < height - 60, top_of(ben.page, "button.tile")
        assert top_of(ben.page, ".secret-note") < height
        # Before the first hint every player may replace a card nobody can explain (the
        # rulebook's "Game Preparation"): offered in one folded place below the hand, not as a
        # button on each of the eight cards.
        for player in table.players:
            page = player.page
            expect(page.locator(".slot button[data-action*='replace']")).to_have_count(0)
            replace = page.locator(".replace-cards")
            expect(replace).to_have_count(1)
            expect(replace.locator("button[data-action*='replace']")).to_have_count(8)
            expect(replace.locator("button[data-action*='replace']").first).to_be_hidden()
        assert top_of(ben.page, ".replace-cards") > top_of(ben.page, ".symbols-grid")
        # The candidate's board (what she acts on) is in her first screen.
        assert bottom_of(ada.page, ".board") < height
        shot(ada.page, "phone-symbols-candidate")
        # Ada replaces the card on slot 2: the log says so, and her own offer is gone (once a round).
        ada.page.locator(".replace-cards summary").click()
        assert_fits(ada.page)
        shot(ada.page, "phone-symbols-replace-open")
        act(table, ada, {"type": "replace", "slot": 2})
        expect(ada.page.locator(".replace-cards")).to_have_count(0)
        expect(ben.page.locator(".replace-cards button[data-action*='replace']")).to_have_count(7)
        # After the first hint no one may replace.
        act(table, ben, {"type": "hint", "symbol": table.state()["symbols"][0], "marker": "green"})
        for page in (ada.page, ben.page, cleo.page, table.table):
            expect(page.locator(".replace-cards")).to_have_count(0)
            expect(page.locator("button[data-action*='replace']")).to_have_count(0)
        # Ada finds the secret (slot 4): the game is over, and every phone shows the result at
        # the top; the host's "Play again" is in the first screen.
        act(table, ada, {"type": "guess", "slot": 4})
        for player in table.players:
            page = player.page
            expect(page.locator(".result")).to_be_visible(timeout=WAIT)
            page.evaluate("window.scrollTo(0, 0)")
            assert bottom_of(page, ".result h2") < height
        expect(ada.page.locator(".result h2")).to_have_text("You win!")
        play_again = ada.page.get_by_role("button", name="Play again")
        assert bottom_of(ada.page, ".result") < height, bottom_of(ada.page, ".result")
        play_again.scroll_into_view_if_needed()
        assert ada.page.evaluate("window.scrollY") == 0  # it was in view already
        shot(ada.page, "phone-symbols-result")
        table.check_fit()
    finally:
        table.close()
