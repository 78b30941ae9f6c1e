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
from PIL import Image as PILImage
from playwright.sync_api import expect

from cards.models import (
    BrandOwnership,
    ConceptCard,
    SauschwerObject,
    Slogan,
    SloganCard,
    SloganOption,
    SymbolTile,
    Translation,
)
from cards.pictures import render_icon
from exports.models import Release
from tests.test_browser_curator_fit import BROKEN_WORDS

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


# --- issue 23: one test per point for curators (6–11), each with a screenshot --------------
# (the translators' points, 1–5, and the progress page of 12: tests/test_browser_new_translator.py)

SHOTS = Path("docs/screenshots")
HEIGHT = 800



@pytest.fixture
def carla(curator_page):
    curator_page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    return curator_page


def shot(page, name: str, full: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"curator-walk-{name}.png"), full_page=full)


def test_06_the_empty_add_slogan_card_page_opens_without_findings(live_server, carla):
    page = carla
    page.goto(f"{live_server.url}/admin/")
    page.click("#content-main >> text=Slogan cards")
    page.click(".object-tools a.addlink")
    expect(page.locator("[data-preview-cards]")).to_contain_text(
        "Fill in the card to see its preview.")
    page.wait_for_load_state("networkidle")
    expect(page.locator(".card-preview-warning")).to_have_count(0)
    expect(page.locator("text=Does not fit")).to_have_count(0)
    expect(page.locator("text=the same option appears twice")).to_have_count(0)
    assert page.locator("#id_slogans-0-text").bounding_box()["y"] < HEIGHT  # no wall above it
    shot(page, "06-empty-slogan-card")


def test_07_publishing_names_untranslated_texts_and_asks_first(live_server, carla):
    page = carla
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_add')}")
    page.locator("#id_text").press_sequentially("Gänseblümchen")
    page.click("input[name=_save]")
    _success(page)
    page.goto(f"{live_server.url}/admin/")
    page.click("text=Publish content packs")
    page.locator("#pack-symbols-en a.button").click()
    untranslated = page.locator("#untranslated")
    expect(untranslated).to_contain_text("1 text has no EN translation")
    expect(untranslated.locator(".untranslated-list")).to_contain_text("gaensebluemchen")
    expect(untranslated.locator(".untranslated-list")).to_contain_text("Gänseblümchen")
    page.fill("#id_note", "Gänseblümchen dazu.")
    page.check("#id_confirm")
    page.click("#publish-form input[type=submit]")  # without saying yes to the German text
    page.wait_for_load_state("load")
    expect(page.locator("#untranslated .errorlist")).to_be_visible()
    assert not Release.objects.filter(game="symbols", language="en").exists()
    shot(page, "07-publish-asks", full=True)
    page.check("#id_publish_untranslated")
    page.check("#id_confirm")
    page.click("#publish-form input[type=submit]")
    page.wait_for_load_state("load")
    assert Release.objects.filter(game="symbols", language="en").count() == 1


def test_08_list_tables_fit_1280_px_with_every_column_on_screen(live_server, carla):
    page = carla
    for name, last_column in (("sauschwerobject", "column-translation_en"),
                              ("translation", "column-kind"), ("slogan", "column-translation_en")):
        page.goto(f"{live_server.url}{reverse(f'admin:cards_{name}_changelist')}")
        scroll, client = page.evaluate(
            "() => { const b = document.querySelector('#changelist-form .results');"
            " return [b.scrollWidth, b.clientWidth]; }")
        assert scroll <= client, (name, scroll, client)
        box = page.locator(f"#result_list thead th.{last_column}").bounding_box()
        assert box["x"] + box["width"] <= WIDTH, name
        assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
        # a card's own text wraps between words ("Quadratisc/h." was split in the Slogans list)
        assert page.evaluate(BROKEN_WORDS, "#result_list th, #result_list .field-text, "
                                           "#result_list .field-name, #result_list "
                                           "td[class*='field-translation_']") == [], name
        shot(page, f"08-list-{name}")


def test_09_the_import_preview_reads_old_to_new_without_split_words(live_server, carla, tmp_path):
    page = carla
    objects = list(SauschwerObject.objects.order_by("key"))
    upload = tmp_path / "objekte.csv"
    with upload.open("w", newline="", encoding="utf-8") as out:
        out.write("key,name,weight_g,source\n")
        for obj in objects:
            weight = "12 kg" if obj.key == "ein-blauwal" else obj.weight_g
            out.write(f'{obj.key},{obj.name},{weight},"{obj.source}"\n')
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_changelist')}")
    page.click("a.import_link")
    page.set_input_files("#id_import_file", str(upload))
    page.select_option("#id_format", label="CSV")
    page.click("input[type=submit]")
    changed = page.locator("table.import-preview tr.update .diff-change")
    expect(changed).to_have_count(1)
    expect(changed.locator("del")).to_have_text("was 150 t")
    expect(changed.locator("ins")).to_have_text("12 kg")
    kinds = set(page.locator("table.import-preview td.import-type").all_inner_texts())
    assert kinds == {"Changed", "Unchanged"}
    assert "Skipped" not in page.locator("#content").inner_text()
    expect(page.locator("#import-summary")).to_contain_text(f"{len(objects) - 1} unchanged")
    assert page.evaluate(BROKEN_WORDS, "table.import-preview td.import-type, "
                                       "table.import-preview th") == []
    shot(page, "09-import-preview", full=True)


def test_10_history_names_the_user_without_a_403_and_german_only_cards_say_so(
        live_server, carla):
    page = carla
    obj = SauschwerObject.objects.get(key="ein-blauwal")
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_change', args=[obj.pk])}")
    page.fill("#id_source", "Nachgewogen")
    page.click("input[name=_continue]")
    _success(page)
    page.click("a.historylink")
    who = page.locator("#change-history tbody tr").first.locator("td").nth(4)
    expect(who).to_have_text("carla")
    expect(who.locator("a")).to_have_count(0)
    shot(page, "10-history")
    # a slogan card whose slogans are known only in Germany: no English card drawn, and why
    card = SloganCard.objects.filter(slogans__markets="de").distinct().first()
    assert card is not None
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_change', args=[card.pk])}")
    note = page.locator("#card-preview [data-absent-lang=en]")
    expect(note).to_contain_text("Not in the English deck")
    expect(page.locator("#card-preview figure[data-lang=en]")).to_have_count(0)
    note.scroll_into_view_if_needed()
    shot(page, "10-german-only-slogan-card")


def test_11_the_small_ones_read_right(live_server, carla, tmp_path):
    page = carla
    # a saved slogan card's key says what it is
    card = SloganCard.objects.order_by("key").first()
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_change', args=[card.pk])}")
    key = page.locator("fieldset > div.form-row.field-key").first.inner_text()
    assert "karte-" in key and "slug of the German text" not in key
    # the weight's label, the export's format names and file name
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_add')}")
    expect(page.locator("label[for=id_weight_g]")).to_have_text(re.compile(r"^Weight:?$"))
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_changelist')}")
    page.click("a.export_link")
    page.wait_for_url(re.compile(r"/export/"))
    expect(page.locator("#id_format option").first).to_be_attached()  # the export page is up
    formats = page.locator("#id_format option").all_inner_texts()
    assert "XLSX" in formats and "xlsx" not in formats
    expect(page.locator("#content")).not_to_contain_text("Weight G")
    expect(page.locator("#content")).to_contain_text("weight_g")
    page.select_option("#id_format", label="XLSX")
    with page.expect_download() as download:
        page.click("input[type=submit]")
    assert re.fullmatch(r"sauschwer-objects-\d{4}-\d\d-\d\d\.xlsx",
                        download.value.suggested_filename)
    # a history page's breadcrumb names the list, not "Historical …"
    obj = SauschwerObject.objects.get(key="ein-blauwal")
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_history', args=[obj.pk])}")
    page.locator("#change-history tbody tr").last.locator("td a").first.click()
    expect(page.locator(".breadcrumbs")).not_to_contain_text("Historical")
    # the delete page says a card can be restored
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_delete', args=[obj.pk])}")
    expect(page.locator("#content")).to_contain_text("Deleted cards")
    # an import error names the card and shows the column as code; "1 error", not "1 errors"
    upload = tmp_path / "kaputt.csv"
    upload.write_text("key,name,weight_g,source\nein-blauwal,Ein Blauwal,schwer,Lexikon\n",
                      encoding="utf-8")
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_import')}")
    page.set_input_files("#id_import_file", str(upload))
    page.select_option("#id_format", label="CSV")
    page.click("input[type=submit]")
    error = page.locator("#import-errors li").first
    expect(error).to_contain_text("row 2 (“Ein Blauwal”)")
    expect(error.locator("code")).to_have_text("weight_g")
    assert "`" not in error.inner_text()
    expect(page.locator("#import-summary")).to_contain_text("1 error")
    expect(page.locator("#import-summary")).not_to_contain_text("1 errors")
    shot(page, "11-import-error", full=True)
    # filters in sentence case; the Translations list imports and exports
    page.goto(f"{live_server.url}{reverse('admin:cards_slogan_changelist')}")
    filters = page.locator("#changelist-filter")
    expect(filters).to_contain_text("First slogan")
    expect(filters).to_contain_text("German (de)")
    shot(page, "11-filters")
    page.goto(f"{live_server.url}{reverse('admin:cards_translation_changelist')}")
    expect(page.locator("a.import_link")).to_be_visible()
    expect(page.locator("a.export_link")).to_be_visible()
    # the favicon is there (no 404)
    favicon = page.request.get(f"{live_server.url}/favicon.ico")
    assert favicon.ok and favicon.headers["content-type"].startswith("image/")


def test_11_dates_follow_the_browsers_language(live_server, browser):
    from django.contrib.auth.models import Group, User

    from cards.catalogue import import_catalogue
    from tests.conftest import MINI

    assert not import_catalogue(MINI).errors
    user = User.objects.create_user(username="karl", password="karten-pw-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    context = browser.new_context(locale="de-DE", viewport={"width": WIDTH, "height": HEIGHT})
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "karl")
    page.fill("#id_password", "karten-pw-1")
    page.click("input[type=submit]")
    obj = SauschwerObject.objects.get(key="ein-blauwal")
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_history', args=[obj.pk])}")
    history = page.locator("#change-history").inner_text()
    assert "DATUM/ZEIT" in history.upper()  # Django's own words in German
    assert re.search(r"\d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|"
                     r"Oktober|November|Dezember) \d{4} \d\d:\d\d", history), history
    assert "a.m." not in history and "p.m." not in history
    shot(page, "11-german-dates")
    context.close()


# --- issue 37: the previews start from what was typed (points 3, 9, 10) ------------------

# "аusgesprochen" begins with a Cyrillic а (pasted from somewhere): the save refuses it
LOOK_ALIKE = ("Ein \u0430usgesprochen langer Begriff, der mit jedem weiteren Wort noch länger "
              "wird und auf keine Zeile passt")


def test_37_03_a_refused_save_previews_what_was_typed(live_server, carla):
    page = carla
    concept = ConceptCard.objects.order_by("key").first()
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_change', args=[concept.pk])}")
    status = page.locator("#card-preview [role=status]")
    expect(status).to_contain_text("Every text fits the card.")
    page.fill("#id_text", LOOK_ALIKE)
    expect(status).to_contain_text("Does not fit", timeout=3000)
    page.click("input[name=_continue]")
    page.wait_for_load_state("load")
    expect(page.locator("div.form-row.field-text .errorlist")).to_contain_text(
        "mixes Cyrillic and Latin")
    # the page starts from what was typed: the long text drawn, and that it does not fit
    expect(status).to_contain_text("DE: Does not fit")
    expect(status).not_to_contain_text("Every text fits")
    front = page.locator('#card-preview figure[data-lang="de"][data-side="front"] img')
    assert "usgesprochen langer Begriff" in front.get_attribute("alt")
    page.wait_for_function("() => [...document.querySelectorAll('#card-preview img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")
    assert page.input_value("#id_text") == LOOK_ALIKE
    assert ConceptCard.objects.get(pk=concept.pk).text == concept.text  # nothing saved
    shot(page, "37-03-refused-save-preview", full=True)


def test_37_09_a_new_symbol_tile_gets_a_position_and_its_picture_before_saving(
        live_server, carla, tmp_path):
    page = carla
    picture = tmp_path / "sonnenblume.png"
    picture.write_bytes(render_icon("flower", size=256, ink="#d01010"))  # a red flower
    highest = max(SymbolTile.objects.values_list("position", flat=True))
    page.goto(f"{live_server.url}/admin/")
    page.click("#content-main >> text=Symbol tiles")
    page.click(".object-tools a.addlink")
    assert page.input_value("#id_position") == str(highest + 1)
    page.locator("#id_name").press_sequentially("Sonnenblume")
    front = page.locator('#card-preview figure[data-lang="de"][data-side="front"] img')
    expect(front).to_have_attribute("alt", re.compile("Sonnenblume"), timeout=3000)
    before = front.get_attribute("src")
    page.set_input_files("#id_image", str(picture))
    page.wait_for_function("before => document.querySelector("
                           "'#card-preview figure[data-lang=\"de\"][data-side=\"front\"] img')"
                           ".src.indexOf(before) < 0", arg=before, timeout=5000)
    drawn = page.request.get(front.evaluate("img => img.src"))
    assert drawn.ok and _red_pixels(drawn.body()) > 200  # the chosen picture, on the card
    assert not SymbolTile.objects.filter(name="Sonnenblume").exists()  # nothing saved
    page.locator("#card-preview").scroll_into_view_if_needed()
    shot(page, "37-09-tile-picture-before-saving")

    # a position another tile has: refused; the page says to choose the file again
    page.fill("#id_position", "1")
    page.fill("#id_image_source", "Eigenes Foto")
    page.fill("#id_image_licence", "CC0-1.0")
    page.click("input[name=_save]")
    page.wait_for_load_state("load")
    expect(page.locator(".errornote")).to_be_visible()
    note = page.locator(".field-preview .tile-picture-unsaved")
    expect(note).to_contain_text("The picture you chose (sonnenblume.png) was not saved")
    expect(note).to_contain_text("choose the file again")
    page.wait_for_function("() => [...document.querySelectorAll('img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")
    assert not SymbolTile.objects.filter(name="Sonnenblume").exists()
    note.scroll_into_view_if_needed()
    shot(page, "37-09-tile-refused-upload")
    # chosen again, it saves
    page.fill("#id_position", str(highest + 1))
    page.set_input_files("#id_image", str(picture))
    page.click("input[name=_save]")
    assert "was added successfully" in _success(page)
    assert SymbolTile.objects.get(name="Sonnenblume").image_width == 256


def _red_pixels(png: bytes) -> int:
    image = PILImage.open(io.BytesIO(png)).convert("RGB")
    return sum(n for n, (r, g, b) in image.getcolors(1 << 20) if r > 180 and g < 80 and b < 80)


def test_37_10_answer_checks_appear_while_typing(live_server, carla):
    page = carla
    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/s")
    card = SloganCard.objects.get(key="karte-001")
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_change', args=[card.pk])}")
    checks = page.get_by_role("region", name="Answer checks")
    expect(checks).not_to_contain_text("Option from the answer's company group")
    side = next(n for n in (0, 1)
                if page.input_value(f"#id_slogans-{n}-text") == "Ich bin doch nicht blöd!")
    option = page.locator(f"#id_slogans-{side}-option_1")
    original = option.input_value()
    option.fill("Saturn")
    expect(checks).to_contain_text("Open: Option from the answer's company group", timeout=3000)
    expect(checks).to_contain_text("“Saturn” and the answer “Media Markt”")
    expect(checks).to_contain_text("not saved yet: save the card to dismiss it")
    assert SloganOption.objects.filter(text="Saturn").count() == 0  # nothing saved
    checks.scroll_into_view_if_needed()
    shot(page, "37-10-answer-checks-while-typing", full=True)
    option.fill(original)
    expect(checks).not_to_contain_text("Option from the answer's company group", timeout=3000)

    # a new card: no box until a slogan is complete, then its findings as typed
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_add')}")
    expect(checks).to_be_hidden()
    page.fill("#id_slogans-0-text", "Ich bin doch nicht blöd!")
    for n, brand in enumerate(("Saturn", "Conrad", "Media Markt", "Expert"), start=1):
        page.fill(f"#id_slogans-0-option_{n}", brand)
    page.check("input[name='slogans-0-correct'][value='3']")
    expect(checks).to_contain_text("Open: Option from the answer's company group", timeout=3000)
    expect(checks).to_contain_text("not saved yet: save the card to dismiss it")


# --- issue 37: items 1, 4, 6, 8 and 11 ---------------------------------------------------------


def test_37_01_renaming_a_card_and_fixing_its_english_is_one_save(live_server, carla):
    """The normal workflow (German text and English translation changed together, one click on
    Save) saves both; it answered 500 and lost the typing."""
    page = carla
    oma = ConceptCard.objects.get(key="oma")
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_change', args=[oma.pk])}")
    page.locator("#id_text").fill("Großmutter")
    page.locator("textarea.translation-text").first.fill("Granny")
    shot(page, "37-01-rename-and-fix-english")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    oma.refresh_from_db()
    row = oma.translations.get(language="en", field="text")
    assert (oma.text, row.text, row.state) == ("Großmutter", "Granny", "translated")


def test_37_04_list_cells_keep_every_word_whole(live_server, carla):
    page = carla
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_changelist')}")
    assert page.evaluate(BROKEN_WORDS, "#result_list tbody td, #result_list tbody th") == []
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    shot(page, "37-04-list-whole-words")


def test_37_06_a_curator_finds_the_cards_players_find_hard_and_reads_why(live_server, carla):
    """The statistics are where a curator looks: a filter in the list and a sentence on the
    card's page (there was only an unexplained "difficulty in play" dash)."""
    from games.models import CardPlayStat

    page = carla
    hard = ConceptCard.objects.order_by("key").first()
    CardPlayStat.objects.create(game="symbols", key=hard.key, played=5, right=1, wrong=4, hints=3)
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_changelist')}")
    expect(page.locator("#result_list")).to_contain_text("not played yet")
    page.get_by_role("link", name="Hard: solved in fewer than half of its rounds").click()
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list tbody tr")).to_contain_text(hard.text)
    shot(page, "37-06-hard-cards-filter")
    page.locator("#result_list tbody tr a").first.click()
    statistics = page.locator(".field-play_statistics")
    expect(statistics).to_contain_text("The secret concept in 5 rounds: solved in 1 (20 %).")
    expect(statistics).to_contain_text("games of bots never count")
    statistics.scroll_into_view_if_needed()
    shot(page, "37-06-card-in-play")


def test_37_08_a_taken_key_names_its_card_and_the_key_follows_the_text_after_the_refusal(
        live_server, carla):
    page = carla
    page.goto(f"{live_server.url}/admin/cards/slogancard/add/")
    slogans = [("Just do it.", ["Adidas", "Puma", "Reebok", "Nike"], 4),
               ("… wäscht so weiß.", ["Ariel", "Persil", "Omo", "Dash"], 2)]
    for n, (text, options, correct) in enumerate(slogans):
        page.locator(f"#id_slogans-{n}-text").press_sequentially(text)
        for i, option in enumerate(options, start=1):
            page.fill(f"#id_slogans-{n}-option_{i}", option)
        page.check(f"input[name='slogans-{n}-correct'][value='{correct}']")
        page.fill(f"#id_slogans-{n}-source", "Werbung")
        page.fill(f"#id_slogans-{n}-markets", "de")
    assert page.input_value("#id_slogans-0-key") == "just-do-it"
    page.click("input[name=_save]")
    taken = Slogan.objects.get(key="just-do-it")
    message = f"The slogan “Just do it.” on card {taken.card.key} already has the key just-do-it"
    expect(page.locator("#content-main")).to_contain_text(message)
    page.locator(".errorlist", has_text="already has the key").first.scroll_into_view_if_needed()
    shot(page, "37-08-taken-key-named")
    text = page.locator("#id_slogans-0-text")
    text.fill("")
    text.press_sequentially("Einfach machen.")
    assert page.input_value("#id_slogans-0-key") == "einfach-machen"
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    assert Slogan.objects.filter(key="einfach-machen").exists()


def test_37_11_english_dates_the_cards_page_and_brand_owners_read_right(live_server, carla):
    page = carla
    oma = ConceptCard.objects.get(key="oma")
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_history', args=[oma.pk])}")
    history = page.locator("#change-history").inner_text()
    assert re.search(r"\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d", history), history
    assert "a.m." not in history and "p.m." not in history
    page.goto(f"{live_server.url}/admin/cards/")
    expect(page.locator("h1")).to_have_text("Cards")
    shot(page, "37-11-cards-page")
    page.goto(f"{live_server.url}{reverse('admin:cards_brandownership_changelist')}")
    assert page.locator("#changelist-filter a", has_text="Nike").count() == 0  # no group list
    page.fill("#searchbar", "Adidas")
    page.press("#searchbar", "Enter")
    expect(page.locator("#result_list")).to_contain_text("Reebok")
    page.locator("#result_list a", has_text="Adidas").last.click()
    expect(page.locator("#result_list tbody tr")).to_have_count(2)
    shot(page, "37-11-brand-owners-by-group")
    # the Sign print form names languages, not the Slogan game's UK/US markets
    page.goto(f"{live_server.url}{reverse('admin:exports_print', args=['sign'])}")
    options = page.locator("select[name=language] option").all_inner_texts()
    assert options == ["de (German)", "en (English)"], options
    # the editor's Show: links read as the list filters do
    page.goto(f"{live_server.url}{reverse('admin:cards_translate', args=['sauschwer', 'en'])}")
    show = page.locator("p.filters a").all_inner_texts()
    assert show == ["All", "Missing", "Needs editing", "Translated", "Approved"], show
