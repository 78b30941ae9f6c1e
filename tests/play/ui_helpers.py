"""Shared by the play pages' browser tests: rooms with the small engine-test packs, one
browser context per player (each its own cookies: its own seat), and the table screen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import Browser, BrowserContext, Page, expect

from games import rooms
from games.models import Room
from tests.play.core_helpers import release_of

PHONE = {"width": 360, "height": 780}
LAPTOP = {"width": 1280, "height": 800}
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

    def __init__(self, browser: Browser, base: str, room: Room, host_token: str, host_name: str) -> None:
        self.browser, self.base, self.room = browser, base, room
        self.players: list[Player] = []
        context = self._context(PHONE)
        context.add_cookies([{"name": f"kt_seat_{room.code}", "value": host_token, "url": base}])
        page = context.new_page()
        page.goto(f"{base}/play/{room.code}/")
        self.players.append(Player(host_name, "p1", context, page))
        table_context = self._context(LAPTOP)
        self.table = table_context.new_page()

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
        seat = f"p{len(self.players) + 1}"
        player = Player(name, seat, context, page)
        self.players.append(player)
        return player

    def start(self) -> None:
        host = self.players[0].page
        expect(host.locator(".lobby-seats li")).to_have_count(len(self.players), timeout=WAIT)
        self.table.goto(f"{self.base}/play/{self.room.code}/table")
        host.click("text=Start the game")
        for player in self.players:
            expect(player.page.locator(".game.seat-view")).to_be_visible(timeout=WAIT)
        expect(self.table.locator(".game.table-view")).to_be_visible(timeout=WAIT)

    def by_seat(self, seat: str) -> Player:
        return next(p for p in self.players if p.seat == seat)

    def state(self) -> dict[str, Any]:
        room = Room.objects.get(pk=self.room.pk)
        state = rooms.room_state(room)
        assert state is not None
        return state

    def wait_version(self, at_least: int) -> None:
        """Every page shows the room at this version or later (their polls have caught up)."""
        for page in [*(p.page for p in self.players), self.table]:
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


def open_table(browser: Browser, base: str, game: str, names: list[str], *,
               options: dict[str, Any] | None = None, pack: dict[str, Any] | None = None,
               seed: str = "browser") -> Table:
    """A room of ``game`` with a stacked, seeded deal (a curator's playtest), its host's
    phone, the other players joined by the join page, and the table screen; started."""
    release_of(game, pack=pack)
    room, host = rooms.open_room(game=game, language="en", options=options, name=names[0],
                                 user=curator(), seed=seed)
    table = Table(browser, base, room, host.token, names[0])
    for name in names[1:]:
        table.join(name)
    table.start()
    return table


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
    rooms._PACKS.clear()
    rooms._STATES.clear()
    yield
    rooms._PACKS.clear()
    rooms._STATES.clear()
