"""The curator's rough edges of issue 23, in Chromium at 1280 px: what a page shows before
anything is typed, and what it says when the curator may not do something."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_empty_add_slogan_card_page_opens_without_findings(live_server, curator_page):
    page = curator_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/admin/cards/slogancard/add/")
    preview = page.locator("[data-preview-cards]")
    expect(preview).to_contain_text("Fill in the card to see its preview.")
    page.wait_for_load_state("networkidle")
    expect(page.locator(".card-preview-warning")).to_have_count(0)
    expect(page.locator("text=Does not fit")).to_have_count(0)
    # the form starts in the first screen, not below a box of messages
    first_input = page.locator("form textarea, form input[type=text]").first
    assert first_input.bounding_box()["y"] < 900
    page.screenshot(path="docs/screenshots/curator-empty-slogan-card.png")


def test_a_curator_renames_a_card_and_fixes_its_english_in_one_save(live_server, curator_page):
    """Issue 37, item 1: the normal workflow (German text and English translation changed
    together, one click on Save) saves both; it answered 500 and lost the typing."""
    from cards.models import ConceptCard

    page = curator_page
    page.set_viewport_size({"width": 1280, "height": 900})
    oma = ConceptCard.objects.get(key="oma")
    page.goto(f"{live_server.url}/admin/cards/conceptcard/{oma.pk}/change/")
    page.locator("#id_text").fill("Großmutter")
    english = page.locator("textarea.translation-text").first
    english.fill("Granny")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    oma.refresh_from_db()
    row = oma.translations.get(language="en", field="text")
    assert (oma.text, row.text, row.state) == ("Großmutter", "Granny", "translated")


def test_a_curator_finds_the_cards_players_find_hard_and_reads_why(live_server, curator_page):
    """Issue 37, item 6: the statistics are where a curator looks — a filter in the list and a
    sentence on the card's page (there was only an unexplained "difficulty in play" dash)."""
    from cards.models import ConceptCard
    from games.models import CardPlayStat

    page = curator_page
    page.set_viewport_size({"width": 1280, "height": 900})
    hard = ConceptCard.objects.order_by("key").first()
    CardPlayStat.objects.create(game="symbols", key=hard.key, played=5, right=1, wrong=4, hints=3)
    page.goto(f"{live_server.url}/admin/cards/conceptcard/")
    expect(page.locator("#result_list")).to_contain_text("not played yet")
    page.get_by_role("link", name="Hard: solved in fewer than half of its rounds").click()
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list tbody tr")).to_contain_text(hard.text)
    page.locator("#result_list tbody tr a").first.click()
    expect(page.locator(".field-play_statistics")).to_contain_text(
        "The secret concept in 5 rounds: solved in 1 (20 %).")
    expect(page.locator(".field-play_statistics")).to_contain_text("games of bots never count")
    page.screenshot(path="docs/screenshots/curator-card-in-play.png", full_page=True)
