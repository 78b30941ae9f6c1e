"""Shared by the play pages' browser tests: rooms with the small engine-test packs, one
browser context per player (each its own cookies: its own seat), and the table screen."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import Browser, BrowserContext, Page, expect

from games import rooms, states
from games.models import Room
from tests.play.core_helpers import release_of

PHONE = {"width": 360, "height": 740}
LAPTOP = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}
WAIT = 8000  # ms: a page learns of a change by polling once a second


def curator() -> User:
    user = User.objects.create_user(username="carla", password="karten-pw-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    return user


@dataclass
class Player:
    name: str
    seat: str
    context: BrowserContext
    page: Page


class Table:
    """A room opened on the server, its players' phones and the table screen."""

    def __init__(self, browser: Browser, base: str, room: Room, host_token: str | None,
                 host_name: str | None, table_token: str | None = None) -> None:
        self.browser, self.base, self.room = browser, base, room
        self.players: list[Player] = []
        self.table_only = table_token is not None
        if host_token is not None and host_name is not None:
            context = self._context(PHONE)
            context.add_cookies([{"name": f"kt_seat_{room.code}", "value": host_token, "url": base}])
            page = context.new_page()
            page.goto(f"{base}/play/{room.code}/")
            self.players.append(Player(host_name, "p1", context, page))
        table_context = self._context(LAPTOP)
        if table_token is not None:  # the device that opened the room "table only"
            table_context.add_cookies([{"name": f"kt_table_{room.code}", "value": table_token, "url": base}])
        self.table = table_context.new_page()
        # The same table on a big TV (a second screen that only watches).
        self.tv = self._context(TV).new_page()
        if self.table_only:
            self.table.goto(f"{base}/play/{room.code}/table")

    def _context(self, viewport: dict[str, int]) -> BrowserContext:
        return self.browser.new_context(viewport=viewport, locale="en-GB")

    def join(self, name: str) -> Player:
        """A player joins through the join page, as after scanning the QR code."""
        context = self._context(PHONE)
        page = context.new_page()
        page.goto(f"{self.base}/play/{self.room.code}/join")
        page.fill("#name", name)
        page.click(".join-form button")
        expect(page.locator(".room-lobby")).to_be_visible()
        assert_fits(page)
        seat = f"p{len(self.players) + 1}"
        player = Player(name, seat, context, page)
        self.players.append(player)
        return player

    def give_host(self, player: Player) -> None:
        """The table-only table hands the host controls to a phone (its "Give to …" button)."""
        self.table.goto(f"{self.base}/play/{self.room.code}/table")
        button = self.table.get_by_role("button", name=f"Give to {player.name}")
        if not button.is_visible():
            self.table.locator(".table-host summary").click()
        button.click()
        expect(self.table.locator(".table-host summary")).to_contain_text(f"Host controls: {player.name}")
        self.host = player

    def start(self) -> None:
        host = getattr(self, "host", self.players[0]).page
        expect(host.locator(".lobby-seats li")).to_have_count(len(self.players), timeout=WAIT)
        host.reload()
        if not self.table_only:
            self.table.goto(f"{self.base}/play/{self.room.code}/table")
        self.tv.goto(f"{self.base}/play/{self.room.code}/table")
        assert_fits(self.table, table=True)
        host.click("text=Start the game")
        for player in self.players:
            expect(player.page.locator(".game.seat-view")).to_be_visible(timeout=WAIT)
        for screen in (self.table, self.tv):
            expect(screen.locator(".game.table-view")).to_be_visible(timeout=WAIT)
        self.check_fit()

    def check_fit(self) -> None:
        """Every phone and both table screens fit (see ``assert_fits``)."""
        self.settle()
        for player in self.players:
            assert_fits(player.page)
        assert_fits(self.table, table=True)
        assert_fits(self.tv, table=True)

    def by_seat(self, seat: str) -> Player:
        return next(p for p in self.players if p.seat == seat)

    def state(self) -> dict[str, Any]:
        room = Room.objects.get(pk=self.room.pk)
        state = rooms.room_state(room)
        assert state is not None
        return state

    def wait_version(self, at_least: int) -> None:
        """Every page shows the room at this version or later (their polls have caught up)."""
        for page in [*(p.page for p in self.players), self.table, self.tv]:
            if page.url == "about:blank":
                continue
            page.wait_for_function(
                "v => { const h = document.querySelector('[data-version]');"
                " return h && parseInt(h.dataset.version, 10) >= v; }",
                arg=at_least, timeout=WAIT)

    def version(self) -> int:
        return Room.objects.get(pk=self.room.pk).version

    def settle(self) -> None:
        self.wait_version(self.version())

    def close(self) -> None:
        for player in self.players:
            player.context.close()
        self.table.context.close()
        self.tv.context.close()


def open_table(browser: Browser, base: str, game: str, names: list[str], *,
               options: dict[str, Any] | None = None, pack: dict[str, Any] | None = None,
               seed: str = "browser", table_only: bool = False) -> Table:
    """A room of ``game`` with a stacked, seeded deal (a curator's playtest), its host's
    phone, the other players joined by the join page, and the table screen; started.

    ``table_only``: the room is opened by the table (a laptop with no seat); every phone
    joins by the join page (the first one becomes the host), and the table hands the host
    controls to the second phone and back to the first through its "Give to …" buttons."""
    release_of(game, pack=pack)
    if table_only:
        room, _none = rooms.open_room(game=game, language="en", options=options, name="Table",
                                      user=curator(), seed=seed, seat=False)
        table = Table(browser, base, room, None, None, table_token=room.table_token)
        for name in names:
            table.join(name)
        table.give_host(table.players[1])
        table.give_host(table.players[0])
    else:
        room, host = rooms.open_room(game=game, language="en", options=options, name=names[0],
                                     user=curator(), seed=seed)
        table = Table(browser, base, room, host.token, names[0])
        for name in names[1:]:
            table.join(name)
    table.start()
    return table


# Checked in the page: no horizontal scroll; every visible button inside the width (and on a
# table screen inside the height: a table never scrolls); no word split between two lines.
FIT_SCRIPT = """(table) => {
  const problems = [];
  const W = window.innerWidth, H = window.innerHeight;
  const root = document.scrollingElement;
  if (root.scrollWidth > W) problems.push(`page is ${root.scrollWidth} px wide in ${W}`);
  if (table && root.scrollHeight > H) problems.push(`table page is ${root.scrollHeight} px high in ${H}`);
  for (const b of document.querySelectorAll("button, a.btn, summary")) {
    const r = b.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(b).visibility === "hidden") continue;
    const top = r.top + window.scrollY;
    const label = b.textContent.trim();
    if (r.left < -0.5 || r.right > W + 0.5) problems.push(`button "${label}" is off to the side`);
    if (table && (top < -0.5 || top + r.height > H + 0.5)) problems.push(`button "${label}" below the fold`);
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(".join-url, .sr-only, [hidden], script, style, svg")) continue;
    const text = node.textContent;
    const words = /[^\\s\u00AD-]{2,}/g;
    let match;
    while ((match = words.exec(text))) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const rects = [...range.getClientRects()].filter(r => r.width > 0);
      const tops = new Set(rects.map(r => Math.round(r.top / 4)));
      if (tops.size > 1) problems.push(`"${match[0]}" is split across lines`);
    }
  }
  return problems;
}"""


SHOTS = os.environ.get("KARTOTHEK_PLAY_SHOTS")  # a folder: keep a screenshot of each checked page


def assert_fits(page: Page, *, table: bool = False) -> None:
    """The page at its viewport: see ``FIT_SCRIPT``."""
    page.wait_for_load_state()
    problems = page.evaluate(FIT_SCRIPT, table)
    if SHOTS:
        size = page.viewport_size or {}
        kind = page.url.rstrip("/").rsplit("/", 1)[-1]
        game = page.evaluate("document.body.className.match(/game-(\\w+)/)?.[1] || 'play'")
        status = page.evaluate("document.querySelector('[data-status]')?.dataset.status || 'page'")
        name = page.evaluate("(document.querySelector('.seat-row.you .seat-name') || {}).textContent || ''")
        who = "".join(ch for ch in name if ch.isalnum())[:8]
        tail = f"-{who}" if who else ""
        page.screenshot(path=f"{SHOTS}/{game}-{status}-{kind}{tail}-{size.get('width')}.png")
        if problems:
            print(f"FIT {page.url} {size}: {problems}")
        return
    assert not problems, f"{page.url} at {page.viewport_size}: {problems}"


def click_action(page: Page, action: dict[str, Any]) -> None:
    """Press the button that carries exactly this legal action."""
    import json

    raw = json.dumps(action, sort_keys=True, separators=(",", ":"))
    button = page.locator(f"button[data-action='{raw}']")
    expect(button).to_be_visible(timeout=WAIT)
    button.first.click()


def act(table: Table, player: Player, action: dict[str, Any]) -> None:
    """Press the action's button on the player's phone; wait until every screen shows the result."""
    import time

    from games import cardids, rooms

    before = table.version()
    # The test speaks pack keys (it reads the engine's state); the page names cards by the
    # room's ids (games/cardids.py).
    room = Room.objects.get(pk=table.room.pk)
    click_action(player.page, cardids.translate(action, rooms.card_maps(room)[0]))
    deadline = time.monotonic() + WAIT / 1000
    while table.version() <= before:
        assert time.monotonic() < deadline, f"{action} was not applied"
        time.sleep(0.05)
    table.settle()


def assert_no_buttons(page: Page) -> None:
    expect(page.locator("button[data-action]")).to_have_count(0)


@pytest.fixture(autouse=True)
def fresh_room_caches():
    """Test databases reuse row ids for other content: forget the rooms' cached packs."""
    states._PACKS.clear()
    states._STATES.clear()
    yield
    states._PACKS.clear()
    states._STATES.clear()
