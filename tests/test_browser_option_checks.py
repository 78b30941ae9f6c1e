"""A slogan card's answer checks in a real browser (Chromium): a Curator finds the finding on
the card's page, dismisses it by keyboard alone with a reason, and sees why it was dismissed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from cards.models import BrandOwnership, CheckDismissal, SloganCard, SloganOption

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("KARTOTHEK_SHOTS", "/tmp/kartothek-shots"))


def test_a_curator_dismisses_a_sister_brand_finding_by_keyboard(live_server, curator_page):
    page = curator_page
    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/s")
    option = SloganOption.objects.get(slogan__key="ich-bin-doch-nicht-bloed", position=1)
    option.text = "Saturn"
    option.save()
    card = SloganCard.objects.get(key="karte-001")
    page.goto(f"{live_server.url}/admin/cards/slogancard/{card.pk}/change/")
    checks = page.get_by_role("region", name="Answer checks")
    expect(checks).to_contain_text("Open: Option from the answer's company group")
    expect(checks).to_contain_text("“Saturn” and the answer “Media Markt”")
    SHOTS.mkdir(parents=True, exist_ok=True)
    checks.screenshot(path=str(SHOTS / "answer-checks-open.png"))
    link = checks.get_by_role("link", name="Dismiss Option from the answer's company group on "
                                           "ich-bin-doch-nicht-bloed option_1")
    link.focus()
    page.keyboard.press("Enter")
    reason = page.get_by_label("Why is this fine for this card?", exact=False)
    reason.focus()
    page.keyboard.type("Saturn stands here only for this test.")
    page.keyboard.press("Tab")  # to the Dismiss button
    page.keyboard.press("Enter")
    expect(checks).to_contain_text("Dismissed: Option from the answer's company group")
    expect(checks).to_contain_text("Saturn stands here only for this test.")
    checks.screenshot(path=str(SHOTS / "answer-checks-dismissed.png"))
    assert CheckDismissal.objects.get(check_name="same-group").dismissed_by.username == "carla"
