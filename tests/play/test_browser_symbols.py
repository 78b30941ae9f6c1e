"""Sag's mit Symbolen in the browser: the hint givers see the secret, the candidate never."""

import pytest
from playwright.sync_api import expect

from cards.catalogue import import_catalogue
from exports.packs import build_pack
from tests.conftest import STARTER
from tests.engines.packs import EXAMPLE_BOARD
from tests.play.ui_helpers import (
    SHOTS,
    act,
    assert_fits,
    assert_no_buttons,
    fresh_room_caches,  # noqa: F401  (autouse)
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("table_only", [False, True], ids=["phone-host", "table-only"])
def test_three_phones_play_sags_mit_symbolen_to_the_goal(live_server, browser, table_only):
    table = open_table(browser, live_server.url, "symbols", ["Ada", "Ben", "Cleo"],
                       table_only=table_only, options={
        "goal": 3, "first_candidate": "p1",
        "stack": {"concepts": EXAMPLE_BOARD, "numbers": [4]},
    })
    try:
        ada, ben, cleo = table.players
        # The secret is slot 4, Italien: for the hint givers only.
        for giver in (ben, cleo):
            expect(giver.page.locator(".secret-note")).to_contain_text("#4 · Italien")
            expect(giver.page.locator(".slot.secret")).to_contain_text("Italien")
        for blind in (ada.page, table.table):
            expect(blind.locator(".secret-note")).to_have_count(0)
            expect(blind.locator(".slot.secret")).to_have_count(0)
            expect(blind.locator(".board")).to_contain_text("Italien")  # on the board, unmarked
        expect(ada.page.locator(".role")).to_contain_text("You are the candidate")
        expect(ben.page.locator(".turn")).to_contain_text("Your turn")
        expect(ada.page.locator("button.tile")).to_have_count(0)
        expect(cleo.page.locator("button.tile")).to_have_count(0)
        assert_no_buttons(table.table)

        act(table, ben, {"type": "hint", "symbol": "koffer", "marker": "green"})
        for page in (ada.page, table.table):
            expect(page.locator(".tile.marker-green")).to_contain_text("Koffer")
            expect(page.locator(".log")).to_contain_text("Ben put a green marker on Koffer.")
        # Only the candidate decides: remove a card or name the secret.
        expect(ada.page.locator(".slot-actions button")).to_have_count(16)
        expect(ben.page.locator(".slot-actions")).to_have_count(0)
        act(table, ada, {"type": "remove", "slot": 1})
        expect(table.table.locator(".log")).to_contain_text("Ada removed slot 1: Goethe.")
        expect(table.table.locator(".scores")).to_contain_text("Ben")
        expect(cleo.page.locator(".turn")).to_contain_text("Your turn")

        act(table, cleo, {"type": "hint", "symbol": "sonne", "marker": "green"})
        act(table, ada, {"type": "guess", "slot": 4})
        for page in (ada.page, ben.page, cleo.page, table.table):
            expect(page.locator(".result")).to_be_visible()
            expect(page.locator(".log")).to_contain_text("slot 4, Italien: found")
            assert_no_buttons(page)
        expect(ada.page.locator(".result h2")).to_have_text("You win!")
        expect(ben.page.locator(".result .winners")).to_contain_text("Ada")
        table.check_fit()
        # Rematch: the host's phone offers "Play again" (nobody else's does); every screen
        # then shows the new game with the same seats.
        for other in (ben, cleo):
            expect(other.page.get_by_role("button", name="Play again")).to_have_count(0)
        ada.page.get_by_role("button", name="Play again").click()
        for page in (ada.page, ben.page, cleo.page, table.table, table.tv):
            expect(page.locator(".result")).to_have_count(0, timeout=8000)
            expect(page.locator(".game")).to_be_visible()
        from games.models import Room

        assert Room.objects.get(pk=table.room.pk).game_number == 2
        table.check_fit()
    finally:
        table.close()


# Every tile of the board on the table screen: inside the viewport, its name on one line and
# drawn at a size a player across the room can still read (the zoom-out of play.js included).
BOARD_SCRIPT = """() => {
  const main = document.querySelector(".page-table main");
  const zoom = parseFloat(main.style.zoom || "1");
  const W = window.innerWidth, H = window.innerHeight;
  const tiles = [...document.querySelectorAll(".symbols-grid .tile")].map(tile => {
    const r = tile.getBoundingClientRect();
    const name = tile.querySelector(".tile-name");
    const px = parseFloat(getComputedStyle(name).fontSize) * zoom;
    return {name: name.textContent.trim(), inside: r.top >= -0.5 && r.left >= -0.5
            && r.bottom <= H + 0.5 && r.right <= W + 0.5, px: px, wide: r.width};
  });
  const slots = [...document.querySelectorAll(".board .slot")].map(slot => {
    const r = slot.getBoundingClientRect();
    return r.top >= -0.5 && r.bottom <= H + 0.5 && r.right <= W + 0.5;
  });
  return {zoom, tiles, slots};
}"""


@pytest.mark.slow
def test_the_real_board_of_forty_tiles_fits_both_table_screens_readably(live_server, browser):
    """The starter catalogue's board (40 tiles, English names such as "Lightning bolt") on the
    laptop at 1280x800 and the TV at 1920x1080: no scrolling, every tile and concept card on
    screen, and no tile name drawn smaller than 9 px after the table's zoom-out."""
    assert not import_catalogue(STARTER).errors
    pack = build_pack("symbols", "en")
    assert len([s for s in pack["body"]["symbols"] if not s.get("extra")]) == 40
    table = open_table(browser, live_server.url, "symbols", ["Ada", "Ben", "Cleo", "Dan", "Eve"],
                       table_only=True, pack=pack)
    try:
        for screen in (table.table, table.tv):
            assert_fits(screen, table=True)
            board = screen.evaluate(BOARD_SCRIPT)
            assert len(board["tiles"]) == 40
            assert len(board["slots"]) == 8 and all(board["slots"])
            assert [t["name"] for t in board["tiles"] if not t["inside"]] == []
            smallest = min(t["px"] for t in board["tiles"])
            assert smallest >= 9, (screen.viewport_size, board["zoom"], smallest)
            assert board["zoom"] >= 0.6
            if SHOTS:
                screen.screenshot(path=f"{SHOTS}/symbols-real-board-{screen.viewport_size['width']}.png")
    finally:
        table.close()
