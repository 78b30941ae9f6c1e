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

