"""A translation file names its kind of card and the import reads it back (issue 37.5): the
Translations list's export writes the kind in a column, the sheet's name and the file's
name; the import takes the kind from the file unless one is chosen, and a chosen kind the
file contradicts refuses the file with both named, writing nothing."""

from __future__ import annotations

import io
import re
from hashlib import sha256

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse

from cards.columns import type_from_name
from cards.models import TRANSLATABLE_MODELS, SauschwerObject, Slogan, SloganOption, Translation
from curation.translation_files import SHEET_TITLE_MAX, sheet_title

pytestmark = pytest.mark.django_db

EXPORT = reverse("admin:cards_translation_export")
IMPORT = reverse("admin:cards_translation_import")
COLUMNS = ("key", "field", "language", "text", "state", "kind")


@pytest.fixture
def carla(curator_client) -> Client:
    return curator_client


def _choice(page: str, name: str, label: str) -> str:
    select = page.split(f'name="{name}"', 1)[1].split("</select>", 1)[0]
    return next(value for value, text in re.findall(
        r'<option value="(\d*)"[^>]*>([^<]*)</option>', select) if text.strip() == label)


def _export(client: Client, fmt: str) -> tuple[str, bytes]:
    page = client.get(EXPORT).content.decode()
    prefix = "sauschwerobjecttranslationfileresource"
    response = client.post(EXPORT, {
        "format": _choice(page, "format", fmt),
        "resource": _choice(page, "resource", "Sauschwer object translations"),
        **{f"{prefix}_{column}": "on" for column in COLUMNS}})
    assert response.status_code == 200
    name = re.search(r'filename="([^"]+)"', response["Content-Disposition"]).group(1)
    return name, response.content


def _preview(client: Client, data: bytes, name: str, fmt: str, kind: str = ""):  # type: ignore[no-untyped-def]
    page = client.get(IMPORT).content.decode()
    chosen = _choice(page, "resource", kind) if kind else "0"
    return client.post(IMPORT, {"format": _choice(page, "format", fmt), "resource": chosen,
                                "import_file": SimpleUploadedFile(name, data)})


def _translations() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM cards_translation ORDER BY id")
        return sha256(repr(cursor.fetchall()).encode()).hexdigest()


def _changed_egg() -> None:
    """A change for the import to find: the egg's name as stored before the export."""
    row = SauschwerObject.objects.get(key="ein-huehnerei").translation("name", "en")
    row.text = "An egg"
    row.save()


def test_the_export_names_its_kind_in_the_sheet_the_file_name_and_a_column(carla):
    name, data = _export(carla, "XLSX")
    assert re.fullmatch(r"sauschwer-objects-translations-en-\d{4}-\d\d-\d\d\.xlsx", name)
    sheet = openpyxl.load_workbook(io.BytesIO(data)).active
    assert sheet.title == "Sauschwer objects – EN texts"
    rows = list(sheet.values)
    assert rows[0] == COLUMNS and {row[-1] for row in rows[1:]} == {"Sauschwer object"}


@pytest.mark.parametrize("fmt", ["XLSX", "CSV"])
def test_the_import_takes_the_kind_from_an_exported_file_even_renamed(carla, fmt):
    _name, data = _export(carla, fmt)
    _changed_egg()
    preview = _preview(carla, data, f"from-the-translator.{fmt.lower()}", fmt)
    page = preview.content.decode()
    assert 'name="import_file_name"' in page, page  # a preview that can be confirmed
    assert "ein-huehnerei" in page and "There is no concept card" not in page


def test_the_sheet_name_alone_tells_the_kind(carla):
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Sauschwer objects – EN texts"
    sheet.append(COLUMNS[:-1])
    sheet.append(("ein-huehnerei", "name", "en", "An egg", "translated"))
    out = io.BytesIO()
    workbook.save(out)
    page = _preview(carla, out.getvalue(), "uebersetzung.xlsx", "XLSX").content.decode()
    assert 'name="import_file_name"' in page


def test_a_chosen_kind_the_file_contradicts_refuses_the_file_and_writes_nothing(carla):
    _name, data = _export(carla, "XLSX")
    before = _translations()
    page = _preview(carla, data, "objects.xlsx", "XLSX", kind="Concept card translations")
    text = page.content.decode()
    assert "The file holds translations of Sauschwer objects (the kind column says so), but " \
           "“Concept card translations” was chosen" in text
    assert 'name="import_file_name"' not in text and "Nothing was imported: 1 problem" in text
    assert "row 2" not in text  # the file is refused once, not row by row
    assert _translations() == before


def test_a_file_that_names_no_kind_asks_for_one(carla):
    data = b"key,field,language,text,state\nein-huehnerei,name,en,An egg,translated\n"
    before = _translations()
    page = _preview(carla, data, "uebersetzungen.csv", "CSV").content.decode()
    assert "does not say which kind of card it translates" in page
    assert _translations() == before
    chosen = _preview(carla, data, "uebersetzungen.csv", "CSV",
                      kind="Sauschwer object translations").content.decode()
    assert 'name="import_file_name"' in chosen


def test_a_kind_column_naming_two_kinds_or_none_is_refused(carla):
    data = (b"key,field,language,text,state,kind\n"
            b"ein-huehnerei,name,en,An egg,translated,Sauschwer object\n"
            b"oma,text,en,Granny,translated,Concept card\n")
    page = _preview(carla, data, "mixed.csv", "CSV").content.decode()
    assert "the kind column names several kinds" in page
    bad = data.replace(b"Concept card", b"Kuchen")
    assert "the kind “Kuchen” is not a kind of card" in _preview(
        carla, bad, "mixed.csv", "CSV").content.decode()


def test_every_kinds_sheet_title_fits_a_sheet_and_names_its_kind():
    for model in {Slogan if m is SloganOption else m for m in TRANSLATABLE_MODELS}:
        for languages in (["en"], ["en", "fr"], []):
            title = sheet_title(model, languages)
            assert len(title) <= SHEET_TITLE_MAX and type_from_name(title) is model, title
        assert type_from_name(str(model._meta.verbose_name)) is model
    assert Translation.objects.count() == 0
