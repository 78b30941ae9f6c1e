"""A translator's round trip in a real browser: download the PO file, translate, upload."""

import polib
import pytest
from playwright.sync_api import expect

from cards.catalogue import import_catalogue
from cards.models import ConceptCard, Translation
from tests.conftest import MINI, log_in_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def translator_page(live_server, page):
    assert not import_catalogue(MINI).errors
    log_in_as(page, live_server.url, "Translators", "tina", "uebersetzen-1",
              wait_for="text=Progress and editor")
    return page


def test_a_translator_fills_a_missing_translation_through_a_po_file(live_server, translator_page,
                                                                     tmp_path):
    Translation.objects.filter(text="Love").delete()
    page = translator_page
    page.click("text=Progress and editor")
    row = page.locator("#progress tbody tr", has_text="Sag's mit Symbolen")
    expect(row).to_contain_text("94 %")  # 17 of the 18 texts
    with page.expect_download() as download:
        row.locator("text=download").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    po = polib.pofile(str(path))
    next(e for e in po if e.msgctxt == "liebe:text").msgstr = "Love"
    po.save(str(path))
    row.locator("input[type=file]").set_input_files(str(path))
    row.locator("input[type=submit]").click()
    expect(page.locator(".messagelist .success")).to_contain_text("1 updated")
    expect(page.locator("#progress tbody tr", has_text="Sag's mit Symbolen")).to_contain_text("100 %")
    assert ConceptCard.objects.get(key="liebe").translation("text", "en").text == "Love"


def test_a_translator_who_edits_an_approved_text_sees_it_turn_translated_and_no_approve_button(
        live_server, translator_page):
    page = translator_page
    page.goto(f"{live_server.url}/admin/cards/translate/symbols/en/?q=Grandmother")
    expect(page.locator("input[name=approve_page]")).to_have_count(0)
    row = page.locator("#editor tbody tr", has_text="Oma")
    row.locator("textarea").fill("Granny")
    page.click("input[value='Save this page']")
    expect(page.locator(".messagelist")).to_contain_text("translated again until a reviewer approves it")
    page.screenshot(path="docs/screenshots/translator-review-edited-approved.png", full_page=True)
    oma = ConceptCard.objects.get(key="oma").translation("text", "en")
    assert (oma.text, oma.state) == ("Granny", "translated")


def test_a_translator_on_a_curators_page_gets_a_styled_page_that_names_the_role(
        live_server, translator_page):
    page = translator_page
    response = page.goto(f"{live_server.url}/admin/cards/deleted/")
    assert response is not None and response.status == 403
    expect(page.locator("#content-main")).to_contain_text("held by Curators")
    expect(page.locator("#header")).to_be_visible()  # the admin's own header, styled
    page.screenshot(path="docs/screenshots/translator-403.png", full_page=True)
