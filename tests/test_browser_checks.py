"""A translator sees the translation checks beside a text in the editor, fixes the text, and
the finding is gone after saving; the editor fits a 1280-px window."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cards.catalogue import import_catalogue
from cards.models import Slogan, Translation, TranslationState
from tests.conftest import MINI, log_in_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Set KARTOTHEK_SCREENSHOTS=DIR to keep the pictures (they are looked at, not compared).
SCREENSHOTS = os.environ.get("KARTOTHEK_SCREENSHOTS")


def keep_picture(page: Page, tmp_path: Path, name: str) -> None:
    folder = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    page.screenshot(path=str(folder / name), full_page=True)


def fits_1280(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280, f"the page is {width} px wide"
    # No cell's content runs out of the editor's table either.
    overflowing = page.evaluate("""() => [...document.querySelectorAll('#editor td')]
        .filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.innerText.slice(0, 40))""")
    assert overflowing == []


@pytest.fixture
def translator(live_server, browser):  # type: ignore[no-untyped-def]
    assert not import_catalogue(MINI).errors
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    log_in_as(page, live_server.url, "Translators", "tina", "uebersetzen-1",
              wait_for="text=Progress and editor")
    return page


def test_a_translator_sees_a_placeholder_finding_fixes_it_and_it_is_gone(live_server, translator,
                                                                         tmp_path):
    slogan = Slogan.objects.get(key="just-do-it")
    slogan.text = "Just do it mit …"  # the German now names its brand; the English does not
    slogan.save()
    Translation.objects.filter(object_id=slogan.pk, content_type__model="slogan").update(
        text="Just do it.", state=TranslationState.TRANSLATED)
    page = translator
    page.click("text=Progress and editor")
    expect(page.locator("#progress tbody tr", has_text="Slogan")).to_contain_text("1 placeholder …")
    page.locator("#progress tbody tr", has_text="Slogan").locator("text=translate…").click()
    page.fill("#editor-q", "Just do it")
    page.click("form.editor-search button[type=submit]")
    row = page.locator(f"#unit-slogan-{slogan.pk}-text")
    finding = row.locator("li.finding-placeholder")
    expect(finding).to_contain_text("where the brand goes")
    expect(row.locator("a.dismiss")).to_have_count(0)  # a translator cannot dismiss
    fits_1280(page)
    keep_picture(page, tmp_path, "editor-checks-1280.png")

    row.locator("textarea").fill("Just do it with …")
    page.click("input[value='Save this page']")
    expect(page.locator(".messagelist .success")).to_contain_text("Saved 1 translation")
    row = page.locator(f"#unit-slogan-{slogan.pk}-text")
    expect(row.locator("textarea")).to_have_value("Just do it with …")
    expect(row.locator("li.finding")).to_have_count(0)
    expect(row.locator(".no-findings")).to_be_visible()
    assert Translation.objects.get(object_id=slogan.pk, content_type__model="slogan").text == (
        "Just do it with …")


def test_copy_to_en_puts_the_german_brand_name_into_the_box(live_server, translator, tmp_path):
    page = translator
    page.goto(f"{live_server.url}/admin/cards/translate/slogan/en/?q=Milka")
    row = page.locator("#editor tbody tr").first
    source = row.locator(".source-text").inner_text().strip()
    row.locator("button.copy-source").click()
    expect(row.locator("textarea")).to_have_value(source)
    fits_1280(page)
    keep_picture(page, tmp_path, "editor-copy-1280.png")
