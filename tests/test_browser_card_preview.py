"""The change page's print preview in a real browser (Playwright driving Debian's Chromium):
a curator types and sees the card change and the "does not fit" warning, without saving."""

from __future__ import annotations

import os

import pytest
from playwright.sync_api import expect

from cards.models import ConceptCard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONGER = ("Ein ausgesprochen langer Begriff, der mit jedem weiteren Wort noch länger wird und "
          "auf keine Zeile passt")
SHOTS = os.environ.get("KARTOTHEK_SCREENSHOTS")  # a folder: keep the screenshots to look at


def test_a_curator_types_a_longer_text_and_sees_the_preview_change_and_the_warning(
        live_server, curator_page):
    page = curator_page
    page.set_viewport_size({"width": 1280, "height": 900})
    csp_violations: list[str] = []
    page.on("console", lambda m: csp_violations.append(m.text)
            if "Content Security Policy" in m.text else None)
    concept = ConceptCard.objects.order_by("key").first()
    page.goto(f"{live_server.url}/admin/cards/conceptcard/{concept.pk}/change/")
    german_front = page.locator('#card-preview figure[data-lang="de"][data-side="front"] img')
    expect(page.locator("#card-preview figure")).to_have_count(4)
    page.wait_for_function("() => [...document.querySelectorAll('#card-preview img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")
    before = german_front.evaluate("img => img.src")
    status = page.locator("#card-preview [role=status]")
    expect(status).to_have_attribute("aria-live", "polite")
    expect(status).to_contain_text("Every text fits")
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/preview-before.png", full_page=True)

    page.fill("#id_text", LONGER)
    # Within a second of the last keystroke: the picture is a new one, the warning is there.
    expect(status).to_contain_text("Does not fit", timeout=1500)
    expect(status).to_contain_text("DE: Does not fit: the DE text of this concept card")
    page.wait_for_function("before => document.querySelector("
                           "'#card-preview figure[data-lang=\"de\"][data-side=\"front\"] img').src"
                           " !== before", arg=before, timeout=1500)
    assert "ausgesprochen langer Begriff" in german_front.get_attribute("alt")
    assert german_front.evaluate("img => img.naturalWidth") == 200
    # the English side still shows the English text; nothing was saved
    english = page.locator('#card-preview figure[data-lang="en"][data-side="front"] img')
    assert "ausgesprochen" not in (english.get_attribute("alt") or "")
    concept.refresh_from_db()
    assert concept.text != LONGER
    # The preview fits a 1280-px window (the translations inline below it is the `ux` part
    # of issue 15, which makes the rest of the page fit).
    box = page.locator("#card-preview").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1280
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/preview-after.png", full_page=True)
    assert not csp_violations

    # Shorter again: the warning goes away.
    page.fill("#id_text", "Kurz")
    expect(status).to_contain_text("Every text fits", timeout=1500)
