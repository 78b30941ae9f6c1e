"""The Translations list's import (issue 23.11): the content lists' safe import (preview, then
confirm; limits; clear errors; nothing written from a bad file) and review kept: a
Translator's file never approves, a Curator's may."""

import csv
import html
import io
import re
from hashlib import sha256

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse

from cards.models import SauschwerObject, Translation
from curation.content_admin import ContentAdmin
from curation.safe_import import SafeImportMixin
from curation.translation_admin import TranslationAdmin

pytestmark = pytest.mark.django_db

IMPORT = "admin:cards_translation_import"
PROCESS = "admin:cards_translation_process_import"
KIND = "Sauschwer object translations"


def _login(role: str) -> Client:
    user = User.objects.create_user(username=role.lower(), password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def tina(mini_catalogue):
    return _login("Translators")


@pytest.fixture
def carla(mini_catalogue):
    return _login("Curators")


def _egg(language: str = "en") -> Translation:
    return SauschwerObject.objects.get(key="ein-huehnerei").translation("name", language)


def _file(rows: list[list[str]], header=("key", "field", "language", "text", "state")) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def _choice(page: str, name: str, label: str) -> str:
    select = page.split(f'name="{name}"', 1)[1].split("</select>", 1)[0]
    return next(value for value, text in re.findall(r'<option value="(\d*)"[^>]*>([^<]*)</option>',
                                                    select) if text.strip() == label)


def _preview(client: Client, data: bytes, name: str = "uebersetzungen.csv", fmt: str = "CSV"):
    page = client.get(reverse(IMPORT)).content.decode()
    return client.post(reverse(IMPORT), {
        "format": _choice(page, "format", fmt), "resource": _choice(page, "resource", KIND),
        "import_file": SimpleUploadedFile(name, data)})


def _confirm(client: Client, preview) -> list[str]:
    page = preview.content.decode()
    form = page.split('action="' + reverse(PROCESS), 1)[1].split("</form>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    fields.pop("csrfmiddlewaretoken", None)
    response = client.post(reverse(PROCESS), fields, follow=True)
    return [m.message for m in response.context["messages"]]


def _translations() -> tuple[int, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM cards_translation ORDER BY id")
        rows = cursor.fetchall()
    return len(rows), sha256(repr(rows).encode()).hexdigest()


def _text(response) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))


# --- one mixin for every list that imports ------------------------------------------------


def test_the_content_lists_and_the_translations_list_share_one_import_mixin():
    assert issubclass(ContentAdmin, SafeImportMixin) and issubclass(TranslationAdmin, SafeImportMixin)
    for name in ("import_action", "process_import", "add_data_read_fail_error_to_form",
                 "write_to_tmp_storage", "get_import_data_kwargs"):
        assert name not in vars(ContentAdmin) and name not in vars(TranslationAdmin), name


def test_the_translations_list_offers_import_beside_export(tina):
    page = tina.get(reverse("admin:cards_translation_changelist")).content.decode()
    assert reverse(IMPORT) in page and reverse("admin:cards_translation_export") in page


# --- review: who may approve through a file -------------------------------------------------


def test_a_translators_approved_row_is_imported_as_translated_and_the_preview_says_so(tina):
    _egg().delete()
    preview = _preview(tina, _file([["ein-huehnerei", "name", "en", "A chicken egg", "approved"]]))
    notes = re.sub(r"\s+", " ", _text(preview))
    assert ("1 row marked approved is imported as translated: approving needs the reviewer's "
            "permission (Curators). row 2 (ein-huehnerei · name)") in notes
    assert _egg() is None  # a preview writes nothing
    messages = _confirm(tina, preview)
    assert any("1 new, 0 updated" in m for m in messages), messages
    assert any("imported as translated" in m for m in messages), messages
    egg = _egg()
    assert (egg.text, egg.state) == ("A chicken egg", "translated")
    assert egg.history.first().history_change_reason == "spreadsheet import of uebersetzungen.csv"


def test_a_curators_file_may_approve(carla):
    _egg().delete()
    preview = _preview(carla, _file([["ein-huehnerei", "name", "en", "A chicken egg", "approved"]]))
    assert "imported as translated" not in _text(preview)
    _confirm(carla, preview)
    egg = _egg()
    assert (egg.text, egg.state) == ("A chicken egg", "approved")


def test_a_translators_file_rewriting_an_approved_text_makes_it_translated_again(tina):
    assert _egg().state == "approved"
    preview = _preview(tina, _file([["ein-huehnerei", "name", "en", "A hen egg", "approved"]]))
    assert "1 approved text is changed by the file and becomes translated" in _text(preview)
    _confirm(tina, preview)
    egg = _egg()
    assert (egg.text, egg.state) == ("A hen egg", "translated")


def test_a_translators_file_leaves_an_approved_text_it_keeps_word_for_word_approved(tina):
    # an export made before a reviewer approved the text: it says "translated"
    before = _translations()
    preview = _preview(tina, _file([["ein-huehnerei", "name", "en", "A hen's egg", "translated"]]))
    assert "1 unchanged" in _text(preview)
    _confirm(tina, preview)
    assert _translations() == before and _egg().state == "approved"


# --- bad files: a clear message and nothing written -------------------------------------------


BAD_FILES = {
    "an unknown key": (
        _file([["ein-huehnerei", "name", "en", "A hen", "translated"],
               ["ein-strauss-ei", "name", "en", "An ostrich egg", "translated"]]),
        "row 3 (“An ostrich egg”), column key : There is no Sauschwer object with the key "
        "“ein-strauss-ei”."),
    "an unknown field": (
        _file([["ein-huehnerei", "weight", "en", "60 g", "translated"]]),
        "“weight” is not a translatable field; use one of: name."),
    "the source language": (
        _file([["ein-huehnerei", "name", "de", "Ein Ei", "translated"]]),
        "'de' is not a target language; configured: en."),
    "a language that is not configured": (
        _file([["ein-huehnerei", "name", "fr", "Un œuf", "translated"]]),
        "'fr' is not a target language; configured: en."),
    "a state translation tools do not know": (
        _file([["ein-huehnerei", "name", "en", "A hen", "published"]]),
        "Value 'published' is not a valid choice."),
    "an invisible right-to-left override": (
        _file([["ein-huehnerei", "name", "en", "A hen\u202egge", "translated"]]),
        "This text contains invisible control characters (U+202E)."),
    "a missing column": (
        _file([["ein-huehnerei", "name", "A hen"]], header=("key", "field", "text")),
        "language"),
    "the same text twice": (
        _file([["ein-huehnerei", "name", "en", "A hen", "translated"],
               ["ein-huehnerei", "name", "en", "A chicken", "translated"]]),
        "ein-huehnerei"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_a_bad_file_gets_a_clear_message_and_changes_nothing(tina, case):
    data, message = BAD_FILES[case]
    before = _translations()
    preview = _preview(tina, data)
    text = re.sub(r"\s+", " ", _text(preview)).replace("` ", "").replace(" `", "")
    assert "Nothing was imported" in text or "errorlist" in preview.content.decode()
    assert message in text, text[text.find("Nothing was imported"):][:600]
    assert 'name="import_file_name"' not in preview.content.decode()  # nothing to confirm
    assert _translations() == before


def test_a_workbook_sent_as_csv_is_named_for_what_it_is_and_changes_nothing(tina):
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["key", "field", "language", "text", "state"])
    book.active.append(["ein-huehnerei", "name", "en", "A hen", "translated"])
    data = io.BytesIO()
    book.save(data)
    before = _translations()
    preview = _preview(tina, data.getvalue(), name="uebersetzungen.xlsx", fmt="CSV")
    assert "This is an XLSX workbook, not CSV: choose XLSX" in _text(preview)
    assert _translations() == before


def test_a_broken_workbook_gets_a_message_and_changes_nothing(tina):
    before = _translations()
    preview = _preview(tina, b"PK\x03\x04 this is not a whole archive", name="kaputt.xlsx",
                       fmt="XLSX")
    assert "damaged ZIP archive" in _text(preview)
    assert _translations() == before


def test_a_file_over_the_upload_limit_is_refused_and_changes_nothing(tina, settings):
    settings.KARTOTHEK_IMPORT_MAX_BYTES = 200
    before = _translations()
    rows = [["ein-huehnerei", "name", "en", "A hen " + "x" * 40, "translated"]] * 10
    preview = _preview(tina, _file(rows))
    assert "the file is larger than" in _text(preview) and "nothing was read" in _text(preview)
    assert _translations() == before


def test_markup_in_a_text_is_shown_as_text_in_the_preview(tina):
    preview = _preview(tina, _file([["ein-huehnerei", "name", "en", "<script>alert(1)</script>",
                                     "translated"]]))
    page = preview.content.decode()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page


def test_a_viewer_may_not_open_the_import(mini_catalogue):
    vera = _login("Viewers")
    assert vera.get(reverse(IMPORT)).status_code == 403
    page = vera.get(reverse("admin:cards_translation_changelist")).content.decode()
    assert reverse(IMPORT) not in page



def test_the_preview_names_each_rows_card_and_field(tina):
    _egg().delete()
    preview = _preview(tina, _file([["ein-huehnerei", "name", "en", "A chicken egg", "translated"],
                                    ["eine-bowlingkugel", "name", "en", "A bowling ball!",
                                     "translated"]]))
    rows = re.findall(r'<tr class="(new|update)">(.*?)</tr>', preview.content.decode(), re.S)
    cells = {kind: re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", row)))
             for kind, row in rows}
    assert "ein-huehnerei name en A chicken egg translated" in cells["new"]
    assert "eine-bowlingkugel name en was A bowling ball → now A bowling ball!" in cells["update"]
