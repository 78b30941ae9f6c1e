"""In the browser: the host of an English Slogan room picks the US slogans, and the lobby says so
to the host, to a player who joins by the code, and on the table screen."""

from __future__ import annotations

import os
import re

import pytest
from playwright.sync_api import expect

from exports.packs import publish
from games.models import Room
from tests.play.ui_helpers import assert_fits, fresh_room_caches  # noqa: F401  (autouse)
from tests.test_slogan_markets import UK_CARD, US_CARD, make_card

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}
SHOTS = os.environ.get("KARTOTHEK_SHOTS")  # a folder: keep screenshots to look at


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def test_the_host_picks_the_us_slogans_and_the_lobby_says_so(live_server, browser, mini_catalogue):
    make_card("karte-en-uk", UK_CARD)
    make_card("karte-en-us", US_CARD)
    for edition in ("en-GB", "en-US"):
        publish("slogan", edition)
    host = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
    guest = browser.new_context(viewport=PHONE, locale="en-US").new_page()
    try:
        host.goto(f"{live_server.url}/play/")
        market = host.locator("select[name=market]")
        expect(market).to_be_hidden()  # Sag's mit Symbolen is chosen: no markets
        host.locator("input[name=game][value=slogan]").check()
        host.select_option("#language", "en")
        expect(market).to_be_visible()
        expect(market).to_have_value("GB")  # an en-GB browser: the UK first
        host.select_option("select[name=market]", "US")
        # the release list follows the market: the US deck's releases only
        expect(host.locator("option[data-language='en-US']")).to_be_enabled()
        expect(host.locator("option[data-language='en-GB']")).to_be_disabled()
        shot(host, "market-lobby-form")
        host.select_option("#language", "de")
        expect(market).to_be_hidden()  # German has one deck
        host.select_option("#language", "en")
        host.fill("#name", "Ada")
        host.get_by_role("button", name="Open the room").click()
        expect(host).to_have_url(re.compile(r"/play/[A-Z0-9]+/$"))
        code = host.url.rstrip("/").split("/")[-1]
        assert Room.objects.get(code=code).language == "en-US"
        expect(host.locator(".room-lobby .edition-line")).to_have_text("US slogans")
        expect(host.locator("header .edition-badge")).to_have_text("US slogans")
        assert_fits(host)
        shot(host, "market-room-lobby-host")

        guest.goto(f"{live_server.url}/play/{code}/join")
        expect(guest.locator(".edition-line")).to_have_text("US slogans")
        guest.fill("#name", "Ben")
        guest.click(".join-form button")
        expect(guest.locator(".room-lobby .edition-line")).to_have_text("US slogans")
        expect(guest.locator("header .edition-badge")).to_have_text("US slogans")
        shot(guest, "market-room-lobby-player")

        host.goto(f"{live_server.url}/play/{code}/table")
        expect(host.locator("header .edition-badge")).to_have_text("US slogans")
    finally:
        host.context.close()
        guest.context.close()


def test_the_card_preview_names_the_market_deck_as_the_curator_types(curator_page, live_server):
    from django.urls import reverse

    from cards.models import SloganCard

    page = curator_page
    card = SloganCard.objects.get(key="karte-002")  # known in both markets: no note
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_change', args=[card.pk])}")
    page.wait_for_selector("#card-preview figure[data-lang=en] img")
    assert page.locator("#card-preview [data-decks-lang=en]").count() == 0
    page.fill("#id_slogans-0-markets", "de,en-US")
    note = page.locator("#card-preview [data-decks-lang=en]")
    expect(note).to_contain_text("In the US deck only, not in the UK deck")
    expect(page.locator("#card-preview figure[data-lang=en]")).to_have_count(2)  # still drawn
    shot(page, "market-card-preview")
    page.fill("#id_slogans-1-markets", "de,en-GB")  # one UK-only, one US-only: no English deck
    expect(page.locator("#card-preview [data-absent-lang=en]")).to_contain_text(
        "Not in the English deck")
    expect(note).to_have_count(0)
