"""The chaos party (tests/play/test_browser_chaos.py): a table screen and the phones of a room
on a real ASGI server (uvicorn on loopback, so the pages hold real event streams), a full game
played by tapping the pages' own buttons, and after each step a random disturbance to a random
screen. After every step the invariant is checked: within ``CATCH_UP`` seconds every screen
shows the room's current version (read from the database), and nothing it shows belongs to
another seat.

"Nothing it shows belongs to another seat", in two halves:

- the screen's live region holds no item (a text, an ``aria-label``, a button's action) that
  the server renders for another seat at this version but neither for this seat nor for the
  table (each seat's fragment, fetched over HTTP with that seat's cookie);
- what the server hands this seat (its view, ``rooms.snapshot``) carries none of the secrets
  ``tests.play.test_secrecy.Secrets`` derives from the full state for that reader.

Everything random comes from one seed (``KARTOTHEK_CHAOS_SEED``): the disturbances, their
screens, the offline spans and the bots' moves; a failure prints the seed and the step log.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

import httpx
from playwright.sync_api import Browser, BrowserContext, Page, expect

from games import bots, cardids, rooms
from games.models import Room
from tests.play.core_helpers import release_of
from tests.play.sse_helpers import Server
from tests.play.test_secrecy import Ids, Secrets
from tests.play.ui_helpers import LAPTOP, PHONE, WAIT, curator

CATCH_UP = float(os.environ.get("KARTOTHEK_CHAOS_CATCH_UP", "3"))  # s: every screen shows the room's version
DISTURBANCES = ("reload", "offline", "cut", "second_tab", "double_tap")
# KARTOTHEK_CHAOS_DISTURBANCES=reload,cut narrows a run down (the seed still picks among them)
CHOSEN = tuple(os.environ.get("KARTOTHEK_CHAOS_DISTURBANCES", "").split(",")) if \
    os.environ.get("KARTOTHEK_CHAOS_DISTURBANCES") else DISTURBANCES
ITEM_ATTRIBUTES = ("aria-label", "data-action", "data-action-grey", "title", "alt")

# The live region's items, as the browser holds them now (see ``RenderedItems`` for the server's).
DOM_ITEMS = """(names) => {
  const live = document.querySelector('[data-live]');
  if (!live) return null;
  const items = [];
  const walker = document.createTreeWalker(live, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement && node.parentElement.closest('script, style')) continue;
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    if (text) items.push(text);
  }
  for (const el of live.querySelectorAll('*')) {
    for (const name of names) {
      const value = el.getAttribute(name);
      if (value) items.push(name + '=' + value.replace(/\\s+/g, ' ').trim());
    }
  }
  return items;
}"""

VERSION = """() => { const h = document.querySelector('[data-live] [data-version]');
  return h ? parseInt(h.dataset.version, 10) : null; }"""


class RenderedItems(HTMLParser):
    """The same items as ``DOM_ITEMS``, read from a fragment the server rendered."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.items: set[str] = set()
        self._skip = 0
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ITEM_ATTRIBUTES and value and value.strip():
                self.items.add(f"{name}={' '.join(value.split())}")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and not self._skip:
            self.items.add(text)


def _leaks(items: set[str], rendered: dict[str | None, set[str]], seat: str | None) -> set[str]:
    """The items only another seat's screen shows (not this seat's, not the table's)."""
    own = rendered[seat] | rendered[None]
    others = set().union(*(rendered[s] for s in rendered if s not in (seat, None)))
    return (items & others) - own


def env_seed(fixed: int | None) -> int:
    """``KARTOTHEK_CHAOS_SEED``, else ``fixed`` (CI's run is the same every time), else a fresh one."""
    raw = os.environ.get("KARTOTHEK_CHAOS_SEED")
    if raw:
        return int(raw)
    return fixed if fixed is not None else random.SystemRandom().randrange(10**6)


@dataclass
class Screen:
    name: str
    seat: str | None  # None: the table
    context: BrowserContext
    page: Page
    token: str | None = None
    extra: bool = False  # a second tab, closed again at the next step


@dataclass
class Party:
    """One room's chaos game: the server, the screens, the seeded randomness and the log."""

    browser: Browser
    server: Server
    game: str
    seed: int
    players: int = 3
    offline_span: tuple[float, float] = (5.0, 20.0)
    disturb_every: int = 1  # a disturbance after every n-th step
    options: dict[str, Any] = field(default_factory=dict)
    pack: dict[str, Any] | None = None
    language: str = "en"
    market: str | None = None  # English Slogan: "GB" plays the UK deck (the "en-GB" release)
    log: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"{self.game}-{self.seed}")
        self.http = httpx.Client(base_url=self.server.url, timeout=10)
        self.screens: list[Screen] = []
        self.secrets = Secrets(self.game)
        self.teeth = 0  # screens whose items, read as another seat's screen, were caught
        self.errors: list[str] = []  # every 5xx answer any page got
        self.taps = 0

    def watch(self, page: Page) -> Page:
        def answered(response: Any) -> None:
            if response.status >= 500:
                self.errors.append(f"{response.status} {response.request.method} {response.url}")
        page.on("response", answered)
        return page

    # --- opening the room -----------------------------------------------------------------

    def open(self) -> None:
        edition = f"{self.language}-{self.market}" if self.market else self.language
        release_of(self.game, language=edition, pack=self.pack)
        names = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay"][:self.players]
        self.room, host = rooms.open_room(game=self.game, language=self.language, options=self.options,
                                          name=names[0], user=curator(), seed=f"chaos-{self.seed}",
                                          market=self.market)
        base = self.server.url
        self.code = self.room.code
        for number, name in enumerate(names, start=1):
            context = self.browser.new_context(viewport=PHONE, locale="en-GB")
            page = self.watch(context.new_page())
            if number == 1:
                context.add_cookies([{"name": f"kt_seat_{self.code}", "value": host.token, "url": base}])
                page.goto(f"{base}/play/{self.code}/")
            else:
                page.goto(f"{base}/play/{self.code}/join")
                page.fill("#name", name)
                page.click(".join-form button")
                expect(page.locator(".room-lobby")).to_be_visible()
            token = next(c["value"] for c in context.cookies() if c["name"] == f"kt_seat_{self.code}")
            self.screens.append(Screen(name, f"p{number}", context, page, token))
        table = self.browser.new_context(viewport=LAPTOP, locale="en-GB")
        self.screens.insert(0, Screen("table", None, table, self.watch(table.new_page())))
        host_page = self.screens[1].page
        expect(host_page.locator(".lobby-seats li")).to_have_count(self.players, timeout=WAIT)
        host_page.reload()
        self.screens[0].page.goto(f"{base}/play/{self.code}/table")
        host_page.click("text=Start the game")
        for screen in self.screens:
            kind = ".table-view" if screen.seat is None else ".seat-view"
            expect(screen.page.locator(f".game{kind}")).to_be_visible(timeout=WAIT)
        self.ids = Ids(Room.objects.get(pk=self.room.pk))
        self.check("start")

    def close(self) -> None:
        self.http.close()
        for screen in self.screens:
            if not screen.extra:
                screen.context.close()

    # --- the room on the server -----------------------------------------------------------

    def fresh(self) -> Room:
        return Room.objects.get(pk=self.room.pk)

    def version(self) -> int:
        return self.fresh().version

    def fail(self, message: str) -> None:
        raise AssertionError(f"{message}\nKARTOTHEK_CHAOS_SEED={self.seed} ({self.game})\n"
                             + "\n".join(self.log[-40:]))

    # --- moves ----------------------------------------------------------------------------

    def next_move(self, avoid: Screen | None = None) -> tuple[Screen, dict[str, Any]] | None:
        """A seat with a move (a bot picks it, seeded) and that move, in pack keys."""
        state = rooms.room_state(self.fresh())
        assert state is not None
        seats = [s for s in self.screens if s.seat is not None and not s.extra and s is not avoid]
        self.rng.shuffle(seats)
        for screen in seats:
            action = bots.act(self.game, state, screen.seat, self.rng)
            if action is not None:
                return screen, action
        return None

    def tap(self, screen: Screen, action: dict[str, Any], *, double: bool = False) -> None:
        """Tap the button that carries ``action`` on the screen's page; wait until it is applied."""
        before = self.version()
        # The player taps what the screen shows once it shows the room as it is (a tap on an
        # older version is "someone was faster", a 409, in every game but Sign).
        deadline = time.monotonic() + CATCH_UP
        while self._shown(screen) != before:
            if time.monotonic() > deadline:
                self.fail(f"{screen.name} shows version {self._shown(screen)} of {before} "
                          f"{CATCH_UP} s later, before its tap")
            time.sleep(0.05)
        self.taps += 1
        shown = cardids.translate(action, rooms.card_maps(self.fresh())[0])
        raw = json.dumps(shown, sort_keys=True, separators=(",", ":"))
        page = screen.page
        button = page.locator(f"button[data-action='{raw}']")
        grey = page.locator(f"button[data-action-grey='{raw}']")
        try:
            expect(button.or_(grey).first).to_be_visible(timeout=WAIT)
        except AssertionError:
            self.fail(f"{screen.name} has no button for {raw}")
        if not button.count():  # a grey marker: choose it, then tap the tile
            page.locator("[data-marker-choice] input[value=grey]").check()
            button = grey
        self.log.append(f"  {screen.name} taps {raw}{' twice' if double else ''}")
        if double:
            button.first.dblclick()
        else:
            button.first.click()
        deadline = time.monotonic() + WAIT / 1000
        while self.version() <= before:
            if time.monotonic() > deadline:
                self.fail(f"{screen.name}'s tap on {raw} was not applied")
            time.sleep(0.05)
        state = rooms.room_state(self.fresh())  # Sign: what has been face up is public since
        assert state is not None
        self.secrets.observe(state)

    # --- the invariant --------------------------------------------------------------------

    def check(self, label: str) -> None:
        """Within ``CATCH_UP`` s every screen shows the room's current version; then nothing any
        screen shows belongs to another seat."""
        deadline = time.monotonic() + CATCH_UP
        while True:
            version = self.version()
            shown = {s.name + (" (2nd tab)" if s.extra else ""): self._shown(s) for s in self.screens}
            behind = {name: v for name, v in shown.items() if v != version}
            if not behind:
                if time.monotonic() > deadline - CATCH_UP + 1.5:
                    self.log.append(f"  caught up after {time.monotonic() - deadline + CATCH_UP:.1f} s")
                break
            if time.monotonic() > deadline:
                self.fail(f"{label}: the room is at version {version}, but {behind} "
                          f"{CATCH_UP} s later")
            time.sleep(0.1)
        if self.errors:
            self.fail(f"{label}: the server failed: {self.errors}")
        self._check_secrets(label, version)

    def _shown(self, screen: Screen) -> int | None:
        try:
            return screen.page.evaluate(VERSION)
        except Exception:  # navigating (a reload): no version yet
            return None

    def _render(self, url: str, token: str | None) -> tuple[int, set[str]]:
        """The items of a fragment the server renders for a seat's token (None: the table),
        and the version it shows."""
        headers = {"X-Requested-With": "fetch"}
        if token:
            headers["Cookie"] = f"kt_seat_{self.code}={token}"
        response = self.http.get(url, headers=headers)
        self.http.cookies.clear()
        if response.status_code != 200:
            self.fail(f"the fragment {url} for {token and token[:6]} is a {response.status_code}")
        return int(response.headers["X-Room-Version"]), RenderedItems(response.text).items

    def _check_secrets(self, label: str, version: int) -> None:
        room = self.fresh()
        state = rooms.room_state(room)
        assert state is not None
        self.secrets.observe(state)
        fragment = f"/play/{self.code}/fragment"
        rendered: dict[str | None, set[str]] = {}
        for seat, token in [(None, None)] + [(s.seat, s.token) for s in self.screens
                                             if s.seat is not None and not s.extra]:
            at, rendered[seat] = self._render(fragment + ("?table=1" if seat is None else ""), token)
            if at != version or room.version != version:
                self.log.append(f"  ({label}: moved on from {version} while checking)")
                return  # moved on meanwhile (a timer): the next check looks again
        for screen in self.screens:
            items = set(screen.page.evaluate(DOM_ITEMS, list(ITEM_ATTRIBUTES)) or [])
            leaked = sorted(_leaks(items, rendered, screen.seat))
            if leaked:
                self.fail(f"{label}: {screen.name} shows what only another seat sees: {leaked[:5]}")
            if screen.seat is not None:  # the search has teeth: read as another seat's screen,
                other = next(s for s in rendered if s not in (None, screen.seat))  # it is caught
                self.teeth += bool(_leaks(items, rendered, other))
            seat = room.seats.get(seat=screen.seat) if screen.seat else None
            body = rooms.snapshot(room, seat)
            problems = self.ids.problems(self.secrets, state, screen.seat, body)
            if problems:
                self.fail(f"{label}: the view for {screen.name} carries {problems[:5]}")

    # --- the disturbances -----------------------------------------------------------------

    def cut(self, screen: Screen) -> int:
        """The server ends the screen's event streams: uvicorn closes their connections from its
        side (what a proxy's timeout, a load balancer or a worker's restart does). Waits up to
        ``CATCH_UP`` s for a stream to cut (a page may be between streams); returns how many."""
        mark = b"as=table" if screen.seat is None else f"kt_seat_{self.code}={screen.token}".encode()
        deadline = time.monotonic() + CATCH_UP
        while True:
            found = []
            for protocol in list(self.server.server.server_state.connections):
                scope = getattr(getattr(protocol, "cycle", None), "scope", None)
                if not scope or not scope["path"].endswith("/events"):
                    continue
                cookies = b" ".join(value for name, value in scope["headers"] if name == b"cookie")
                if mark in scope["query_string"] or mark in cookies:
                    found.append(protocol)
            if found or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        for protocol in found:
            protocol.loop.call_soon_threadsafe(protocol.transport.close)
        return len(found)

    def step(self, number: int) -> bool:
        """One move, a disturbance (every ``disturb_every`` steps), the invariant. False when the
        game is over."""
        for extra in [s for s in self.screens if s.extra]:
            extra.page.close()
            self.screens.remove(extra)
        if self.fresh().status == Room.Status.FINISHED:
            return False
        kind = self.rng.choice(CHOSEN) if number % self.disturb_every == 0 else None
        target = self.rng.choice(self.screens)
        move = self.next_move()
        if move is None:
            self.fail(f"step {number}: nobody has a move")
        mover, action = move
        if kind == "double_tap":
            target = mover
        self.log.append(f"step {number}: v{self.version()} {kind or '-'} on {target.name}")
        self.tap(mover, action, double=kind == "double_tap")
        if kind == "reload":
            target.page.reload()
        elif kind == "second_tab":
            page = self.watch(target.context.new_page())
            page.goto(target.page.url)
            self.screens.append(Screen(target.name, target.seat, target.context, page, target.token, True))
        elif kind == "cut":
            self.log.append(f"  the server closed {self.cut(target)} stream(s) of {target.name}")
            self.move_meanwhile(target)  # a move while the stream is down
        elif kind == "offline":
            self.offline(target)
        self.check(f"step {number} ({kind or 'no disturbance'} on {target.name})")
        return True

    def offline(self, screen: Screen) -> None:
        """The screen's network drops for a while; another seat moves meanwhile (when one can)."""
        span = self.rng.uniform(*self.offline_span)
        screen.context.set_offline(True)
        self.log.append(f"  {screen.name} offline for {span:.1f} s")
        started = time.monotonic()
        try:
            self.move_meanwhile(screen)
            time.sleep(max(0.0, span - (time.monotonic() - started)))
        finally:
            screen.context.set_offline(False)

    def move_meanwhile(self, screen: Screen) -> None:
        """Another seat moves (when one can) while ``screen`` is disturbed."""
        if self.fresh().status != Room.Status.FINISHED:
            move = self.next_move(avoid=screen)
            if move is not None:
                self.tap(*move)

    def play(self, max_steps: int = 400) -> int:
        self.open()
        steps = 0
        while self.step(steps):
            steps += 1
            if steps >= max_steps:
                self.fail(f"the game did not end in {max_steps} steps")
        if not self.teeth:
            self.fail("no screen showed anything of its own seat: the secrecy search saw nothing")
        return steps
