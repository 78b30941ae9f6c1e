"""No import file exhausts the server: the reader stops at its row, cell and text limits while it reads."""

from __future__ import annotations

import datetime
import io
import json
import time

import openpyxl

from cards.files import read_upload
from cards.tables import ImportLimits
from tests import hostile_files as hostile
from tests.import_limits_helpers import concepts_csv, refusal

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
