"""A new translator's walk through issue 23 in Chromium at 1280×800, clicking as the README's
translator's guide says (UI only): one test per point the issue asks of translators (1–5),
the translator's side of 10 and 11, and the progress page of 12; and of issue 37, a
reviewer's *Approve this page* that leaves the texts checks question (37-2), a translation
file that names its kind (37-5) and the texts no English deck prints (37-7). Each saves a
screenshot into docs/screenshots/ (``translator-walk-NN-….png``) that a person looks at."""

import csv
import io
import re
from pathlib import Path

import openpyxl
import pytest
from playwright.sync_api import expect

from cards.catalogue import import_catalogue
from cards.models import AlfonsCard, ConceptCard, GlossaryTerm, SauschwerObject, Slogan, Translation
from tests.conftest import MINI, log_in_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = "docs/screenshots"


def shot(page, name: str, full: bool = False) -> None:
    page.screenshot(path=f"{SHOTS}/translator-walk-{name}.png", full_page=full)


@pytest.fixture
def tina(live_server, page):
    """A Translator logged in from the login page, the mini catalogue, a glossary entry."""
    assert not import_catalogue(MINI).errors
    GlossaryTerm.objects.create(language="en", term="Chip", translation="chip",
                                note="the game's counters")
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in_as(page, live_server.url, "Translators", "tina", "uebersetzen-1",
              wait_for="text=Progress and editor")
    return page


def _open_editor(page, live_server, game: str, query: str = "", state: str = "") -> None:
    """From the index: Progress and editor, the game's *translate…* (or *missing*) link, then
    a search."""
    page.goto(f"{live_server.url}/admin/")
    page.click("text=Progress and editor")
    row = page.locator("#progress tbody tr", has_text={
        "slogan": "Slogan", "sauschwer": "Sauschwer", "symbols": "Sag's mit Symbolen"}[game])
    row.locator("a", has_text=state or "translate…").first.click()
    if query:
        page.fill("#editor-q", query)
        page.click(".editor-search button[type=submit]")
    page.wait_for_selector("#editor")


def test_01_an_approved_text_rewritten_by_a_translator_is_translated_again(live_server, tina):
    page = tina
    card = AlfonsCard.objects.get(key="bonus")
    assert card.translation("text", "en").state == "approved"
    _open_editor(page, live_server, "slogan", "Weihnachtsgeld")
    row = page.locator(f"#unit-alfonscard-{card.pk}-text")
    expect(page.locator("input[name=approve_page]")).to_have_count(0)  # review is not theirs
    row.locator("textarea").fill("Christmas bonus! Take 4 tokens from the bank.")
    finding = row.locator("li.finding-glossary")
    expect(finding).to_contain_text("“Chip” is “chip”")  # the failing glossary check, live
    page.click("input[value='Save this page']")
    expect(page.locator(".messagelist")).to_contain_text(
        "translated again until a reviewer approves it")
    expect(page.locator(f"#unit-alfonscard-{card.pk}-text select")).to_have_value("translated")
    shot(page, "01-approved-text-rewritten", full=True)
    saved = card.translation("text", "en")
    assert (saved.text, saved.state) == ("Christmas bonus! Take 4 tokens from the bank.",
                                         "translated")


def test_02_checks_run_while_typing_and_a_saved_row_stays_in_the_missing_view(
        live_server, tina):
    page = tina
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    egg.translations.all().delete()
    _open_editor(page, live_server, "sauschwer", state="missing")
    ident = f"sauschwerobject-{egg.pk}-name"
    box = page.locator(f"#text-{ident}")
    checks = page.locator(f"#checks-{ident}")
    box.press_sequentially("A hen's egg!")
    expect(checks.locator("li.finding-ending-punctuation")).to_be_visible()
    expect(checks).to_contain_text("checked as typed, not saved yet")
    assert egg.translation("name", "en") is None  # nothing saved while typing
    shot(page, "02-checks-while-typing")
    page.click("input[value='Save this page']")
    kept = page.locator(f"#unit-{ident}")
    expect(kept.locator(".saved-mark")).to_have_text("✓ saved")
    expect(kept.locator(f"#checks-{ident} li.finding-ending-punctuation")).to_be_visible()
    expect(page.locator(".kept-note")).to_be_visible()
    shot(page, "02-saved-row-kept")
    assert egg.translation("name", "en").text == "A hen's egg!"


def test_03_the_editor_draws_the_card_large_and_says_does_not_fit_before_saving(
        live_server, tina):
    page = tina
    card = ConceptCard.objects.get(key="oma")
    _open_editor(page, live_server, "symbols", "Oma")
    row = page.locator(f"#unit-conceptcard-{card.pk}-text")
    before = card.translation("text", "en").text
    row.locator("textarea").fill("The grandmother who knits scarves for every single person "
                                 "in the village, twice a year")
    live = page.locator("#editor tr.card-live")
    expect(live.locator(".card-live-status")).to_contain_text("Does not fit")
    expect(row.locator("li.finding-does-not-fit")).to_be_visible()
    front = live.locator("figure img").first
    expect(front).to_have_attribute("alt", re.compile("The grandmother"), timeout=10_000)
    assert front.evaluate("img => img.getBoundingClientRect().width") >= 200
    live.scroll_into_view_if_needed()
    shot(page, "03-does-not-fit")
    assert card.translation("text", "en").text == before  # said before anything is saved


def test_04_suggestions_come_from_approved_translations_of_similar_german(live_server, tina):
    page = tina
    card = ConceptCard.objects.create(key="die-liebe", text="Die Liebe")
    _open_editor(page, live_server, "symbols", state="missing")
    row = page.locator(f"#unit-conceptcard-{card.pk}-text")
    suggestion = row.locator(".suggestions li", has_text="Love")
    expect(suggestion).to_contain_text("% · from “Liebe”")
    suggestion.locator("button.take-suggestion").click()
    expect(row.locator("textarea")).to_have_value("Love")
    shot(page, "04-suggestion")
    page.click("input[value='Save this page']")
    expect(page.locator(".messagelist .success")).to_have_text(re.compile(r"\s*Saved 1 translation\.\s*"))
    assert card.translation("text", "en").text == "Love"


def test_05_a_page_a_translator_may_not_use_is_styled_and_names_the_role(live_server, tina):
    page = tina
    response = page.goto(f"{live_server.url}/admin/cards/sauschwerobject/add/")
    assert response is not None and response.status == 403
    expect(page.locator("#header")).to_be_visible()
    expect(page.locator("#content-main")).to_contain_text("Curators")
    assert "403 Forbidden" not in page.content()
    shot(page, "05-forbidden")


def test_10_a_translators_read_only_card_does_not_talk_of_saving(live_server, tina):
    page = tina
    obj = SauschwerObject.objects.get(key="ein-blauwal")
    page.goto(f"{live_server.url}/admin/cards/sauschwerobject/{obj.pk}/change/")
    help_text = page.locator(".card-preview-help")
    expect(help_text).to_contain_text("You may read this card, not change it.")
    expect(page.locator("text=nothing is saved until you press Save")).to_have_count(0)
    expect(page.locator("input[name=_save]")).to_have_count(0)
    shot(page, "10-read-only-card", full=True)


def test_11_a_translators_import_in_the_translations_list_never_approves(
        live_server, tina, tmp_path):
    page = tina
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    egg.translations.all().delete()
    upload = tmp_path / "eier.csv"
    with upload.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["key", "field", "language", "text", "state"])
        writer.writerow(["ein-huehnerei", "name", "en", "A chicken egg", "approved"])
    page.goto(f"{live_server.url}/admin/")
    page.click("#content-main a[href$='/cards/translation/']")
    page.click("a.import_link")
    page.set_input_files("#id_import_file", str(upload))
    page.select_option("#id_resource", label="Sauschwer object translations")
    page.select_option("#id_format", label="CSV")
    page.click("input[type=submit]")
    notes = page.locator("#import-notes")
    expect(notes).to_contain_text("1 row marked approved is imported as translated")
    expect(page.locator("table.import-preview tr.new")).to_contain_text("ein-huehnerei")
    shot(page, "11-import-preview", full=True)
    assert egg.translation("name", "en") is None
    page.click("input[name=confirm]")
    expect(page.locator(".messagelist .success")).to_contain_text("1 new")
    row = egg.translation("name", "en")
    assert (row.text, row.state) == ("A chicken egg", "translated")


def test_12_the_progress_page_opens_and_shows_its_counts(live_server, tina):
    page = tina
    SauschwerObject.objects.get(key="ein-huehnerei").translations.all().delete()
    page.goto(f"{live_server.url}/admin/")
    page.click("text=Progress and editor")
    row = page.locator("#progress tbody tr", has_text="Sauschwer")
    cells = row.locator("td.num").all_inner_texts()
    missing, needs_editing, translated, approved = (int(c) for c in cells[:4])
    total = SauschwerObject.objects.count()
    assert (missing, approved) == (1, total - 1) and needs_editing == translated == 0
    expect(row).to_contain_text(f"{100 * (total - 1) // total} %")  # rounded down
    shot(page, "12-progress")


@pytest.fixture
def carla(live_server, page):
    """A reviewer (Curators) logged in from the login page, the mini catalogue, every object's
    name translated and waiting for review; the egg's shouts ("!"), which a check questions."""
    assert not import_catalogue(MINI).errors
    Translation.objects.filter(language="en", content_type__model="sauschwerobject").update(
        state="translated")
    egg = SauschwerObject.objects.get(key="ein-huehnerei").translation("name", "en")
    egg.text = "A hen's egg!"
    egg.save()
    page.set_viewport_size({"width": 1280, "height": 800})
    log_in_as(page, live_server.url, "Curators", "carla", "pruefen-1",
              wait_for="text=Progress and editor")
    return page


def test_37_2_approve_this_page_leaves_the_texts_checks_question_to_approve_on_purpose(
        live_server, carla):
    page = carla
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    ident = f"sauschwerobject-{egg.pk}-name"
    _open_editor(page, live_server, "sauschwer")
    expect(page.locator(f"#checks-{ident} li.finding-ending-punctuation")).to_be_visible()
    page.click("input[name=approve_page]")
    expect(page.locator(".messagelist .success")).to_contain_text("Approved 5 translations.")
    expect(page.locator(".messagelist .warning")).to_contain_text(
        "Not approved, because checks found problems: ein-huehnerei (ending punctuation")
    held = page.locator("#held-back")
    expect(held).to_contain_text("Not approved: 1 text with open findings.")
    expect(held.locator("li")).to_contain_text("A hen's egg!")
    expect(page.locator(f"#unit-{ident}")).to_have_class(re.compile(r"\bheld\b"))
    shot(page, "37-2-approve-page-leaves-questioned-text", full=True)
    assert egg.translation("name", "en").state == "translated"
    held.locator("button.approve-anyway").click()  # on purpose, this one text
    expect(page.locator(".messagelist .success")).to_contain_text(
        "Saved 1 translation. Approved as it is, on purpose: ein-huehnerei.")
    expect(page.locator("#held-back")).to_have_count(0)
    expect(page.locator(f"#unit-{ident} select")).to_have_value("approved")
    shot(page, "37-2-approved-anyway")
    assert egg.translation("name", "en").state == "approved"


def test_37_5_a_translation_file_names_its_kind_and_the_import_reads_it(
        live_server, tina, tmp_path):
    page = tina
    page.goto(f"{live_server.url}/admin/")
    page.click("#content-main a[href$='/cards/translation/']")
    page.click("a.export_link")
    page.select_option("#id_resource", label="Sauschwer object translations")
    page.select_option("#id_format", label="XLSX")
    with page.expect_download() as download:
        page.click("input[type=submit]")
    name = download.value.suggested_filename
    assert re.fullmatch(r"sauschwer-objects-translations-en-\d{4}-\d\d-\d\d\.xlsx", name)
    book = openpyxl.load_workbook(io.BytesIO(Path(download.value.path()).read_bytes()))
    sheet = book.active
    assert sheet.title == "Sauschwer objects – EN texts"
    header = [c.value for c in sheet[1]]
    assert header[-1] == "kind"
    for cells in sheet.iter_rows(min_row=2):  # the translator's change, in their own tool
        assert cells[header.index("kind")].value == "Sauschwer object"
        if cells[header.index("key")].value == "ein-huehnerei":
            cells[header.index("text")].value = "A chicken egg"
    edited = tmp_path / "eier-fertig.xlsx"  # renamed on the way back: the sheet still says
    book.save(edited)
    page.goto(f"{live_server.url}/admin/cards/translation/")
    page.click("a.import_link")
    expect(page.locator("#id_resource option").first).to_have_text(
        "The kind the file names (kind column, sheet or file name)")
    page.select_option("#id_resource", label="Concept card translations")  # the wrong kind
    page.set_input_files("#id_import_file", str(edited))
    page.select_option("#id_format", label="XLSX")
    page.click("input[type=submit]")
    expect(page.locator("#content")).to_contain_text(
        "The file holds translations of Sauschwer objects (the kind column says so), but "
        "“Concept card translations” was chosen")
    expect(page.locator("#content")).not_to_contain_text("row 2")  # refused once, as a file
    shot(page, "37-5-import-wrong-kind", full=True)
    page.select_option("#id_resource", index=0)  # let the file say
    page.set_input_files("#id_import_file", str(edited))
    page.select_option("#id_format", label="XLSX")
    page.click("input[type=submit]")
    expect(page.locator("table.import-preview tr.update")).to_contain_text("A chicken egg")
    shot(page, "37-5-import-kind-from-file", full=True)
    page.click("input[name=confirm]")
    expect(page.locator(".messagelist .success")).to_contain_text("1 updated")
    row = SauschwerObject.objects.get(key="ein-huehnerei").translation("name", "en")
    assert (row.text, row.state) == ("A chicken egg", "translated")


def test_37_7_texts_no_english_deck_prints_are_counted_apart_and_marked(live_server, tina):
    page = tina
    slogan = Slogan.objects.get(key="quadratisch-praktisch-gut")  # its card: Germany only
    slogan.translations.all().delete()
    page.goto(f"{live_server.url}/admin/")
    page.click("text=Progress and editor")
    row = page.locator("#progress tbody tr", has_text="Slogan")
    missing, *_states, stays_german, not_printed = (
        int(c) for c in row.locator("td.num").all_inner_texts())
    assert (missing, stays_german, not_printed) == (0, 1, 9)
    expect(row).to_contain_text("100 %")
    expect(page.locator("#not-printed-note")).to_contain_text("a card known only in Germany")
    shot(page, "37-7-progress-no-deck-prints", full=True)
    row.locator("a", has_text="translate…").click()
    page.fill("#editor-q", "Quadratisch")
    page.click(".editor-search button[type=submit]")
    expect(page.locator(f"#unit-slogan-{slogan.pk}-text .not-printed")).to_have_text(
        "no EN deck prints this card")
    shot(page, "37-7-editor-no-deck-prints")
