"""A curator edits cards in a real browser (Playwright driving Debian's Chromium)."""

import pytest
from playwright.sync_api import expect

from cards.models import SauschwerObject, Slogan

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]



def test_a_curator_finds_a_slogan_and_moves_its_correct_option(live_server, curator_page):
    page = curator_page
    page.click("#content-main >> text=Slogans")
    page.fill("#searchbar", "Just do it")
    page.press("#searchbar", "Enter")
    page.click("a:has-text('Just do it.')")
    # Mark option 2 as correct too: the admin refuses and says why.
    page.check("#id_options-1-is_correct")
    page.click("input[name=_save]")
    assert page.locator(".errorlist").first.inner_text().startswith(
        "Exactly one answer option must be correct, not 2."
    )
    assert Slogan.objects.get(key="just-do-it").correct_option.text == "Nike"
    # Untick the old correct option: now it saves.
    page.uncheck("#id_options-3-is_correct")
    page.fill("#id_options-1-text", "Nike")
    page.fill("#id_options-3-text", "Puma")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    slogan = Slogan.objects.get(key="just-do-it")
    assert slogan.correct_option.text == "Nike"
    assert slogan.correct_option.position == 2


def test_the_symbol_list_shows_the_pictures(live_server, curator_page):
    page = curator_page
    page.click("#content-main >> text=Symbol tiles")
    pictures = page.locator(".field-thumbnail img")
    expect(pictures).to_have_count(9)
    page.wait_for_load_state("load")
    # Each picture really loaded (a broken image has no natural width).
    widths = pictures.evaluate_all("imgs => imgs.map(i => i.naturalWidth)")
    assert widths == [512] * 9


def test_a_curator_imports_a_spreadsheet_with_preview_and_confirm(live_server, curator_page,
                                                                  tmp_path):
    page = curator_page
    csv = tmp_path / "dinge.csv"
    csv.write_text("key,name,weight_g,source\n"
                   "ein-huehnerei,Ein Hühnerei,60,Handelsklasse M: 53–63 g\n"
                   "ein-apfel,Ein Apfel,180,Durchschnitt\n", encoding="utf-8")
    page.goto(f"{live_server.url}/admin/cards/sauschwerobject/")
    page.click("a.import_link")
    page.set_input_files("#id_import_file", str(csv))
    page.select_option("#id_format", label="CSV")
    page.click("input[type=submit]")
    # The preview: one new row, one unchanged; nothing is in the database yet.
    preview = page.locator("table.import-preview")
    expect(preview).to_contain_text("New")
    expect(preview).to_contain_text("Ein Apfel")
    assert not SauschwerObject.objects.filter(key="ein-apfel").exists()
    page.screenshot(path=str(tmp_path / "preview.png"))
    page.click("input[type=submit][name=confirm], form[action*=process_import] input[type=submit]")
    expect(page.locator(".messagelist .success")).to_contain_text(
        "Import finished (Sauschwer objects): 1 new, 0 updated, 1 unchanged"
    )
    assert SauschwerObject.objects.get(key="ein-apfel").weight_g == 180
