"""import_content: one file, its type read from its columns, all or nothing, clear errors."""

import io
import zipfile

import openpyxl
import pytest
from PIL import Image

from cards.models import ConceptCard, SauschwerObject, Translation
from tests.test_catalogue import snapshot

pytestmark = pytest.mark.django_db

HEADER = "key,name,weight_g,source\n"


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_it_imports_a_file_and_reports_new_rows(mini_catalogue, tmp_path, run_command):
    path = write(tmp_path, "dinge.csv", HEADER + "ein-apfel,Ein Apfel,180,Durchschnitt\n"
                 "eine-melone,Eine Melone,2500,Durchschnitt\n")
    status, out, _ = run_command("import_content", str(path))
    assert status == 0, out
    assert "Sauschwer objects" in out
    assert "2 new, 0 updated, 0 unchanged, 0 errors" in out
    assert SauschwerObject.objects.get(key="ein-apfel").weight_g == 180


def test_a_second_import_reports_every_row_unchanged(mini_catalogue, tmp_path, run_command):
    path = write(tmp_path, "dinge.csv", HEADER + "ein-apfel,Ein Apfel,180,Durchschnitt\n")
    run_command("import_content", str(path))
    status, out, _ = run_command("import_content", str(path))
    assert status == 0
    assert "0 new, 0 updated, 1 unchanged, 0 errors" in out


def test_a_dry_run_changes_nothing(mini_catalogue, tmp_path, run_command):
    path = write(tmp_path, "dinge.csv", HEADER + "ein-apfel,Ein Apfel,180,Durchschnitt\n")
    status, out, _ = run_command("import_content", str(path), "--dry-run")
    assert status == 0
    assert "1 new" in out and "Dry run: nothing was changed." in out
    assert not SauschwerObject.objects.filter(key="ein-apfel").exists()


def test_a_row_error_names_the_row_and_column_and_nothing_is_imported(mini_catalogue, tmp_path,
                                                                      run_command):
    before = snapshot()
    rows = [f"ding-{i},Ding {i},{i + 1},Waage\n" for i in range(15)]
    rows.append("ein-stein,Ein Stein,0,Waage\n")  # spreadsheet row 17
    path = write(tmp_path, "dinge.csv", HEADER + "".join(rows))
    status, out, err = run_command("import_content", str(path))
    assert status == 1
    assert "15 new, 0 updated, 0 unchanged, 1 errors" in out
    assert ("dinge.csv: row 17, column `weight_g`: “0” weighs nothing: an object weighs at "
            "least 1 g.") in err
    assert snapshot() == before


def test_a_translation_file_takes_its_type_from_the_file_name(mini_catalogue, tmp_path, run_command):
    path = write(tmp_path, "concepts_en.csv", "key,field,language,text,state\n"
                 "oma,text,en,Granny,translated\n")
    status, out, _ = run_command("import_content", str(path))
    assert status == 0, out
    assert "translations of concept cards" in out
    assert ConceptCard.objects.get(key="oma").translation("text", "en").text == "Granny"


def xlsx_bytes(rows, title="Sheet"):
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def png_bytes():
    buffer = io.BytesIO()
    Image.new("RGB", (80, 80), "white").save(buffer, "PNG")
    return buffer.getvalue()


def broken_xlsx():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types")
    return buffer.getvalue()


BAD_FILES = [
    ("empty.csv", b"", "the file is empty"),
    ("semikolon.csv", "key;name;weight_g\nein-apfel;Ein Apfel;180\n", "Sauschwer objects also need source"),
    ("unknown.csv", HEADER.strip() + ",colour\nein-apfel,Ein Apfel,180,x,rot\n", "unknown"),
    ("missing.csv", "key,name\nein-apfel,Ein Apfel\n", "missing"),
    ("twice.csv", HEADER + "ein-apfel,Ein Apfel,180,x\nein-apfel,Ein Apfel!,190,x\n",
     "the same key twice: rows 2 and 3 (ein-apfel)"),
    ("bild.csv", png_bytes(), "not a text file"),
    ("kaputt.xlsx", broken_xlsx(), "cannot be opened as an Excel workbook"),
    ("zeilen.csv", HEADER + "ein-apfel,Ein Apfel,180\n", "row 2"),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_get_a_clear_message_and_change_nothing(mini_catalogue, tmp_path, run_command,
                                                          name, data, message):
    before = snapshot()
    status, out, err = run_command("import_content", str(write(tmp_path, name, data)))
    assert status == 1
    assert message in out + err
    assert "Traceback" not in out + err
    assert snapshot() == before


def test_a_file_of_50_mb_is_refused_before_it_is_read(mini_catalogue, tmp_path, run_command):
    path = tmp_path / "riesig.csv"
    with path.open("wb") as handle:
        handle.write(HEADER.encode())
        handle.truncate(50 * 1024 * 1024)
    before = snapshot()
    status, _, err = run_command("import_content", str(path))
    assert status == 1
    assert "50.0 MB" in err and "at most 20 MB" in err
    assert snapshot() == before


@pytest.mark.parametrize("encoding", ["utf-8-sig", "cp1252", "latin-1"])
def test_bom_latin1_and_windows_1252_files_are_read(mini_catalogue, tmp_path, run_command, encoding):
    text = HEADER + "eine-brezel,Eine Brezel,90,Bäckerei: ca. 90 g\n"
    path = write(tmp_path, "brezel.csv", text.encode(encoding))
    status, out, _ = run_command("import_content", str(path))
    assert status == 0, out
    assert SauschwerObject.objects.get(key="eine-brezel").source == "Bäckerei: ca. 90 g"


def test_a_semicolon_file_from_german_excel_is_read(mini_catalogue, tmp_path, run_command):
    path = write(tmp_path, "dinge.csv", "key;name;weight_g;source\neine-brezel;Eine Brezel;90;x\n")
    status, out, _ = run_command("import_content", str(path))
    assert status == 0, out
    assert SauschwerObject.objects.filter(key="eine-brezel").exists()


def test_an_xlsx_file_names_its_type_by_its_sheet(mini_catalogue, tmp_path, run_command):
    data = xlsx_bytes([["key", "field", "language", "text", "state"],
                       ["ein-huehnerei", "name", "en", "An egg", "translated"]],
                      title="sauschwer_objects")
    status, out, _ = run_command("import_content", str(write(tmp_path, "export.xlsx", data)))
    assert status == 0, out
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    assert egg.translation("name", "en").text == "An egg"


def test_an_unknown_key_in_a_translation_file_changes_nothing(mini_catalogue, tmp_path, run_command):
    before = Translation.objects.count()
    path = write(tmp_path, "concepts.csv", "key,field,language,text,state\n"
                 "oma,text,en,Granny,translated\nkaiser,text,en,Emperor,translated\n")
    status, _, err = run_command("import_content", str(path))
    assert status == 1
    assert "row 3, column `key`: There is no concept card with the key “kaiser”." in err
    assert Translation.objects.count() == before
    assert ConceptCard.objects.get(key="oma").translation("text", "en").text == "Grandmother"


def test_two_new_rows_with_the_same_text_are_caught_in_one_file(mini_catalogue, tmp_path,
                                                                 run_command):
    path = write(tmp_path, "dinge.csv", HEADER + "ein-apfel,Ein Apfel,180,x\n"
                 "ein-apfel-2,ein  APFEL!,190,x\n")
    status, _, err = run_command("import_content", str(path))
    assert status == 1
    assert ("row 3, column `name`: “ein  APFEL!” is already in the catalogue as 'ein-apfel'" in err)
    assert not SauschwerObject.objects.filter(key__startswith="ein-apfel").exists()


def test_a_row_that_repeats_a_stored_text_under_a_new_key_is_refused(mini_catalogue, tmp_path,
                                                                      run_command):
    path = write(tmp_path, "dinge.csv", HEADER + "huehnerei,Ein Hühnerei!,61,x\n")
    status, _, err = run_command("import_content", str(path))
    assert status == 1
    assert "is already in the catalogue as 'ein-huehnerei'" in err


def test_an_import_writes_rows_in_batches_not_a_query_per_row(
        mini_catalogue, tmp_path):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from cards.catalogue import import_file

    def queries(rows: int) -> int:
        SauschwerObject.objects.filter(key__startswith="ding-").delete()
        lines = "".join(f"ding-{i},Ding {i},{i + 1},x\n" for i in range(rows))
        path = write(tmp_path, f"dinge-{rows}.csv", HEADER + lines)
        with CaptureQueriesContext(connection) as context:
            assert not import_file(path)[1].errors
        return len(context.captured_queries)

    # rows and their history are written in batches (SQLite splits a batch by its limit of
    # parameters per statement): twenty times the rows, a handful more queries
    few, many = queries(20), queries(400)
    assert many <= few + 8
    assert many < 400 / 10


WIDE = "key,language,text,option_1,option_2,option_3,option_4,state\n"


def test_slogan_translations_import_as_one_row_per_slogan_and_language(mini_catalogue, tmp_path,
                                                                      run_command):
    from cards.models import Slogan

    path = write(tmp_path, "slogans-en.csv", WIDE
                 + "just-do-it,en,Just do it!,Adidas,Puma,Reebok,Nike,translated\n"
                 + "ich-bin-doch-nicht-bloed,en,,Euronics,Conrad,MediaMarkt,Expert,approved\n")
    status, out, err = run_command("import_content", str(path))
    assert status == 0, err
    assert "translations of slogans" in out
    just = Slogan.objects.get(key="just-do-it")
    assert (just.translation("text", "en").text, just.translation("text", "en").state) == (
        "Just do it!", "translated")
    kept = Slogan.objects.get(key="ich-bin-doch-nicht-bloed")
    assert kept.translation("text", "en") is None  # an empty cell leaves the text alone
    option = kept.options.get(position=3)
    assert (option.translation("text", "en").text,
            option.translation("text", "en").state) == ("MediaMarkt", "approved")


def test_a_wide_slogan_row_error_names_its_row_and_column(mini_catalogue, tmp_path, run_command):
    before = snapshot()
    path = write(tmp_path, "slogans-en.csv", WIDE
                 + "just-do-it,en,Just do it!,Adidas,Puma,Reebok,Nike,translated\n"
                 + "nichts-ist-unmoeglich,en,,Toyota,Nissan,Hon\u202eda,Mazda,approved\n")
    status, _, err = run_command("import_content", str(path))
    assert status == 1
    assert ("row 3, column `option_3`: This text contains invisible control characters "
            "(U+202E).") in err
    assert snapshot() == before


def test_a_slogan_twice_in_one_language_is_refused(mini_catalogue, tmp_path, run_command):
    path = write(tmp_path, "slogans-en.csv", WIDE
                 + "just-do-it,en,Just do it!,Adidas,Puma,Reebok,Nike,translated\n"
                 + "just-do-it,en,Do it!,Adidas,Puma,Reebok,Nike,translated\n")
    status, _, err = run_command("import_content", str(path))
    assert status == 1
    assert "the same key + language twice: rows 2 and 3 (just-do-it, en)" in err
