"""The table screen of every game on a laptop (1280x800) and a TV (1920x1080), with the starter
catalogue's real cards and a game well under way (a long log): nothing cut off, the "What
happened" panel inside the screen and scrollable, and Sign using the TV's width."""

from __future__ import annotations

import random
import uuid

import pytest
from playwright.sync_api import Page, expect

from cards.catalogue import import_catalogue
from exports.packs import build_pack
from games import bots, cardids, engines, moves, rooms
from games.models import Room, Seat
from tests.conftest import STARTER
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import (
    LAPTOP,
    SHOTS,
    TV,
    WAIT,
    assert_fits,
    curator,
    fresh_room_caches,  # noqa: F401  (autouse)
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLAYERS = {"symbols": 6, "sign": 9, "slogan": 6, "sauschwer": 8}  # the most each game seats
NAMES = ["Ada", "Ben", "Cleo", "Dana", "Emil", "Fritzi", "Gustav", "Hanna", "Ilse"]


def room_under_way(game: str, steps: int, players: int | None = None) -> Room:
    """A table-only room of ``game`` with the starter pack, its phones joined on the server, and
    ``steps`` bot moves made through the play mode's own ``moves.act`` (the log fills up)."""
    assert not import_catalogue(STARTER).errors
    release_of(game, pack=build_pack(game, "en"))
    room, _none = rooms.open_room(game=game, language="en", name="Table", user=curator(),
                                  seed="sizes", seat=False)
    token = room.table_token
    seats = [rooms.join(room, name=name) for name in NAMES[:players or PLAYERS[game]]]
    rooms.start(Room.objects.get(pk=room.pk), seats[0])
    rng = random.Random("sizes")
    engine = engines.get(game)
    for _step in range(steps):
        room = Room.objects.get(pk=room.pk)
        state = rooms.room_state(room)
        assert state is not None
        if engine.result(state) is not None:
            break
        for seat in rng.sample(seats, len(seats)):
            action = bots.act(game, state, seat.seat, rng)
            if action is not None:
                break
        else:
            break
        move = cardids.translate(action, rooms.card_maps(room)[0])
        moves.act(room.code, Seat.objects.get(pk=seat.pk), action_id=uuid.uuid4().hex,
                  version=room.version, action=move)
    done = Room.objects.get(pk=room.pk)
    done.table_token = token  # the plain token, for the table's cookie
    return done


# The "What happened" panel: its box, its list's box, and whether the list scrolls.
LOG_SCRIPT = """() => {
  const log = document.querySelector(".table-view .log");
  const list = log.querySelector("ol");
  const box = r => ({top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height});
  return {log: box(log.getBoundingClientRect()), list: box(list.getBoundingClientRect()),
          lines: list.children.length, scrolls: getComputedStyle(list).overflowY,
          W: window.innerWidth, H: window.innerHeight};
}"""


def check_log(page: Page) -> None:
    """The log panel lies inside the viewport with room for several lines; its list scrolls."""
    got = page.evaluate(LOG_SCRIPT)
    log, lst, H, W = got["log"], got["list"], got["H"], got["W"]
    where = f"{page.url} at {W}x{H}: {got}"
    assert log["top"] >= -0.5 and log["bottom"] <= H + 0.5, where
    assert log["left"] >= -0.5 and log["right"] <= W + 0.5, where
    assert lst["bottom"] <= log["bottom"] + 0.5, where  # the list is not cut by the panel
    assert lst["height"] >= 90, where  # at least three lines to read
    assert got["scrolls"] in ("auto", "scroll"), where


def open_table(browser, base: str, room: Room, size: dict[str, int]) -> Page:
    context = browser.new_context(viewport=size, locale="en-GB")
    # The table device that opened the room: its host controls are on the screen too.
    context.add_cookies([{"name": f"kt_table_{room.code}", "value": room.table_token, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/play/{room.code}/table")
    expect(page.locator(".game.table-view")).to_be_visible(timeout=WAIT)
    page.wait_for_load_state()
    return page


@pytest.mark.parametrize("game", list(PLAYERS))
def test_every_table_fits_laptop_and_tv_with_the_log_in_view(live_server, browser, game):
    room = room_under_way(game, steps=14)
    for size in (LAPTOP, TV):
        page = open_table(browser, live_server.url, room, size)
        try:
            if SHOTS:
                page.screenshot(path=f"{SHOTS}/table-{game}-{size['width']}.png")
            assert_fits(page, table=True)
            check_log(page)
        finally:
            page.context.close()


# How much of the TV's width the Sign table's content covers (the union of the boxes of the
# main column's and the side column's sections).
WIDTH_SCRIPT = """() => {
  const parts = [...document.querySelectorAll(".table-view .table-main > *, .table-view .table-side > *")]
    .map(e => e.getBoundingClientRect()).filter(r => r.width && r.height);
  const boxes = [...document.querySelectorAll(".table-view .sign-card, .table-view .player-chips li")]
    .map(e => e.getBoundingClientRect()).filter(r => r.width);
  const left = Math.min(...boxes.map(r => r.left)), right = Math.max(...boxes.map(r => r.right));
  const card = document.querySelector(".table-view .table-cards .sign-card");
  return {W: window.innerWidth, cards: (right - left) / window.innerWidth,
          side: Math.max(...parts.map(r => r.right)) / window.innerWidth,
          cardWidth: card ? card.getBoundingClientRect().width : 0};
}"""


def test_sign_on_a_tv_uses_the_width_with_big_cards(live_server, browser):
    room = room_under_way("sign", steps=12, players=6)
    page = open_table(browser, live_server.url, room, TV)
    try:
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/table-sign-6-players-1920.png")
        assert_fits(page, table=True)
        got = page.evaluate(WIDTH_SCRIPT)
        assert got["cards"] > 0.6, got  # the table cards and the players across the screen
        assert got["side"] > 0.9, got
        assert got["cardWidth"] >= 190, got
    finally:
        page.context.close()
