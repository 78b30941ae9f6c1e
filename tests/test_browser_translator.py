"""A translator's round trip in a real browser: download the PO file, translate, upload."""

import polib
import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import expect

from cards.catalogue import import_catalogue
from cards.models import ConceptCard, Translation
from tests.conftest import MINI

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def translator_page(live_server, page):
    assert not import_catalogue(MINI).errors
    user = User.objects.create_user(username="tina", password="uebersetzen-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Translators"))
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "tina")
    page.fill("#id_password", "uebersetzen-1")
    page.click("input[type=submit]")
    page.wait_for_selector("text=Progress and editor")
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
