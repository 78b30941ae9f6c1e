"""Reading uploaded files into tables, and telling which content type they hold."""

import io
import json
import time
import zipfile
from pathlib import Path

import openpyxl
import pytest
import tablib
from PIL import Image

from cards.catalogue import CATALOGUE_FILES
from cards.columns import COLUMNS, TRANSLATION_COLUMNS, type_from_name
from cards.file_kinds import FileKind, content_type_of, file_kind
from cards.files import check_size, read_path, read_upload
from cards.models import (
    AlfonsCard,
    BrandOwnership,
    ConceptCard,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SymbolTile,
)
from cards.resources import RESOURCES
from cards.tables import FileProblem
from cards.translation_resources import TranslationResource

MINI = Path(__file__).parent / "data" / "mini"
MB = 1024 * 1024


def problem(data: bytes, filename: str = "concepts.csv", **kwargs) -> str:
    with pytest.raises(FileProblem) as info:
        read_upload(data, filename, **kwargs)
    return str(info.value)


def xlsx(rows, title="Sheet1", extra_sheets=()) -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    for name in extra_sheets:
        workbook.create_sheet(name).append(["other"])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(buffer, format="PNG")
    return buffer.getvalue()


# --- text encodings -----------------------------------------------------------------------


def test_a_utf8_csv_is_read_with_its_rows():
    dataset = read_upload(b"key,text\noma,Oma\nliebe,Liebe\n", "concepts.csv")
    assert dataset.headers == ["key", "text"]
    assert dataset.dict == [{"key": "oma", "text": "Oma"}, {"key": "liebe", "text": "Liebe"}]
    assert dataset.kartothek_encoding == "UTF-8"
    assert dataset.kartothek_delimiter == ","
    assert dataset.kartothek_notes == []


def test_a_byte_order_mark_does_not_end_up_in_the_first_column_name():
    data = "\ufeffkey,text\ngruen,Grün\n".encode()
    assert data.startswith(b"\xef\xbb\xbf")
    dataset = read_upload(data, "concepts.csv")
    assert dataset.headers == ["key", "text"]
    assert dataset["text"] == ["Grün"]
    assert dataset.kartothek_encoding == "UTF-8 with BOM"


def test_a_latin1_file_is_read_as_windows_1252_and_says_so():
    data = "key,text\nschluessel,Schlüssel\ngruesse,Grüße aus Köln\n".encode("latin-1")
    dataset = read_upload(data, "concepts.csv")
    assert dataset["text"] == ["Schlüssel", "Grüße aus Köln"]
    assert dataset.kartothek_encoding == "Windows-1252"
    assert any("Windows-1252" in note for note in dataset.kartothek_notes)


def test_windows_1252_typographic_characters_come_through():
    data = "key,text\nzitat,„Gut“ – 5 €\n".encode("cp1252")
    assert read_upload(data, "concepts.csv")["text"] == ["„Gut“ – 5 €"]


def test_an_excel_unicode_text_file_is_read_as_utf16():
    data = "key\ttext\noma\tOma\n".encode("utf-16")
    dataset = read_upload(data, "concepts.tsv")
    assert dataset.dict == [{"key": "oma", "text": "Oma"}]
    assert dataset.kartothek_encoding == "UTF-16"


def test_bytes_that_are_neither_utf8_nor_windows_1252_are_refused():
    # 0x81 and 0x8D do not exist in Windows-1252; the rest is not UTF-8 either.
    data = b"key,text\noma,\x81\x8d\x81\x8d\n"
    assert "expected UTF-8 (or Windows-1252)" in problem(data)


def test_bytes_that_decode_as_windows_1252_but_do_not_look_like_text_are_refused():
    data = b"key,text\n" + bytes(range(0xC0, 0x100)) * 4 + b"\n"
    assert "expected UTF-8 (or Windows-1252)" in problem(data)


def test_a_png_renamed_to_csv_is_not_a_text_file():
    assert problem(png_bytes(), "concepts.csv") == "this is not a text file"


def test_a_file_full_of_control_characters_is_not_a_text_file():
    assert problem(b"key,text\n" + b"\x01\x02\x03\x04\x05" * 20, "concepts.csv") == "this is not a text file"


def test_a_stray_control_character_is_left_for_the_text_checks():
    dataset = read_upload(b"key,text\noma,O\x07ma\n" + b"liebe,Liebe\n" * 50, "concepts.csv")
    assert dataset["text"][0] == "O\x07ma"


# --- empty and too large ---------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"   \n\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n"])
@pytest.mark.parametrize("filename", ["concepts.csv", "concepts.tsv", "concepts.json"])
def test_an_empty_file_says_so(data, filename):
    assert problem(data, filename) == "the file is empty"


def test_an_empty_workbook_file_says_so():
    assert problem(b"", "concepts.xlsx") == "the file is empty"


def test_a_header_row_alone_gives_zero_rows():
    dataset = read_upload(b"key,text\n", "concepts.csv")
    assert dataset.headers == ["key", "text"]
    assert dataset.height == 0
    assert content_type_of(dataset, "concepts.csv") is ConceptCard


def test_a_workbook_with_a_header_row_alone_gives_zero_rows():
    dataset = read_upload(xlsx([["key", "text"]]), "upload.xlsx")
    assert (dataset.headers, dataset.height) == (["key", "text"], 0)


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "huge.csv"
    with path.open("wb") as handle:  # a sparse 50 MB file: nothing is written but its size
        handle.truncate(50 * MB)

    def no_reading(self):  # the size alone decides; the bytes are never read
        raise AssertionError("read the file")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    started = time.perf_counter()
    with pytest.raises(FileProblem) as info:
        read_path(path)
    assert str(info.value) == "the file is 50.0 MB; at most 20 MB"
    assert time.perf_counter() - started < 1


def test_bytes_over_the_limit_are_refused_before_they_are_parsed(tmp_path):
    path = tmp_path / "huge.csv"
    with path.open("wb") as handle:
        handle.truncate(50 * MB)
    data = path.read_bytes()  # NUL bytes: parsing them would say "not a text file"
    assert problem(data, "huge.csv") == "the file is 50.0 MB; at most 20 MB"
    assert problem(b"x" * 3000, "small.json", max_bytes=2048) == "the file is 2.9 KB; at most 2 KB"


def test_the_size_limit_can_be_checked_on_an_upload_size_alone():
    check_size(20 * MB)
    with pytest.raises(FileProblem, match=r"^the file is 20\.5 MB; at most 20 MB$"):
        check_size(20 * MB + MB // 2)


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


# --- which content type -------------------------------------------------------------------------


@pytest.mark.parametrize("model", list(RESOURCES), ids=lambda m: m.__name__)
def test_the_columns_of_each_resource_name_its_content_type(model):
    headers = RESOURCES[model]().get_export_headers()
    dataset = tablib.Dataset(headers=headers)
    assert file_kind(dataset, "export.csv") == FileKind(model)
    # a misleading file name does not change what the columns say
    assert content_type_of(dataset, "objects.csv") is model


@pytest.mark.parametrize("model", list(COLUMNS), ids=lambda m: m.__name__)
def test_the_required_columns_alone_name_the_content_type(model):
    required, optional = COLUMNS[model]
    assert set(required) | set(optional) <= set(FileKind(model).resource_class()().get_export_headers())
    assert content_type_of(tablib.Dataset(headers=list(required)), "x.csv") is model


def test_the_translation_columns_are_those_of_the_translation_resource():
    required, optional = TRANSLATION_COLUMNS
    assert (*required, *optional) == tuple(TranslationResource()._meta.fields)


def test_every_file_of_the_mini_catalogue_is_recognised():
    expected = {f"{stem}.csv": model for stem, model in CATALOGUE_FILES}
    expected["slogan/brands.csv"] = BrandOwnership  # issue 26: the brand owners
    for stem, model in CATALOGUE_FILES:
        if model.TRANSLATABLE_FIELDS:
            expected[f"translations/en/{stem.split('/')[-1]}.csv"] = model
    seen = 0
    for path in sorted(MINI.rglob("*.csv")):
        relative = path.relative_to(MINI).as_posix()
        kind = file_kind(read_path(path), path.name)
        assert kind == FileKind(expected[relative], translations=relative.startswith("translations/"))
        seen += 1
    assert seen == 16


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("concepts", ConceptCard),
        ("concepts_en", ConceptCard),
        ("en-concepts", ConceptCard),
        ("ConceptCard-2025-06-01", ConceptCard),
        ("symbol_tiles", SymbolTile),
        ("Sign Symbols", SignSymbol),
        ("sign-colors", SignColour),
        ("sign_cards", SignCard),
        ("slogans.en", Slogan),
        ("alfons_cards", AlfonsCard),
        ("Spießer Alfons Cards", AlfonsCard),
        ("objects", SauschwerObject),
        ("sauschwer_objects", SauschwerObject),
        ("translations_en_objects", SauschwerObject),
        ("Translation-2025-06-01", None),
        ("Tabelle1", None),
        ("symbols", None),
    ],
)
def test_names_of_files_and_sheets_name_content_types(name, model):
    assert type_from_name(name) is model


def test_every_catalogue_file_name_names_its_content_type():
    for stem, model in CATALOGUE_FILES:
        assert type_from_name(stem.split("/")[-1]) is model


def translations(*rows, title=None):
    dataset = tablib.Dataset(*rows, headers=["key", "field", "language", "text", "state"])
    dataset.title = title
    return dataset


def test_a_translation_file_takes_its_content_type_from_the_file_name():
    dataset = translations(["oma", "text", "en", "Grandma", "translated"])
    assert file_kind(dataset, "concepts.csv") == FileKind(ConceptCard, translations=True)
    assert content_type_of(dataset, "concepts_en.csv") is ConceptCard


def test_a_translation_workbook_takes_its_content_type_from_the_sheet_name():
    data = xlsx([["key", "field", "language", "text", "state"], ["ei", "name", "en", "Egg", "approved"]],
                title="sauschwer_objects")
    dataset = read_upload(data, "translations.xlsx")
    assert file_kind(dataset, "translations.xlsx") == FileKind(SauschwerObject, translations=True)
    # the sheet name comes before the file name
    assert file_kind(dataset, "concepts.xlsx").model is SauschwerObject


def test_a_type_hint_comes_before_sheet_and_file_names():
    dataset = translations(title="sauschwer_objects")
    assert file_kind(dataset, "concepts.csv", type_hint="sign_colours").model is SignColour
    assert file_kind(dataset, "concepts.csv", type_hint=SignSymbol).model is SignSymbol


def test_the_state_column_of_a_translation_file_may_be_left_out():
    dataset = tablib.Dataset(headers=["key", "field", "language", "text"])
    assert file_kind(dataset, "slogans.csv") == FileKind(Slogan, translations=True)


def test_a_translation_file_without_a_content_type_says_how_to_name_it():
    with pytest.raises(FileProblem) as info:
        file_kind(translations(), "Translation-2025-06-01.csv")
    assert str(info.value) == (
        "this is a translation file, but it does not say which content type it translates: "
        "name the file (or the sheet) after the type, like concepts.csv, or choose the type "
        "(one of: concepts, symbol_tiles, sign_symbols, sign_colours, slogans, alfons_cards, objects)"
    )


def test_sign_cards_have_nothing_to_translate():
    with pytest.raises(FileProblem, match=r"^Sign cards have no texts to translate$"):
        file_kind(translations(), "sign_cards.csv")


def test_an_unknown_type_hint_is_named():
    with pytest.raises(FileProblem, match=r"^unknown content type “cards”; use one of: concepts, "):
        file_kind(translations(), "x.csv", type_hint="cards")


def test_a_type_hint_that_does_not_fit_the_columns_names_them():
    dataset = tablib.Dataset(headers=["key", "text"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "x.csv", type_hint="objects")
    assert str(info.value) == (
        "the columns do not fit Sauschwer objects: missing columns: name, weight_g, source; "
        "unknown column: text (the columns are: key, name, weight_g, source)"
    )


def test_unknown_columns_are_named_against_the_closest_content_type():
    dataset = tablib.Dataset(headers=["key", "name", "gewicht", "source"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "upload.csv")
    assert str(info.value) == (
        "the columns do not match any content type; the closest are those of Sauschwer objects: "
        "missing column: weight_g; unknown column: gewicht "
        "(the columns are: key, name, weight_g, source)"
    )


def test_the_file_name_explains_missing_columns_when_it_names_a_type():
    dataset = tablib.Dataset(headers=["key", "name", "weight_g"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "objects.csv")
    assert str(info.value) == (
        "the columns do not fit Sauschwer objects, which the file name “objects.csv” suggests: "
        "missing column: source (the columns are: key, name, weight_g, source)"
    )


def test_a_column_name_in_the_wrong_case_gets_a_hint():
    dataset = tablib.Dataset(headers=["Key", "Text"])
    hint = r"unknown columns: Key \(write it as key\), Text \(write it as text\)"
    with pytest.raises(FileProblem, match=hint):
        file_kind(dataset, "upload.csv")


def test_too_few_known_columns_say_what_each_fitting_type_still_needs():
    dataset = tablib.Dataset(headers=["key", "name"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "upload.csv")
    assert str(info.value) == (
        "columns are missing: a file must have all the columns of its content type; "
        "Sign symbols also need icon, position; Sauschwer objects also need weight_g, source; "
        "symbol tiles also need icon, is_extra, position"
    )


def test_optional_columns_may_be_left_out():
    tiles = ["key", "name", "icon", "is_extra", "position"]
    assert content_type_of(tablib.Dataset(headers=tiles), "x.csv") is SymbolTile
    slogan = ["card", "side", "key", "text", "option_1", "option_2", "option_3", "option_4", "correct"]
    assert content_type_of(tablib.Dataset(headers=slogan), "x.csv") is Slogan


def test_the_kind_names_its_resource():
    assert FileKind(ConceptCard).resource_class() is RESOURCES[ConceptCard]
    resource = FileKind(ConceptCard, translations=True).resource_class()
    assert issubclass(resource, TranslationResource)
    assert resource.content_model is ConceptCard


# --- end to end -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_german_excel_csv_imports_through_its_resource():
    data = "key;text\r\ngruesse;Grüße\r\nkaese;Käse; alt\r\n".encode("cp1252")
    with pytest.raises(FileProblem, match="row 3 has 3 cells"):
        read_upload(data, "concepts.csv")
    data = 'key;text\r\ngruesse;Grüße\r\nkaese;"Käse; alt"\r\n'.encode("cp1252")
    dataset = read_upload(data, "Begriffe.csv")
    kind = file_kind(dataset, "Begriffe.csv")
    result = kind.resource_class()().import_data(dataset, dry_run=False)
    assert not result.has_errors() and not result.has_validation_errors()
    assert ConceptCard.objects.get(key="kaese").text == "Käse; alt"
    assert ConceptCard.objects.get(key="gruesse").text == "Grüße"
