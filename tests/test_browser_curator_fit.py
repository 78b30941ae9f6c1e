"""A curator at 1280×800 (issue 23, items 8–10): the list tables fit beside the menu and the
filters, the import preview reads old → new and says what stays unchanged, the history shows
who changed a card without a link into a 403, and a German-only slogan card's English
preview says it is not in the English deck.

Screenshots go to ``KARTOTHEK_SCREENSHOTS`` (or a temporary folder)."""

import csv
import os
from pathlib import Path

import pytest
from django.urls import reverse

from cards.catalogue import import_catalogue
from cards.models import SauschwerObject, SloganCard
from cards.weights import show_weight
from tests.conftest import STARTER

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 1280, 800

# Words of the elements matching a selector that a line break splits ("Upd/ate").
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest(".breakable")) continue;  // a URL may break anywhere
      for (const match of node.textContent.matchAll(/[^\\s\\-–—\\/]+/g)) {  // a line may end after a dash
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}"""

OVERFLOW = """(selector) => {
  const box = document.querySelector(selector);
  return [box.scrollWidth, box.clientWidth, document.documentElement.scrollWidth];
}"""


@pytest.fixture
def shots(tmp_path_factory):
    folder = Path(os.environ.get("KARTOTHEK_SCREENSHOTS") or tmp_path_factory.mktemp("fit"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _fits(page, selector: str) -> None:
    scroll, client, document = page.evaluate(OVERFLOW, selector)
    assert scroll <= client, f"{page.url}: {selector} scrolls ({scroll} px in {client} px)"
    assert document <= WIDTH, f"{page.url}: the page is {document} px wide"


def test_every_list_table_fits_1280_px_without_scrolling_or_splitting_a_header(
        live_server, page, shots):
    from django.contrib.auth.models import Group, User

    assert not import_catalogue(STARTER).errors  # the real catalogue's long sources and texts
    user = User.objects.create_user(username="carla", password="karten-pw-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "carla")
    page.fill("#id_password", "karten-pw-1")
    page.click("input[type=submit]")
    for name in ("sauschwerobject", "translation", "slogan", "slogancard", "conceptcard",
                 "symboltile", "alfonscard", "signcard", "signcolour", "signsymbol"):
        page.goto(f"{live_server.url}{reverse(f'admin:cards_{name}_changelist')}")
        _fits(page, "#changelist-form .results")
        assert page.evaluate(BROKEN_WORDS, "#result_list thead th") == [], name
        # every cell keeps its words whole ("Quadratisc/h.", "Herstelleran/gabe" and
        # "standar/d-size" were split); only a URL may break anywhere
        assert page.evaluate(BROKEN_WORDS, "#result_list tbody td, #result_list tbody th") \
            == [], name
        if name in ("sauschwerobject", "translation"):
            page.screenshot(path=str(shots / f"list-{name}.png"))
        if name == "sauschwerobject":
            # the English column is on screen, inside the window
            box = page.locator("#result_list thead th.column-translation_en").bounding_box()
            assert box["x"] + box["width"] <= WIDTH
        if name == "translation":
            kinds = page.locator("#result_list td.field-kind").all_inner_texts()
            assert kinds and not any("|" in kind for kind in kinds)  # "concept card", no "Cards |"
            assert "Concept card" in page.locator("#changelist-filter").inner_text()


def test_import_preview_shows_old_to_new_and_calls_untouched_rows_unchanged(
        live_server, curator_page, shots, tmp_path):
    page = curator_page
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    objects = list(SauschwerObject.objects.order_by("key"))
    changed = objects[0]
    upload = tmp_path / "objekte-neu.csv"
    with upload.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["key", "name", "weight_g", "source"])
        for obj in objects:
            weight = "12 kg" if obj is changed else obj.weight_g
            writer.writerow([obj.key, obj.name, weight, obj.source])
    before = changed.weight_g

    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_import')}")
    page.set_input_files("#id_import_file", str(upload))
    page.select_option("#id_format", label="CSV")
    page.click("input[type=submit]")
    page.wait_for_selector("table.import-preview")
    page.screenshot(path=str(shots / "import-preview.png"), full_page=True)

    summary = page.locator("#import-summary").inner_text()
    assert f"{len(objects) - 1} unchanged" in summary and "1 updated" in summary
    kinds = page.locator("table.import-preview td.import-type").all_inner_texts()
    assert sorted(set(kinds)) == ["Changed", "Unchanged"]
    assert "Skipped" not in page.locator("#content").inner_text()
    row = page.locator("table.import-preview tr.update")
    cell = row.locator("td .diff-change")
    assert cell.count() == 1  # only the weight changes
    assert cell.locator("del").text_content() == f"was {show_weight(before)}"  # in its unit
    assert "→" in cell.inner_text() and cell.locator("ins").text_content() == "12 kg"
    assert page.evaluate(BROKEN_WORDS, "table.import-preview td.import-type, "
                                       "table.import-preview th") == []
    _fits(page, ".import-preview-scroll")

    page.click("input[value='Confirm import']")
    message = page.locator(".messagelist .success").first.inner_text()
    assert f"1 updated, {len(objects) - 1} unchanged" in message and "skipped" not in message
    changed.refresh_from_db()
    assert changed.weight_g == 12_000
    assert changed.history.first().history_change_reason == "spreadsheet import of objekte-neu.csv"


def test_history_names_the_user_without_a_403_link_and_a_german_card_is_not_drawn_in_english(
        live_server, curator_page, shots):
    page = curator_page
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    obj = SauschwerObject.objects.order_by("key").first()
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_change', args=[obj.pk])}")
    page.fill("#id_source", "Nachgewogen")
    page.click("input[name=_continue]")
    page.goto(f"{live_server.url}{reverse('admin:cards_sauschwerobject_history', args=[obj.pk])}")
    page.screenshot(path=str(shots / "history.png"), full_page=True)
    who = page.locator("#change-history tbody tr").first.locator("td").nth(4)
    assert who.inner_text().strip() == "carla"
    assert who.locator("a").count() == 0  # managing users is the superuser's: no 403 link

    # Revert to the first version: the breadcrumb names the list, one message says what happened.
    page.locator("#change-history tbody tr").last.locator("td a").first.click()
    crumbs = page.locator(".breadcrumbs").inner_text()
    assert "Sauschwer objects" in crumbs and "Historical" not in crumbs
    page.screenshot(path=str(shots / "revert.png"), full_page=True)
    page.click("#content-main form input[type=submit][name=_save]")
    page.wait_for_selector(".messagelist li")
    page.screenshot(path=str(shots / "reverted.png"))
    notes = page.locator(".messagelist li").all_inner_texts()
    assert len(notes) == 1 and notes[0].startswith("Reverted Sauschwer object"), notes
    assert "changed successfully" not in notes[0]

    # karte-001's slogans are known only in German: no English card is drawn, it says why.
    card = SloganCard.objects.get(key="karte-001")
    page.goto(f"{live_server.url}{reverse('admin:cards_slogancard_change', args=[card.pk])}")
    note = page.locator("#card-preview .card-preview-absent[data-absent-lang=en]")
    assert "Not in the English deck" in note.inner_text()
    assert page.locator("#card-preview figure[data-lang=en]").count() == 0
    assert page.locator("#card-preview figure[data-lang=de]").count() == 2
    page.screenshot(path=str(shots / "slogan-german-only.png"), full_page=True)
    # Typed into both slogans' markets, English: the English card is drawn as you type.
    page.fill("#id_slogans-0-markets", "de,en")
    page.fill("#id_slogans-1-markets", "de,en")
    page.wait_for_selector("#card-preview figure[data-lang=en] img")
    assert page.locator("#card-preview [data-absent-lang=en]").count() == 0
    page.fill("#id_slogans-1-markets", "de")
    page.wait_for_selector("#card-preview [data-absent-lang=en]")
    assert page.locator("#card-preview figure[data-lang=en]").count() == 0
    page.screenshot(path=str(shots / "slogan-typed-german-only.png"), full_page=True)
