"""Reading uploaded files: their text encodings, empty files and files over the size limit."""

import time
from pathlib import Path

import pytest

from cards.file_kinds import content_type_of
from cards.files import check_size, read_path, read_upload
from cards.models import ConceptCard
from cards.tables import FileProblem
from tests.file_helpers import MB, png_bytes, problem, xlsx

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
