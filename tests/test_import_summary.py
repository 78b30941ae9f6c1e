"""The import page: a summary of the counts at the top, a filter for the rows that change, and
a file in another format than the one chosen is named for what it is."""

import io
import re

import openpyxl
import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards.formats import what_file_is
from cards.models import ConceptCard

pytestmark = pytest.mark.django_db


@pytest.fixture
def carla(client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def _post(client, name, data, fmt):
    return client.post(reverse("admin:cards_conceptcard_import"), {
        "format": fmt, "resource": "0", "import_file": SimpleUploadedFile(name, data)})


def _text(html):
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _summary(html):
    start = html.index(">", html.index('id="import-summary"')) + 1
    return _text(html[start:html.index("</div>", start)])


def test_the_preview_starts_with_counts_and_can_show_only_the_changing_rows(mini_catalogue, carla):
    rows = [f"{c.key},{c.text}" for c in ConceptCard.objects.order_by("key")]
    rows[0] = rows[0].split(",")[0] + ",Ganz neuer Text"
    csv = "key,text\n" + "\n".join(rows) + "\nweltraum,Weltraum\n"
    html = _post(carla, "begriffe.csv", csv.encode(), "0").content.decode()
    unchanged = ConceptCard.objects.count() - 1
    assert _summary(html).startswith(
        f"{unchanged + 2} rows read: 1 new 1 updated {unchanged} unchanged 0 errors")
    assert html.index('id="import-summary"') < html.index('name="confirm"')
    assert 'type="checkbox" id="only-changes"' in html
    assert "Show only the rows that change (2)" in _text(html)
    assert html.count('<tr class="skip">') == unchanged


def test_a_file_with_errors_is_summarised_with_its_error_count(mini_catalogue, carla):
    csv = "key,text\nweltraum,Weltraum\nleer, Leer\n"
    html = _post(carla, "begriffe.csv", csv.encode(), "0").content.decode()
    assert "1 new 0 updated 0 unchanged 1 error" in _summary(html)
    assert "nothing is imported until every error is fixed" in _summary(html)


def _workbook():
    book = openpyxl.Workbook()
    book.active.append(["key", "text"])
    book.active.append(["weltraum", "Weltraum"])
    data = io.BytesIO()
    book.save(data)
    return data.getvalue()


def test_an_xlsx_file_sent_as_csv_is_named_and_the_chosen_format_kept(mini_catalogue, carla):
    html = _post(carla, "begriffe.xlsx", _workbook(), "0").content.decode()
    assert ("This is an XLSX workbook, not CSV: choose XLSX as the format" in _text(html))
    assert "not a text file" not in html
    assert '<option value="0" selected>CSV</option>' in html
    assert not ConceptCard.objects.filter(key="weltraum").exists()


def test_a_csv_file_sent_as_xlsx_is_named(mini_catalogue, carla):
    html = _post(carla, "begriffe.csv", b"key,text\nweltraum,Weltraum\n", "1").content.decode()
    assert "This is a CSV file (comma- or semicolon-separated text), not XLSX: choose CSV" in _text(html)
    assert '<option value="1" selected>XLSX</option>' in html


@pytest.mark.parametrize(("data", "kind"), [
    (b"key;text\nx;y\n", "csv"), (b"\xef\xbb\xbfkey,text\n", "csv"), (b"key\ttext\nx\ty\n", "tsv"),
    (b'  [{"key": "x"}]', "json"), ("key,text\n".encode("utf-16"), "csv"),
    (b"%PDF-1.7 ...", None), (b"\x89PNG\r\n\x1a\n\x00", None), (b"\xd0\xcf\x11\xe0rest", None),
])
def test_what_a_file_is_comes_from_its_bytes(data, kind):
    assert what_file_is(data)[0] == kind


def test_a_refused_file_still_lists_the_columns_the_import_needs(mini_catalogue, carla):
    html = _post(carla, "begriffe.xlsx", _workbook(), "0").content.decode()
    assert "<code>key, text</code>" in html
