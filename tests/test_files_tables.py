"""Reading uploaded files into tables: CSV delimiters and rows, header names, file types, XLSX, JSON."""

import io
import json
import zipfile

import pytest
import tablib

from cards.file_kinds import content_type_of
from cards.files import read_upload
from cards.tables import FileProblem
from tests.file_helpers import png_bytes, problem, xlsx

# --- CSV delimiters and rows -----------------------------------------------------------------


def test_a_semicolon_csv_is_read_with_semicolons():
    data = b'key;text\noma;Oma\nmilch;"Dichte 1,03; kalt"\n'
    dataset = read_upload(data, "concepts.csv")
    assert dataset.dict == [
        {"key": "oma", "text": "Oma"},
        {"key": "milch", "text": "Dichte 1,03; kalt"},
    ]
    assert dataset.kartothek_delimiter == ";"
    assert "The columns are separated by semicolons." in dataset.kartothek_notes


def test_a_tab_separated_file_named_csv_is_read_with_tabs():
    dataset = read_upload(b"key\ttext\noma\tOma, die Gute\n", "concepts.csv")
    assert dataset.dict == [{"key": "oma", "text": "Oma, die Gute"}]
    assert dataset.kartothek_delimiter == "\t"


def test_a_tsv_file_is_tab_separated():
    dataset = read_upload(b"key\ttext\noma\tOma; Opa\n", "concepts.tsv")
    assert dataset.dict == [{"key": "oma", "text": "Oma; Opa"}]
    assert dataset.kartothek_notes == []


def test_a_semicolon_csv_in_windows_1252_with_crlf_is_read():
    data = "key;text\r\ngruen;Grün\r\n".encode("cp1252")
    dataset = read_upload(data, "concepts.csv")
    assert dataset.dict == [{"key": "gruen", "text": "Grün"}]
    assert (dataset.kartothek_encoding, dataset.kartothek_delimiter) == ("Windows-1252", ";")


def test_a_row_with_more_cells_than_the_header_is_named():
    data = b"key,name,weight_g,source\nei,Ei,60,Handel\nmilch,Milch,1030,Dichte 1,03 kg/l\n"
    message = problem(data, "objects.csv")
    assert message == (
        "row 3 has 5 cells, but the header row has 4 columns "
        "(a text containing “,” must be in double quotes)"
    )


def test_a_row_with_fewer_cells_than_the_header_is_named():
    assert problem(b"key,text\noma,Oma\nliebe\n") == "row 3 has 1 cell, but the header row has 2 columns"


def test_further_rows_that_do_not_fit_are_listed():
    data = b"key,text\na\nb,B\nc\nd\ne\nf\n"
    assert problem(data) == (
        "row 2 has 1 cell, but the header row has 2 columns; rows 4, 5, 6, … do not fit either"
    )


def test_blank_rows_are_skipped_but_still_counted_as_rows():
    dataset = read_upload(b"key,text\n\noma,Oma\n,\n\n", "concepts.csv")
    assert dataset.dict == [{"key": "oma", "text": "Oma"}]
    assert problem(b"key,text\n\n\nliebe\n") == "row 4 has 1 cell, but the header row has 2 columns"


def test_a_quoted_text_with_a_line_break_is_one_row():
    dataset = read_upload(b'key,text\noma,"Oma\nund Opa"\n', "concepts.csv")
    assert dataset["text"] == ["Oma\nund Opa"]


# --- header names -----------------------------------------------------------------------------


def test_spaces_around_header_names_are_removed():
    dataset = read_upload(b" key , text\t\noma,Oma\n", "concepts.csv")
    assert dataset.headers == ["key", "text"]


def test_a_duplicate_header_name_is_an_error():
    assert problem(b"key,text, key\noma,Oma,oma\n") == (
        "the column name “key” appears twice in the header row (columns 1 and 3)"
    )


def test_empty_trailing_columns_without_a_name_are_dropped():
    dataset = read_upload(b"key;text;;\noma;Oma;;\n", "concepts.csv")
    assert dataset.headers == ["key", "text"]
    assert dataset.dict == [{"key": "oma", "text": "Oma"}]


def test_a_column_with_values_but_no_name_is_an_error():
    assert problem(b"key,,text\noma,x,Oma\n") == "column 2 (B) holds values but has no name in the header row"


# --- file types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "message"),
    [
        ("concepts.txt", "“.txt” files cannot be read; use .csv, .tsv, .xlsx or .json"),
        ("concepts", "files without an extension cannot be read; use .csv, .tsv, .xlsx or .json"),
        ("concepts.xls", "old Excel files (.xls) cannot be read; save the workbook as .xlsx (or CSV UTF-8)"),
    ],
)
def test_an_unknown_extension_is_refused(filename, message):
    assert problem(b"key,text\n", filename) == message


def test_the_extension_is_read_without_case():
    assert read_upload(b"key,text\noma,Oma\n", "CONCEPTS.CSV").height == 1


# --- XLSX -------------------------------------------------------------------------------------


def test_a_workbook_is_read_from_its_active_sheet():
    data = xlsx(
        [[" key ", "name", "weight_g", "source", None], ["ei", "Ei", 60, "Handel", None], [None] * 5],
        title="sauschwer_objects",
    )
    dataset = read_upload(data, "upload.xlsx")
    assert dataset.headers == ["key", "name", "weight_g", "source"]
    assert dataset.dict == [{"key": "ei", "name": "Ei", "weight_g": 60, "source": "Handel"}]
    assert dataset.title == "sauschwer_objects"
    assert dataset.kartothek_encoding is None
    assert dataset.kartothek_notes == []


def test_a_workbook_with_several_sheets_says_which_one_was_read():
    dataset = read_upload(xlsx([["key", "text"], ["oma", "Oma"]], "concepts", ["notes"]), "book.xlsx")
    assert dataset.dict == [{"key": "oma", "text": "Oma"}]
    assert dataset.kartothek_notes == ["Read the sheet “concepts” (the workbook has 2)."]


def test_an_empty_sheet_says_so():
    assert problem(xlsx([], title="Tabelle1"), "concepts.xlsx") == "the sheet “Tabelle1” is empty"


def test_a_duplicate_column_in_a_workbook_is_an_error():
    message = problem(xlsx([["key", "text", "text"], ["oma", "Oma", "Omi"]]), "concepts.xlsx")
    assert message == "the column name “text” appears twice in the header row (columns 2 and 3)"


@pytest.mark.parametrize(
    "data",
    [
        b"this is not a zip file at all",
        b"key,text\noma,Oma\n",
        b"PK\x03\x04" + b"\x00" * 60,
    ],
    ids=["text", "csv", "zip-header-only"],
)
def test_a_broken_workbook_cannot_be_opened(data):
    assert problem(data, "concepts.xlsx") == (
        "cannot be opened as an Excel workbook: the file is damaged or not an .xlsx file"
    )


def test_a_truncated_workbook_cannot_be_opened():
    data = xlsx([["key", "text"], ["oma", "Oma"]])
    assert "cannot be opened as an Excel workbook" in problem(data[: len(data) // 2], "concepts.xlsx")


def test_a_zip_that_is_not_a_workbook_cannot_be_opened():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("hello.txt", "hello")
    assert "cannot be opened as an Excel workbook" in problem(buffer.getvalue(), "concepts.xlsx")


def test_an_old_xls_file_renamed_xlsx_says_what_it_is():
    data = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504
    assert "old .xls file or a password-protected workbook" in problem(data, "concepts.xlsx")


def test_a_png_renamed_to_xlsx_cannot_be_opened():
    assert "cannot be opened as an Excel workbook" in problem(png_bytes(), "concepts.xlsx")


# --- JSON -------------------------------------------------------------------------------------


def test_a_json_list_of_objects_is_read_with_its_own_types():
    data = json.dumps(
        [{"key": "ei", "name": "Ei", "weight_g": 60, "source": "Handel"}], ensure_ascii=False
    ).encode()
    dataset = read_upload(data, "objects.json")
    assert dataset.dict == [{"key": "ei", "name": "Ei", "weight_g": 60, "source": "Handel"}]


def test_a_json_export_of_tablib_reads_back():
    original = tablib.Dataset(["oma", "Oma"], ["liebe", "Liebe"], headers=["key", "text"])
    dataset = read_upload(original.export("json").encode(), "concepts.json")
    assert dataset.dict == original.dict


def test_an_empty_json_list_has_no_rows_and_no_columns():
    dataset = read_upload(b"[]", "concepts.json")
    assert dataset.height == 0
    with pytest.raises(FileProblem, match="no header row"):
        content_type_of(dataset, "concepts.json")


EXPECTED_LIST = 'a JSON file must hold a list of objects, one per row ([{"key": …, …}, …])'
SAME_KEYS = "every object must have the same keys; item 2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"key": "oma"}', f"{EXPECTED_LIST}, not an object"),
        ('"Oma"', f"{EXPECTED_LIST}, not a text"),
        ("42", f"{EXPECTED_LIST}, not a number"),
        ('[["key", "text"], ["oma", "Oma"]]', f"{EXPECTED_LIST}; item 1 is a list"),
        ('[{"key": "oma", "text": "Oma"}, null]', f"{EXPECTED_LIST}; item 2 is null"),
        (
            '[{"key": "oma", "text": "Oma"},\n {"key": "liebe"}]',
            f"{SAME_KEYS} lacks “text” compared with item 1",
        ),
        (
            '[{"key": "oma"}, {"key": "liebe", "txt": "Liebe"}]',
            f"{SAME_KEYS} has “txt” in addition compared with item 1",
        ),
        (
            '[{"key": "oma", "text": ["Oma"]}]',
            "item 1, “text”: a value must be text, a number, true/false or null, not a list",
        ),
        (
            "[{'key': 'oma'}]",
            "this is not valid JSON (line 1, column 3: Expecting property name enclosed in double quotes)",
        ),
    ],
)
def test_json_that_is_not_a_list_of_flat_objects_is_refused(text, message):
    assert problem(text.encode(), "concepts.json") == message


def test_broken_json_syntax_names_line_and_column():
    # the explanation after the colon is Python's own and differs between versions
    message = problem(b'[{"key": "oma",\n  "text": "Oma"},]', "concepts.json")
    assert message.startswith("this is not valid JSON (line 2, column 18: ")


def test_spaces_around_json_keys_are_removed_and_twins_refused():
    assert read_upload(b'[{" key ": "oma", "text": "Oma"}]', "concepts.json").headers == ["key", "text"]
    assert "appears twice" in problem(b'[{"key": "oma", " key": "Oma"}]', "concepts.json")
