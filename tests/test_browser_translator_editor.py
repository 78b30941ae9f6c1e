"""A translator in the side-by-side editor, in a real browser (issue 23.2–23.4): the checks
run as they type, the card says "does not fit" before saving, a suggestion from the
translation memory is taken with one click, and the saved row stays on the "missing" page."""

import re

import pytest
from playwright.sync_api import expect

from cards.catalogue import import_catalogue
from cards.models import ConceptCard
from tests.conftest import MINI, log_in_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = "docs/screenshots"


@pytest.fixture
def editor(live_server, page):
    assert not import_catalogue(MINI).errors
    card = ConceptCard.objects.create(key="die-liebe", text="Die Liebe")
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in_as(page, live_server.url, "Translators", "tina", "uebersetzen-1",
              wait_for="text=Progress and editor")
    page.goto(f"{live_server.url}/admin/cards/translate/symbols/en/?state=empty")
    return page, card


def test_a_translator_sees_checks_and_fit_while_typing_takes_a_suggestion_and_keeps_the_row(
        live_server, editor):
    page, card = editor
    ident = f"conceptcard-{card.pk}-text"
    row = page.locator(f"#unit-{ident}")
    box = row.locator("textarea")
    checks = page.locator(f"#checks-{ident}")
    expect(checks).to_have_attribute("aria-live", "polite")
    # the memory: "Liebe" is approved as "Love"; "Die Liebe" is similar, with its score
    suggestion = row.locator(".suggestions li", has_text="Love")
    expect(suggestion).to_contain_text("% · from “Liebe”")

    # a failing text: the finding is there before saving, in words and with an icon
    box.type("The love!")
    finding = checks.locator("li.finding-ending-punctuation")
    expect(finding).to_contain_text("The German ends with no punctuation mark")
    expect(finding.locator(".icon")).to_have_text("⚠")
    expect(checks).to_contain_text("checked as typed, not saved yet")
    card_row = page.locator("#editor tr.card-live")
    expect(card_row).to_be_visible()
    page.screenshot(path=f"{SHOTS}/translator-editor-live-check.png")

    # too long for the card's line: "Does not fit" and the card drawn large, before saving
    box.fill("The love that moves the sun and all the other stars at night")
    expect(card_row.locator(".card-live-status")).to_contain_text("Does not fit")
    expect(checks.locator("li.finding-does-not-fit")).to_contain_text("too long")
    front = card_row.locator("figure img").first
    expect(front).to_have_attribute("alt", re.compile("The love that moves the sun"), timeout=10_000)
    width = front.evaluate("img => img.getBoundingClientRect().width")
    assert width >= 200, width  # readable, not the 44-px thumbnail
    card_row.scroll_into_view_if_needed()
    page.screenshot(path=f"{SHOTS}/translator-editor-does-not-fit.png")

    # one click takes the suggestion into the box; nothing is saved yet
    suggestion.locator("button.take-suggestion").click()
    expect(box).to_have_value("Love")
    expect(checks.locator(".no-findings")).to_have_text("✓ no problems found")
    expect(card_row.locator(".card-live-status")).to_contain_text("Every text fits the card")
    assert card.translation("text", "en") is None

    page.click("input[value='Save this page']")
    expect(page.locator(".messagelist .success")).to_contain_text("Saved 1 translation")
    kept = page.locator(f"#unit-{ident}")
    expect(kept).to_be_visible()  # the "missing" view keeps the saved text on the page
    expect(kept.locator(".saved-mark")).to_have_text("✓ saved")
    expect(kept.locator("textarea")).to_have_value("Love")
    expect(page.locator(".kept-note")).to_contain_text("until you leave it")
    page.screenshot(path=f"{SHOTS}/translator-editor-saved-row-kept.png")
    saved = card.translation("text", "en")
    assert (saved.text, saved.state) == ("Love", "translated")

    page.locator(".kept-note a").click()  # the page as it is now: the text is no longer missing
    expect(page.locator(f"#unit-{ident}")).to_have_count(0)


def test_a_suggestion_is_taken_by_keyboard(live_server, editor):
    page, card = editor
    ident = f"conceptcard-{card.pk}-text"
    box = page.locator(f"#text-{ident}")
    box.focus()
    page.keyboard.press("Tab")  # from the box to its first suggestion's button
    focused = page.evaluate("document.activeElement.className")
    assert focused == "take-suggestion", focused
    page.keyboard.press("Enter")
    expect(box).to_have_value("Love")
    expect(box).to_be_focused()
