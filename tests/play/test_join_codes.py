"""The join box takes a room code as people type or paste it (issue 39, 5): any case, spaces,
dashes, the "ABCD-EFGH" and "ABCD EFGH" forms, surrounding spaces, a whole join link; the
wrong-code page states the real format, and a normalised code is one failed lookup."""

import pytest
from django.core.cache import cache
from playwright.sync_api import Page, expect

from games import rooms
from games.lookup import CODE_LENGTH
from games.models import RateHit
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import PHONE, fresh_room_caches  # noqa: F401  (autouse)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _typed_forms(code: str, base: str) -> list[tuple[str, bool]]:
    """(what is put in the box, pasted?) for one code."""
    half = len(code) // 2
    return [
        (code.lower(), False),
        (f"{code[:half]} {code[half:]}".lower(), False),
        (f"{code[:half]}-{code[half:]}", False),
        (f"{code[:half]} - {code[half:]}", False),
        (f"  {code}  ", True),
        (f"{code[:half]}-{code[half:]}".lower(), True),
        (f"{base}/play/{code}/join", True),
        (f"{base}/play/{code}/table", True),
    ]


def _enter(page: Page, text: str, pasted: bool) -> None:
    box = page.locator("#code")
    box.fill("")
    box.focus()
    if pasted:
        page.keyboard.insert_text(text)  # as a paste: one input event, the box's limits apply
    else:
        box.press_sequentially(text)
    page.get_by_role("button", name="Join", exact=True).click()


def test_a_code_typed_with_spaces_dashes_or_pasted_as_a_link_finds_the_room(live_server, browser):
    release_of("sauschwer")
    room, _host = rooms.open_room(game="sauschwer", language="en", name="Ada")
    base = live_server.url
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    try:
        for start in ("/play/", "/play/ZZZZ4444/join"):  # the lobby's box and the wrong-code page's
            for text, pasted in _typed_forms(room.code, base):
                page.goto(base + start)
                _enter(page, text, pasted)
                expect(page).to_have_url(f"{base}/play/{room.code}/join")
                expect(page.locator("h1 .code-badge")).to_have_text(room.code)
                expect(page.locator("#name")).to_be_visible()
    finally:
        context.close()


@pytest.fixture
def lookups(settings, monkeypatch):
    cache.clear()
    settings.KARTOTHEK_PLAY_LOOKUP_LIMIT = 3
    monkeypatch.setattr("games.ratelimit.clock", lambda: 1_000_000 * 60.0 + 30)  # one minute
    yield
    cache.clear()


def test_the_wrong_code_page_states_the_codes_real_length_and_a_typed_code_is_one_lookup(
        live_server, browser, lookups):
    base = live_server.url
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    page = context.new_page()
    try:
        page.goto(f"{base}/play/")
        expect(page.locator("#code")).to_have_attribute("placeholder", "K7MQ 4TX9")
        expect(page.locator("#code-hint")).to_contain_text(f"{CODE_LENGTH} letters and digits")
        expect(page.locator("#code")).to_have_attribute("aria-describedby", "code-hint")
        _enter(page, "zz4z-4zz4", False)
        expect(page.locator("h1")).to_have_text("No such room")
        expect(page.locator(".error[role=alert]")).to_contain_text("ZZ4Z4ZZ4")
        expect(page.locator("main")).to_contain_text(f"it has {CODE_LENGTH} letters and digits")
        expect(page.locator("main")).not_to_contain_text("five")
        assert sum(RateHit.objects.filter(key__startswith="lookup:").values_list("count", flat=True)) == 1
        # The limit holds for typed codes: the fourth wrong one in a minute is refused.
        for text in ("zz4z 4zz3", "ZZ4Z-4ZZ6"):
            _enter(page, text, False)
            expect(page.locator("h1")).to_have_text("No such room")
        _enter(page, "zz4z 4zz7", False)
        expect(page.locator("body")).to_contain_text("Too many rooms that do not exist")
    finally:
        context.close()
    # In German the page says the same length.
    context = browser.new_context(viewport=PHONE, locale="de-DE")
    try:
        cache.clear()
        RateHit.objects.all().delete()
        page = context.new_page()
        page.goto(f"{base}/play/ZZZZ4444/join")
        expect(page.locator("main")).to_contain_text(f"{CODE_LENGTH} Buchstaben und Ziffern")
    finally:
        context.close()
