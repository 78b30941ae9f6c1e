"""Every finished game of a room keeps its replay: *Play again* starts the next game in the same
room, and the earlier games' replays stay reachable for the seats and the table (issue 39, 2)."""

import re

import pytest
from playwright.sync_api import Page, expect

from games import engines
from games.models import ActionLog
from tests.play.ui_helpers import (
    WAIT,
    Table,
    act,
    fresh_room_caches,  # noqa: F401  (autouse)
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def play_out(table: Table) -> None:
    """The game to its end by the phones' buttons: a card on the scale, a stop, the markers."""
    engine = engines.get("sauschwer")
    for _ in range(20):
        state = table.state()
        if engine.result(state) is not None:
            return
        for player in table.players:
            legal = engine.legal_actions(state, player.seat)
            if legal:
                stop = [a for a in legal if a["type"] == "stop"]
                act(table, player, (stop or legal)[0])
                break
    assert engine.result(table.state()) is not None, "the game did not end"


def replay_href(page: Page) -> str:
    link = page.locator(".result a", has_text="Watch the replay")
    expect(link).to_be_visible(timeout=WAIT)
    href = link.get_attribute("href")
    assert href
    return href


def expect_replay(page: Page, base: str, href: str, number: int, steps: int) -> None:
    """The replay of game ``number`` opens (not 403) and steps through its own moves."""
    response = page.goto(base + href)
    assert response is not None and response.status == 200, f"{href}: {response and response.status}"
    expect(page.locator(".replay-game")).to_have_text(f"Replay of game {number}")
    expect(page.locator(".step-count")).to_contain_text(f"Step 0 of {steps}")
    page.get_by_role("link", name=re.compile("Next")).click()
    expect(page.locator(".step-count")).to_contain_text(f"Step 1 of {steps}")
    assert f"game={number}" in page.url  # the step links stay with that game
    # A replay shows the table's view: no weight before the game's last step.
    expect(page.locator(".reveal")).to_have_count(0)


def test_play_again_keeps_every_finished_games_replay_for_the_seats_and_the_table(live_server, browser):
    table = open_table(browser, live_server.url, "sauschwer", ["Ada", "Ben"],
                       options={"rounds": 1, "first_player": "p1", "opening_side": "violet"})
    base = live_server.url
    try:
        ada, ben = table.players
        play_out(table)
        first = replay_href(ben.page)
        steps = {1: ActionLog.objects.filter(room=table.room, game_number=1).count()}
        ada.page.get_by_role("button", name="Play again").click()
        expect(ben.page.locator(".game.seat-view .result")).to_have_count(0, timeout=WAIT)

        # The first game's replay, opened by the link a player had, works while game 2 runs.
        viewer = ben.context.new_page()
        expect_replay(viewer, base, first, 1, steps[1])
        expect_replay(table.tv, base, first, 1, steps[1])
        # The plain replay address shows the newest finished game, not a 403.
        response = viewer.goto(f"{base}/play/{table.room.code}/replay")
        assert response is not None and response.status == 200
        expect(viewer.locator(".replay-game")).to_have_text("Replay of game 1")

        table.tv.goto(f"{base}/play/{table.room.code}/table")  # back to watching the game
        play_out(table)
        steps[2] = ActionLog.objects.filter(room=table.room, game_number=2).count()
        ada.page.get_by_role("button", name="Play again").click()
        expect(ada.page.locator(".game.seat-view .result")).to_have_count(0, timeout=WAIT)
        play_out(table)
        steps[3] = ActionLog.objects.filter(room=table.room, game_number=3).count()

        # After the third game its result lists the two earlier replays; all three open.
        for page in (ada.page, ben.page, table.table):
            earlier = page.locator(".result .earlier-replays a")
            expect(earlier).to_have_text(["Replay of game 1", "Replay of game 2"], timeout=WAIT)
        hrefs = {3: replay_href(ada.page)}
        for number in (1, 2):
            link = ben.page.locator(".result .earlier-replays a", has_text=f"Replay of game {number}")
            hrefs[number] = link.get_attribute("href") or ""
        for number, href in sorted(hrefs.items()):
            expect_replay(viewer, base, href, number, steps[number])
            expect_replay(table.tv, base, href, number, steps[number])
    finally:
        table.close()
