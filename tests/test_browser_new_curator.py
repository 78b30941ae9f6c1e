"""The everyday tasks tried in Chromium as a new curator would, from the README alone: add a
card, a slogan card, translate and approve, export → edit → import, print, publish, revert.

Every page is photographed at 1280 px (``KARTOTHEK_SCREENSHOTS=DIR`` keeps them; otherwise a
temporary folder) and none may be wider than the window."""

import io
import os
import re
from pathlib import Path

import openpyxl
import pytest
from django.urls import reverse

from cards.models import ConceptCard, SauschwerObject, Slogan, SloganCard, Translation
from exports.models import Release

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 1280


class Walk:
    """Looks at each page: a screenshot, and how wide the page is."""

    def __init__(self, page, folder: Path) -> None:
        self.page, self.folder, self.widths, self.count = page, folder, {}, 0

    def look(self, name: str) -> None:
        self.page.wait_for_load_state("load")
        self.count += 1
        self.widths[name] = self.page.evaluate("document.documentElement.scrollWidth")
        self.page.screenshot(path=str(self.folder / f"{self.count:02d}-{name}.png"), full_page=True)


@pytest.fixture
def walk(curator_page, tmp_path_factory):
    folder = Path(os.environ.get("KARTOTHEK_SCREENSHOTS") or tmp_path_factory.mktemp("curator"))
    folder.mkdir(parents=True, exist_ok=True)
    curator_page.set_viewport_size({"width": WIDTH, "height": 900})
    return Walk(curator_page, folder)


def _success(page) -> str:
    page.wait_for_selector(".messagelist .success")
    return page.locator(".messagelist .success").first.inner_text()


def test_a_new_curator_does_the_everyday_tasks_without_a_dead_end(live_server, walk, tmp_path):
    page, look = walk.page, walk.look
    page.goto(f"{live_server.url}/admin/")
    look("index")

    # 1. Add a card: the key fills itself from the German text; a translation on the same page.
    page.click("#content-main >> text=Concept cards")
    look("concept-list")
    page.click(".object-tools a.addlink")
    page.locator("#id_text").press_sequentially("Gänseblümchen")
    assert page.input_value("#id_key") == "gaensebluemchen"
    page.click(".inline-group .add-row a")
    page.fill("textarea[name$='-0-text']", "Daisy")
    look("concept-add")
    page.click("input[name=_save]")
    assert "was added successfully" in _success(page)
    card = ConceptCard.objects.get(key="gaensebluemchen")
    assert card.translation("text", "en").text == "Daisy"

    # A Sauschwer object with its weight as one says it.
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_add')}")
    page.locator("#id_name").press_sequentially("Ein Kühlschrank")
    page.fill("#id_weight_g", "55kg")
    page.fill("#id_source", "Datenblatt")
    look("object-add")
    page.click("input[name=_continue]")
    _success(page)
    assert SauschwerObject.objects.get(key="ein-kuehlschrank").weight_g == 55_000
    assert page.input_value("#id_weight_g") == "55 kg"
    assert page.locator(".field-key .readonly").inner_text() == "ein-kuehlschrank"
    look("object-change")

    # 2. A slogan card: one page, both slogans, options numbered, the correct one a radio.
    page.goto(f"{live_server.url}/admin/")
    page.click("#content-main >> text=Slogan cards")
    page.click(".object-tools a.addlink")
    slogans = [("… macht Kinder froh.", ["Haribo", "Katjes", "Storck", "Trolli"], 1,
                "Haribo-Werbung"),
               ("… wäscht so weiß.", ["Ariel", "Persil", "Omo", "Dash"], 2, "Persil-Werbung")]
    for n, (text, options, correct, source) in enumerate(slogans):
        page.locator(f"#id_slogans-{n}-text").press_sequentially(text)
        for i, option in enumerate(options, start=1):
            page.fill(f"#id_slogans-{n}-option_{i}", option)
        page.check(f"input[name='slogans-{n}-correct'][value='{correct}']")
        page.fill(f"#id_slogans-{n}-source", source)
        page.fill(f"#id_slogans-{n}-markets", "de")
    assert page.input_value("#id_slogans-0-key") == "macht-kinder-froh"
    look("slogan-card-add")
    page.click("input[name=_save]")
    _success(page)
    persil = Slogan.objects.get(key="waescht-so-weiss")
    assert (persil.side, persil.source, persil.correct_option.text) == (2, "Persil-Werbung", "Persil")
    look("slogan-card-list")
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_change', args=[persil.card_id])}")
    assert page.locator("input[name='slogans-1-correct'][value='2']").is_checked()
    look("slogan-card-change")

    # 3. Translate and approve, in the editor.
    page.goto(f"{live_server.url}/admin/")
    page.click("text=Progress and editor")
    look("progress")
    page.goto(f"{live_server.url}{reverse('admin:cards_translate', args=['sauschwer', 'en'])}")
    row = page.locator("#editor tbody tr", has_text="Ein Kühlschrank")
    row.locator("textarea").fill("A fridge")
    row.locator("select").select_option("approved")
    look("editor")
    page.click("input[value='Save this page']")
    page.wait_for_load_state("load")
    fridge = SauschwerObject.objects.get(key="ein-kuehlschrank").translation("name", "en")
    assert (fridge.text, fridge.state) == ("A fridge", "approved")
    look("editor-saved")

    # 4. Export → edit → import, from the list page's own buttons.
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_changelist')}")
    look("object-list")
    page.click("a.export_link")
    look("export")
    page.select_option("#id_format", label="XLSX")
    with page.expect_download() as download:
        page.click("input[type=submit]")
    book = openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
    sheet = book.active
    assert sheet.title == "sauschwer_objects"
    header = [c.value for c in sheet[1]]
    for cells in sheet.iter_rows(min_row=2):
        if cells[header.index("key")].value == "ein-kuehlschrank":
            assert cells[header.index("weight_g")].value == 55_000  # a number cell
            cells[header.index("weight_g")].value = "60 kg"
    edited = tmp_path / "objekte.xlsx"
    book.save(edited)
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_changelist')}")
    page.click("a.import_link")
    page.set_input_files("#id_import_file", str(edited))
    page.select_option("#id_format", label="CSV")  # the wrong format first
    page.click("input[type=submit]")
    assert "This is an XLSX workbook, not CSV: choose XLSX" in page.locator(".errorlist").inner_text()
    look("import-wrong-format")
    page.set_input_files("#id_import_file", str(edited))
    page.select_option("#id_format", label="XLSX")
    look("import")
    page.click("input[type=submit]")
    summary = page.locator("#import-summary").inner_text()
    assert "0 new" in summary and "1 updated" in summary and "0 errors" in summary
    page.check("#only-changes")
    assert page.locator("table.import-preview tr.skip").first.is_hidden()
    look("import-preview")
    page.click("input[name=confirm]")
    _success(page)
    assert SauschwerObject.objects.get(key="ein-kuehlschrank").weight_g == 60_000

    # 5. Print: the game's print page from the index.
    page.goto(f"{live_server.url}/admin/")
    page.locator("#content-main a", has_text="Print deck (PDF)").last.click()
    look("print")
    with page.expect_download() as download:
        page.click("input[name=print]")
    assert Path(download.value.path()).read_bytes().startswith(b"%PDF")

    # 6. Publish.
    page.goto(f"{live_server.url}/admin/")
    page.click("text=Publish content packs")
    look("publish")
    page.locator("#pack-sauschwer-de a.button").click()  # review what the release will change
    page.wait_for_load_state("load")
    look("publish-review")
    page.fill("#id_note", "Kühlschrank dazu.")
    page.check("#id_confirm")
    page.click("#publish-form input[type=submit]")
    page.wait_for_load_state("load")
    assert Release.objects.filter(game="sauschwer", language="de").exists()
    look("published")

    # 7. Revert: the card's history, the version before the edit, the diff, Revert.
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_change', args=[card.pk])}")
    page.fill("#id_text", "Gänseblume")
    page.click("input[name=_continue]")
    _success(page)
    row = page.locator(".inline-group tbody tr", has_text="Daisy")
    assert "Gänseblümchen" in row.locator("td.field-german").inner_text()  # made from
    look("concept-change")
    page.click("a.historylink")
    look("history")
    assert "Changed in the admin: text" in page.locator("#change-history").inner_text()
    page.locator("#change-history tbody tr").last.locator("a").first.click()
    diff = page.locator("#revert-diff").inner_text()
    assert "Gänseblume" in diff and "Gänseblümchen" in diff
    look("revert")
    page.click("input[name=_save]")
    _success(page)
    assert ConceptCard.objects.get(pk=card.pk).text == "Gänseblümchen"
    reason = ConceptCard.history.filter(id=card.pk).first().history_change_reason
    assert re.fullmatch(r"Reverted to version \d+ of \d{4}-\d\d-\d\d \d\d:\d\d", reason)

    # Delete a slogan card and bring it back from the deleted cards' page.
    slogan_card = SloganCard.objects.get(slogans__key="waescht-so-weiss")
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_delete', args=[slogan_card.pk])}")
    page.click("input[type=submit]")
    _success(page)
    page.goto(f"{live_server.url}/admin/")
    page.click("text=Deleted cards")
    look("deleted")
    page.click("a.restore-link")
    look("restore")
    page.click("input[name=_save]")
    _success(page)
    assert Slogan.objects.get(key="waescht-so-weiss").correct_option.text == "Persil"
    assert Translation.objects.filter(text="Daisy").exists()

    too_wide = {name: width for name, width in walk.widths.items() if width > WIDTH}
    print(f"\nscreenshots: {walk.folder}; page widths: {walk.widths}")
    assert not too_wide, f"pages wider than {WIDTH} px: {too_wide}"
