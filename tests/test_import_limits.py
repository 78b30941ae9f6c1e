"""No input exhausts the server: import files stop at limits checked while they are read,
uploads stop at the size limit while they stream in, preview files do not pile up, the
preview page stays small, deep JSON gets a message, print numbers must be finite.

The hostile files are written byte by byte in tests/hostile_files.py. The fast tests read
them with small limits (or the real ones where that is quick); the slow test at the end runs
every hostile file at the real limits through the admin import view and ``import_content``,
each in a child process, and checks its peak memory and time.
"""

from __future__ import annotations

import datetime
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import openpyxl
import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import FileUploadHandler
from django.urls import reverse

from cards.catalogue import CatalogueError, import_catalogue
from cards.files import read_upload
from cards.models import ConceptCard
from cards.tables import FileProblem, ImportLimits
from cards.uploads import preview_folder
from exports.pdf.options import DeckOptions, OptionError, parse_offset
from tests import hostile_files as hostile
from tests.test_catalogue import snapshot

ROOT = Path(__file__).resolve().parent.parent
FORMAT = {"csv": "0", "xlsx": "1", "tsv": "2", "json": "3"}


def refusal(data: bytes, filename: str, **limits: int) -> str:
    with pytest.raises(FileProblem) as info:
        read_upload(data, filename, limits=ImportLimits(**limits) if limits else None)
    return str(info.value)


def concepts_csv(rows: int) -> bytes:
    return ("key,text\n" + "".join(f"k{n},Karte {n}\n" for n in range(rows))).encode()


# --- the reader stops at its limits ---------------------------------------------------------


def test_a_value_in_column_xfd_is_refused_naming_the_cell_and_the_limit(db):
    name, data = hostile.xlsx_cell_at_xfd()
    assert refusal(data, name) == "cell XFD1: the file has more than 50 columns, the most an import takes"


def test_a_value_at_xfd_on_every_row_is_refused_before_any_row_is_built(db):
    name, data = hostile.xlsx_wide_rows(rows=2_000)
    started = time.perf_counter()
    assert "cell XFD2: the file has more than 50 columns" in refusal(data, name)
    assert time.perf_counter() - started < 1


def test_empty_styled_cells_far_right_are_no_columns(db):
    rows = b"".join(
        b'<row r="%d"><c r="A%d" t="inlineStr"><is><t>k%d</t></is></c>'
        b'<c r="B%d" t="inlineStr"><is><t>x</t></is></c><c r="XFD%d" s="0"/></row>' % (n, n, n, n, n)
        for n in range(2, 502)
    )
    data = hostile.workbook(hostile.SHEET_HEAD + hostile.HEADER_ROW + rows + hostile.SHEET_TAIL)
    dataset = read_upload(data, "concepts.xlsx")
    assert dataset.headers == ["key", "text"] and len(dataset) == 500


def test_a_workbook_with_more_rows_than_the_limit_stops_at_the_first_row_past_it(db):
    body = b"".join(b'<row r="%d"><c r="A%d"><v>%d</v></c></row>' % (n, n, n) for n in range(2, 40))
    data = hostile.workbook(hostile.SHEET_HEAD + hostile.HEADER_ROW + body + hostile.SHEET_TAIL)
    assert refusal(data, "concepts.xlsx", max_rows=10) == (
        "row 12: the file has more than 10 rows besides the header row, the most an import takes"
    )


def test_a_million_empty_rows_are_refused_by_their_row_numbers(db):
    body = b"".join(b'<row r="%d"/>' % n for n in range(2, 200))
    data = hostile.workbook(hostile.SHEET_HEAD + hostile.HEADER_ROW + body + hostile.SHEET_TAIL)
    assert refusal(data, "concepts.xlsx", max_rows=100).startswith("row 102: the file has more than 100 rows")
    # one cell at the bottom of the sheet is enough, whatever the dimension claims
    lone = hostile.workbook(hostile.SHEET_HEAD + hostile.HEADER_ROW
                            + b'<row r="1048576"><c r="A1048576"><v>1</v></c></row>' + hostile.SHEET_TAIL)
    assert refusal(lone, "concepts.xlsx").startswith("row 1,048,576: the file has more than 20,000 rows")


def test_a_workbook_with_more_cells_than_the_limit_is_refused(db):
    body = b"".join(
        b'<row r="%d">' % n + b"".join(b'<c r="%s%d"><v>1</v></c>' % (c, n) for c in (b"A", b"B", b"C"))
        + b"</row>" for n in range(2, 50)
    )
    data = hostile.workbook(hostile.SHEET_HEAD + hostile.HEADER_ROW + body + hostile.SHEET_TAIL)
    assert "the file has more than 100 cells, the most an import takes" in refusal(
        data, "concepts.xlsx", max_cells=100)


def test_a_zip_member_larger_than_the_limit_is_refused_from_its_declared_size(db):
    name, data = hostile.xlsx_zip_bomb(size=8 * 1024 * 1024)
    assert refusal(data, name, max_unzipped_bytes=4 * 1024 * 1024) == (
        "the workbook unpacks to 8.0 MB, more than 4 MB, the most an import takes")


def test_a_zip_member_that_inflates_past_its_declared_size_is_refused_while_inflating(db):
    name, data = hostile.xlsx_lying_zip_bomb(size=8 * 1024 * 1024)
    started = time.perf_counter()
    assert refusal(data, name) == (
        "cannot be opened as an Excel workbook: the file is damaged or not an .xlsx file")
    assert time.perf_counter() - started < 1


def test_millions_of_shared_strings_are_refused_while_they_are_read(db):
    name, data = hostile.xlsx_shared_strings_bomb(count=5_000)
    assert refusal(data, name, max_cells=1_000) == (
        "the workbook has more than 1,000 texts, the most an import takes")


def test_a_workbook_with_a_dtd_is_refused(db):
    sheet = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]>'
             + hostile.SHEET_HEAD.split(b"?>", 1)[1] + hostile.HEADER_ROW + hostile.SHEET_TAIL)
    assert "cannot be opened as an Excel workbook" in refusal(hostile.workbook(sheet), "concepts.xlsx")


def test_a_workbook_keeps_openpyxl_s_value_types(db):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "sauschwer_objects"
    sheet.append(["key", "name", "weight_g", "source", "when", "flag", "share"])
    sheet.append(["ei", "Ei", 60, "Handel", datetime.datetime(2025, 6, 1, 12, 30), True, 0.25])
    sheet.append(["  ", None, None, None, None, None, None])
    buffer = io.BytesIO()
    book.save(buffer)
    dataset = read_upload(buffer.getvalue(), "objects.xlsx")
    assert dataset.dict == [{"key": "ei", "name": "Ei", "weight_g": 60, "source": "Handel",
                             "when": datetime.datetime(2025, 6, 1, 12, 30), "flag": True,
                             "share": 0.25}]
    assert dataset.title == "sauschwer_objects"


def test_a_csv_with_more_rows_than_the_limit_names_the_first_row_past_it(db):
    assert refusal(concepts_csv(50), "concepts.csv", max_rows=20) == (
        "row 22: the file has more than 20 rows besides the header row, the most an import takes")


def test_the_default_row_limit_is_20000_rows(db):
    assert len(read_upload(concepts_csv(20_000), "concepts.csv")) == 20_000
    assert refusal(concepts_csv(20_001), "concepts.csv").startswith(
        "row 20,002: the file has more than 20,000 rows besides the header row")


def test_a_csv_row_with_more_cells_than_the_column_limit_is_refused(db):
    name, data = hostile.csv_wide_short_line()
    assert refusal(data, name) == (
        "row 2, column AY: the file has more than 50 columns, the most an import takes")


def test_trailing_empty_cells_past_the_column_limit_do_not_count(db):
    data = b"key,text" + b"," * 300 + b"\noma,Oma" + b"," * 300 + b"\n"
    assert read_upload(data, "concepts.csv").dict == [{"key": "oma", "text": "Oma"}]


def test_one_line_of_a_million_cells_stops_at_the_row_length_limit(db):
    name, data = hostile.csv_million_columns()
    assert refusal(data, name) == (
        "row 2: the row is longer than 1,000,000 characters, the most an import takes")


def test_a_file_that_is_one_huge_line_stops_at_the_row_length_limit(db):
    assert refusal(b"x" * 5000, "concepts.csv", max_row_chars=1000) == (
        "row 1: the row is longer than 1,000 characters, the most an import takes")


def test_a_quote_that_is_never_closed_stops_at_the_cell_limit(db):
    name, data = hostile.csv_endless_quote(size=400_000)
    assert refusal(data, name).startswith("row 2: a cell holds more than 131,072 characters")


def test_a_csv_with_more_cells_than_the_limit_is_refused(db):
    assert "the file has more than 100 cells" in refusal(concepts_csv(80), "concepts.csv", max_cells=100)


def test_json_with_more_objects_than_the_row_limit_is_refused(db):
    data = json.dumps([{"key": f"k{n}", "text": "x"} for n in range(30)]).encode()
    assert refusal(data, "concepts.json", max_rows=20) == (
        "item 21: the file has more than 20 rows, the most an import takes")


def test_json_with_more_values_than_the_cell_limit_is_refused_before_it_is_parsed(db):
    data = json.dumps([str(n) for n in range(1_000)]).encode()
    assert refusal(data, "concepts.json", max_cells=100) == (
        "the file has more than 100 cells, the most an import takes")


def test_deeply_nested_json_gets_a_message_not_a_recursion_error(db):
    name, data = hostile.json_deep()
    assert "nested too deeply" in refusal(data, name)


def test_the_limits_are_settings(db, settings):
    settings.KARTOTHEK_IMPORT_MAX_ROWS = 5
    settings.KARTOTHEK_IMPORT_MAX_COLUMNS = 3
    assert "more than 5 rows" in refusal(concepts_csv(6), "concepts.csv")
    assert "more than 3 columns" in refusal(b"a,b,c,d\n1,2,3,4\n", "concepts.csv")
    assert ImportLimits.from_settings().max_rows == 5


# --- a refused file changes nothing, on every way in ------------------------------------------


@pytest.mark.parametrize("build", [hostile.xlsx_cell_at_xfd, hostile.csv_wide_short_line,
                                   hostile.json_deep], ids=["xlsx", "csv", "json"])
def test_import_content_refuses_a_hostile_file_with_a_message_and_changes_nothing(
        mini_catalogue, tmp_path, run_command, build):
    name, data = build()
    path = tmp_path / name
    path.write_bytes(data)
    before = snapshot()
    status, out, err = run_command("import_content", str(path))
    assert status == 1
    assert "Traceback" not in out + err and "RecursionError" not in out + err
    assert re.search(r"more than 50 columns|nested too deeply", err)
    assert snapshot() == before


def test_import_catalogue_refuses_deep_json_with_a_message(db, tmp_path):
    folder = tmp_path / "catalogue" / "symbols"
    folder.mkdir(parents=True)
    (folder / "concepts.json").write_bytes(hostile.json_deep()[1])
    with pytest.raises(CatalogueError, match=r"concepts\.json: this JSON is nested too deeply"):
        import_catalogue(tmp_path / "catalogue")
    assert not ConceptCard.objects.exists()


def test_import_pack_refuses_deep_json_with_a_message(db, tmp_path, run_command):
    path = tmp_path / "pack.json"
    path.write_bytes(hostile.json_deep()[1])
    status, out, err = run_command("import_pack", str(path))
    assert status == 1
    assert "nested too deeply" in err and "Traceback" not in out + err


def test_import_pack_refuses_json_nested_just_under_the_parser_limit(db, tmp_path, run_command):
    # The parser takes it; checking it against the schema must not overflow either.
    pack = {"game": "sauschwer", "language": "de", "body": {"cards": []}, "sha256": "0",
            "extra": json.loads("[" * 900 + "]" * 900)}
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack))
    status, _out, err = run_command("import_pack", str(path))
    assert status == 1 and "Traceback" not in err


# --- uploads through the admin ----------------------------------------------------------------


@pytest.fixture
def curator(client, db):
    from django.contrib.auth.models import Group

    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def upload(client, model: str, name: str, data: bytes):
    return client.post(reverse(f"admin:cards_{model}_import"),
                       {"format": FORMAT[name.rsplit(".", 1)[1]], "resource": "0",
                        "import_file": SimpleUploadedFile(name, data)})


def confirm(client, model: str, response):
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                             response.content.decode()))
    fields.pop("csrfmiddlewaretoken", None)
    return client.post(reverse(f"admin:cards_{model}_process_import"), fields)


class Recorder(FileUploadHandler):
    """Placed after the limit: records how many bytes reach the handlers that store files."""

    received: list[int] = []

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        Recorder.received.append(0)

    def receive_data_chunk(self, raw_data, start):
        Recorder.received[-1] += len(raw_data)
        return raw_data

    def file_complete(self, file_size):
        return None


def test_an_upload_over_the_limit_is_dropped_while_it_streams_in(curator, settings, tmp_path):
    limit = 200 * 1024
    settings.KARTOTHEK_IMPORT_MAX_BYTES = limit
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # the file would go to a temporary file
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "uploads")
    (tmp_path / "uploads").mkdir()
    settings.VAR_DIR = tmp_path / "var"  # a preview folder of its own (others leave previews)
    settings.FILE_UPLOAD_HANDLERS = [
        "cards.uploads.LimitedUploadHandler",
        "tests.test_import_limits.Recorder",
        "django.core.files.uploadhandler.TemporaryFileUploadHandler",
    ]
    Recorder.received = []
    before = snapshot()
    response = upload(curator, "conceptcard", "concepts.csv", concepts_csv(60_000))  # ~830 KB
    assert response.status_code == 200
    page = response.content.decode()
    assert "concepts.csv: the file is larger than 200 KB, the most an upload takes" in page
    assert 0 < Recorder.received[0] <= limit  # the storing handlers never saw more
    assert list((tmp_path / "uploads").iterdir()) == []  # and their partial file is gone
    assert not preview_folder().exists() or not list(preview_folder().iterdir())
    assert snapshot() == before


def test_a_refused_preview_leaves_no_file_and_a_confirmed_one_is_removed(curator, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    bad = upload(curator, "conceptcard", "concepts.csv", b"key,text\noma\n")
    assert "Nothing was imported" in bad.content.decode() or "row 2 has 1 cell" in bad.content.decode()
    assert not preview_folder().exists() or list(preview_folder().iterdir()) == []
    unreadable = upload(curator, "conceptcard", "concepts.csv", hostile.csv_wide_short_line()[1])
    assert "more than 50 columns" in unreadable.content.decode()
    assert list(preview_folder().iterdir()) == []

    good = upload(curator, "conceptcard", "concepts.csv", b"key,text\noma,Oma\n")
    assert 'name="import_file_name"' in good.content.decode()
    assert len(list(preview_folder().iterdir())) == 1
    assert confirm(curator, "conceptcard", good).status_code == 302
    assert ConceptCard.objects.filter(key="oma").exists()
    assert list(preview_folder().iterdir()) == []


def test_an_abandoned_preview_is_removed_by_the_next_upload_and_cannot_be_confirmed(
        curator, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    old = upload(curator, "conceptcard", "concepts.csv", b"key,text\noma,Oma\n")
    (stale,) = preview_folder().iterdir()
    an_hour_ago = time.time() - 3601
    os.utime(stale, (an_hour_ago, an_hour_ago))
    upload(curator, "conceptcard", "concepts.csv", b"key,text\nopa,Opa\n")
    assert not stale.exists() and len(list(preview_folder().iterdir())) == 1
    response = confirm(curator, "conceptcard", old)
    assert response.status_code == 302
    assert "upload the file again" in curator.get(response.url).content.decode()
    assert not ConceptCard.objects.filter(key="oma").exists()


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "x" * 40, ""])
def test_a_forged_preview_name_is_refused_without_reading_anything(curator, name):
    response = curator.post(reverse("admin:cards_conceptcard_process_import"),
                            {"import_file_name": name, "original_file_name": "x.csv",
                             "format": "0", "resource": "0"})
    assert response.status_code == 302
    assert not ConceptCard.objects.exists()


def test_the_preview_of_a_large_file_shows_counts_and_the_changed_rows_first(curator, settings,
                                                                             tmp_path):
    settings.VAR_DIR = tmp_path
    for n in range(0, 2_000, 2):  # every other row exists already, unchanged
        ConceptCard.objects.create(key=f"k{n}", text=f"Karte {n}")
    response = upload(curator, "conceptcard", "concepts.csv", concepts_csv(2_000))
    page = response.content.decode()
    assert "2000 rows:\n    1000 new, 0 to update,\n    1000 unchanged." in page
    assert "Showing 200 rows, the changed ones first; 1800 more are not shown." in page
    assert page.count('<tr class="new">') == 200 and '<tr class="skip">' not in page
    assert len(page) < 200_000


def test_a_long_list_of_row_errors_is_cut_with_a_count(curator, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    rows = "".join(f"k{n},\n" for n in range(1_000))  # every text missing
    page = upload(curator, "conceptcard", "concepts.csv", f"key,text\n{rows}".encode()).content.decode()
    assert "Nothing was imported: 1000 problems" in page
    assert "… and 800 more problems (the first 200 are shown)." in page
    assert len(page) < 200_000


# --- print options ----------------------------------------------------------------------------


@pytest.mark.parametrize("offset", ["nan,nan", "nan", "inf,0", "0,-inf", "1e309,1", "-21,0",
                                    "0,1e20", "NaN,1", "infinity,2"])
def test_a_print_offset_that_is_not_a_finite_number_in_range_is_a_form_error(
        mini_catalogue, offset):
    from django.contrib.auth.models import Group

    from tests.test_pdf_admin import FORM, request_as

    user = User.objects.create_user(username="petra", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    from curation.print_pages import print_view

    before = snapshot()
    response = print_view(admin.site, request_as(user, {**FORM, "back_offset": offset}), "sauschwer")
    assert response.status_code == 200
    html = response.render().content.decode()
    assert "offset" in html and "errorlist" in html
    assert snapshot() == before


@pytest.mark.parametrize("field", ["bleed", "safe", "gap", "crop_length", "margin", "min_font_size",
                                   "crop_offset"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_every_numeric_deck_option_must_be_finite(field, value):
    with pytest.raises(OptionError, match="must be"):
        DeckOptions(**{field: value})


def test_a_card_size_and_offset_must_be_finite():
    for size in [(float("nan"), 88.0), (63.0, float("inf"))]:
        with pytest.raises(OptionError):
            DeckOptions(size=size)
    with pytest.raises(OptionError):
        DeckOptions(back_offset=(float("nan"), 0.0))
    with pytest.raises(OptionError):
        parse_offset("nan,nan")
    assert parse_offset("1.5,-0.5") == (1.5, -0.5)


# --- measured: every hostile file through the real import paths, in a child process ----------

PROBE = r"""
import os, resource, sys, time
import django
django.setup()
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

path, fmt = sys.argv[1], sys.argv[2]
client = Client()
client.force_login(User.objects.get(username="measure"))
with open(path, "rb") as handle:
    upload = SimpleUploadedFile(os.path.basename(path), handle.read())
started = time.perf_counter()
response = client.post(reverse("admin:cards_conceptcard_import"),
                       {"format": fmt, "resource": "0", "import_file": upload})
elapsed = time.perf_counter() - started
page = response.content.decode()
print("MEASURED", response.status_code, round(elapsed, 3), len(page), sep="\t")
print(page)
"""
# A child's peak memory is read from /proc: its rusage would also count the memory of the
# test process it was forked from (Linux carries that high-water mark across exec).
PEAK = r"""
import atexit, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    print(f"PEAK\t{kb}", flush=True)

atexit.register(peak)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.slow
def test_no_hostile_file_takes_more_than_200_mb_or_10_s(tmp_path):
    """Each hostile file, at the real limits, through the admin import view and through
    ``import_content``; each run is a fresh child process whose peak RSS is measured."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "PYTHONPATH": str(ROOT),
           "ALLOWED_HOSTS": "testserver"}
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "-c", "import django; django.setup(); "
                    "from django.contrib.auth.models import User; "
                    "User.objects.create_superuser('measure', 'm@example.org', 'pw')"],
                   cwd=ROOT, env=env, check=True)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    files = {name: build() for name, (build, _words) in hostile.HOSTILE.items()}
    files["valid-20000-rows"] = ("concepts.csv", concepts_csv(20_000))
    report = []
    problems: list[str] = []
    for label, (name, data) in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        fmt = FORMAT[name.rsplit(".", 1)[1]]
        view = _measure(python, [str(probe), str(path), fmt], env)
        command = _measure(python, ["manage.py", "import_content", str(path)], env)
        words = hostile.HOSTILE[label][1] if label in hostile.HOSTILE else None
        measured = [line for line in view[3].splitlines() if line.startswith("MEASURED\t")]
        assert measured, (label, view[3][-3000:])
        status_line = measured[0].split("\t")[1:]
        page_bytes = int(status_line[2])
        view = (view[0], float(status_line[1]), view[2], view[3])  # the request alone
        report.append((label, len(data), view[1], view[2], command[1], command[2], page_bytes))
        problems.extend(_check(label, words, status_line, view, command, page_bytes))
    lines = [f"| {label} | {size / 1024:,.0f} KB | {vs:.2f} s, {vm} MB | {cs:.2f} s, {cm} MB | "
             f"{page / 1024:,.0f} KB |" for label, size, vs, vm, cs, cm, page in report]
    print("\n" + "\n".join(lines))
    assert not problems, problems


def _check(label, words, status_line, view, command, page_bytes) -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    if status_line[0] != "200":
        found.append(f"{label}: the view answered {status_line[0]}")
    if words is not None:
        if words not in view[3]:
            found.append(f"{label}: the page does not say “{words}”")
        if command[0] != 1 or words not in command[3] or "Traceback" in command[3]:
            found.append(f"{label}: import_content said {command[3][-500:]!r}")
        measured = [view[1:3], command[1:3]]
    else:
        # The largest valid file: imported, with a small preview page. Its time is the
        # import's own work (every row checked), reported, not part of the hostile bound.
        if command[0] != 0:
            found.append(f"{label}: import_content failed: {command[3][-500:]!r}")
        if page_bytes >= 1_000_000:
            found.append(f"{label}: the preview page has {page_bytes} bytes")
        measured = [view[1:3], command[1:3]]
    for seconds, megabytes in measured:
        if not (seconds < (10 if words else 60) and megabytes < 200):
            found.append(f"{label}: {seconds:.1f} s, {megabytes} MB")
    return found


def _measure(python: str, args: list[str], env: dict[str, str]) -> tuple[int, float, int, str]:
    """(exit status, seconds, peak RSS in MB, output) of one child process."""
    started = time.perf_counter()
    result = subprocess.run([python, "-c", PEAK, *args], cwd=ROOT, env=env, capture_output=True,
                            timeout=120)
    elapsed = time.perf_counter() - started
    output = (result.stdout + result.stderr).decode(errors="replace")
    peaks = [int(line.split("\t")[1]) for line in output.splitlines() if line.startswith("PEAK\t")]
    assert peaks, output[-3000:]
    return result.returncode, elapsed, peaks[-1] // 1024, output


def test_a_po_upload_over_the_limit_is_dropped_and_says_why(mini_catalogue, admin_client, settings):
    from django.contrib.messages import get_messages

    settings.KARTOTHEK_IMPORT_MAX_BYTES = 100 * 1024
    before = snapshot()
    po = b'msgid ""\nmsgstr ""\n' + b"# padding\n" * 30_000
    response = admin_client.post(reverse("admin:cards_po_upload", args=["symbols", "en"]),
                                 {"po_file": SimpleUploadedFile("symbols.po", po)})
    assert response.status_code == 302
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert texts == ["symbols.po: the file is larger than 100 KB, the most an upload takes; "
                     "nothing was read"]
    assert snapshot() == before


def test_the_upload_limit_leaves_other_uploads_alone(mini_catalogue, admin_client, settings):
    # A picture on a tile's change form is not an import: dropping it would save the tile
    # without it and without a word, so the import limit does not apply there.
    from cards.models import SymbolTile
    from cards.uploads import upload_refusal

    settings.KARTOTHEK_IMPORT_MAX_BYTES = 100 * 1024
    tile = SymbolTile.objects.first()
    response = admin_client.post(reverse("admin:cards_symboltile_change", args=[tile.pk]),
                                 {"image": SimpleUploadedFile("big.png", b"\x89PNG" + b"0" * 300_000)})
    assert upload_refusal(response.wsgi_request) is None
    response = admin_client.post(reverse("admin:cards_symboltile_import"),
                                 {"format": "0", "resource": "0",
                                  "import_file": SimpleUploadedFile("t.csv", b"0" * 300_000)})
    assert upload_refusal(response.wsgi_request) is not None


def test_a_workbook_text_longer_than_a_row_may_be_is_refused_while_it_is_read(db):
    cell = b'<row r="2"><c r="A2" t="inlineStr"><is><t>' + b"x" * 5_000 + b"</t></is></c></row>"
    data = hostile.workbook(hostile.SHEET_HEAD + hostile.HEADER_ROW + cell + hostile.SHEET_TAIL)
    assert refusal(data, "concepts.xlsx", max_row_chars=1_000) == (
        "cell A2: a text longer than 1,000 characters, the most an import takes")
    name, strings = hostile.xlsx_shared_strings_bomb(count=3)
    assert read_upload(strings, name).headers == ["key", "text"]


def test_a_shared_text_longer_than_a_row_may_be_is_refused_while_it_is_read(db):
    import zipfile

    name, data = hostile.xlsx_shared_strings_bomb(count=2)
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for part in source.namelist():
            content = source.read(part)
            if part == "xl/sharedStrings.xml":
                content = content.replace(b"<t>s1</t>", b"<t>" + b"y" * 5_000 + b"</t>")
            archive.writestr(part, content)
    assert refusal(out.getvalue(), name, max_row_chars=1_000) == (
        "text 2: a text longer than 1,000 characters, the most an import takes")
