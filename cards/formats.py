"""File formats of the admin's import and export (django-import-export format classes).

Reading goes through :func:`cards.files.read_upload` (encodings, delimiters, size and damage
checks with messages a curator understands). Spreadsheet formats escape formulas on export
and undo the escape on import (:mod:`cards.formulas`), so a text that starts with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return never runs as a formula, and comes back intact.
An import's result is told in a curator's words (:func:`describe_errors`: spreadsheet row and
column) and previewed a page at a time (:func:`preview_context`).
"""

from __future__ import annotations

import io
import zipfile
from typing import Any, BinaryIO

import tablib
from import_export.formats import base_formats

from cards.files import read_upload
from cards.formulas import escape_cell, unescape_cell

SPREADSHEET_EXTENSIONS = {"csv", "tsv", "xlsx"}


def unescape_dataset(dataset: tablib.Dataset) -> tablib.Dataset:
    for index, row in enumerate(list(dataset)):
        dataset[index] = tuple(unescape_cell(value) for value in row)
    return dataset


def escape_dataset(dataset: tablib.Dataset) -> tablib.Dataset:
    escaped = tablib.Dataset(headers=dataset.headers, title=dataset.title)
    for row in dataset:
        escaped.append(tuple(escape_cell(value) for value in row))
    return escaped


def load_table(data: bytes, filename: str) -> tablib.Dataset:
    """Read an import file into a table, undoing the formula escape of spreadsheet files."""
    dataset = read_upload(data, filename)
    if filename.rsplit(".", 1)[-1].lower() in SPREADSHEET_EXTENSIONS:
        unescape_dataset(dataset)
    return dataset


class _Checked:
    """Mixin: read bytes through load_table; escape formulas when writing spreadsheets."""

    EXTENSION = ""

    def is_binary(self) -> bool:
        return True  # hand the raw bytes to read_upload, which finds the encoding itself

    def get_read_mode(self) -> str:
        return "rb"

    def create_dataset(self, in_stream: Any, **kwargs: Any) -> tablib.Dataset:
        data = in_stream.encode("utf-8") if isinstance(in_stream, str) else bytes(in_stream)
        return load_table(data, f"upload.{self.EXTENSION}")

    def export_data(self, dataset: tablib.Dataset, **kwargs: Any) -> Any:
        if self.EXTENSION in SPREADSHEET_EXTENSIONS:
            dataset = escape_dataset(dataset)
        return super().export_data(dataset, **kwargs)  # type: ignore[misc]


class CSV(_Checked, base_formats.CSV):
    EXTENSION = "csv"


class TSV(_Checked, base_formats.TSV):
    EXTENSION = "tsv"


class XLSX(_Checked, base_formats.XLSX):
    EXTENSION = "xlsx"


class JSON(_Checked, base_formats.JSON):
    EXTENSION = "json"


FORMATS = [CSV, XLSX, TSV, JSON]


def describe_errors(result, origin: list[tuple[int, str]] | None = None,  # type: ignore[no-untyped-def]
                    name_rows: bool = False) -> list[str]:
    """Every error of an import result, as a curator reads it: spreadsheet row and column.

    django-import-export counts data rows from 1; a spreadsheet shows the header as row 1,
    so the first data row is row 2. ``origin`` maps the rows of a file that was reshaped
    before the import (wide slogan translations) back to the file's rows and columns.
    ``name_rows``: a row is named by its card too (``row 3 (“Ein Hühnerei”)``).
    """
    headers = list(getattr(result, "diff_headers", None) or [])
    named = next((c for c in ("name", "text", "key") if c in headers), None) if name_rows else None

    def card(values: Any) -> str:
        if named is None or values is None:
            return ""
        value = values.get(named) if isinstance(values, dict) else (
            values[headers.index(named)] if len(values) > headers.index(named) else None)
        value = str(value or "").strip()
        return f" (“{value}”)" if value and value != "---" else ""

    def where(number: int, column: str | None, values: Any = None) -> str:
        row = number + 1
        if origin is not None:
            row, text_column = origin[number - 1]
            if column in ("text", "field"):
                column = text_column
        if column is None:
            return f"row {row}{card(values)}"
        return (f"row {row}{card(values)}, "
                + (f"column `{column}`" if column != "__all__" else "the row"))

    lines = [str(error.error) for error in result.base_errors]
    for number, errors in result.row_errors():
        lines.extend(f"{where(number, None, error.row)}: {error.error}" for error in errors)
    for invalid in result.invalid_rows:
        for column, messages in invalid.error_dict.items():
            lines.extend(f"{where(invalid.number, column, invalid.values)}: {message}"
                         for message in messages)
    return lines


#: Rows and error lines an import preview shows at most; the rest are counted.
PREVIEW_ROWS = 200


def preview_context(result: Any, limit: int = PREVIEW_ROWS) -> dict[str, Any]:
    """What the import page shows of a result: its errors, and the rows it would change first.

    A preview of every row grows with the file (20,000 rows made a 7 MB page); this keeps the
    page to ``limit`` rows and ``limit`` error lines, with counts of everything."""
    errors = describe_errors(result, name_rows=True)  # the card's name beside its row
    valid = list(result.valid_rows())
    counts = {kind: 0 for kind in ("new", "update", "delete", "skip")}
    for row in valid:
        counts[row.import_type] = counts.get(row.import_type, 0) + 1
    changed = [row for row in valid if row.import_type != "skip"]
    unchanged = [row for row in valid if row.import_type == "skip"]
    shown = changed[:limit] + unchanged[: max(0, limit - len(changed))]
    return {
        "error_lines": errors[:limit],
        "error_count": len(errors),
        "errors_hidden": max(0, len(errors) - limit),
        "preview_rows": shown,
        "preview_counts": counts,
        "preview_total": len(valid),
        "preview_hidden": len(valid) - len(shown),
        # the file's rows, also when the file is refused as a whole before any row is read
        "rows_read": getattr(result, "total_rows", None) or len(valid) + len(errors),
    }


# --- what a file really is, when the chosen format does not fit --------------------------

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls) or another old Office file; save it "
                            "as .xlsx or CSV first"),
    (b"%PDF", "a PDF document, not a table"),
    (b"\x89PNG", "a PNG picture, not a table"),
    (b"\xff\xd8\xff", "a JPEG picture, not a table"),
    (b"GIF8", "a GIF picture, not a table"),
    (b"msgid", "a PO file (translations for Poedit or Weblate); upload it under Translations → "
              "Progress and editor"),
)


HEAD_BYTES = 64 * 1024  # enough to tell a format by; a refused file is never read whole


def what_file_is(data: bytes | BinaryIO) -> tuple[str | None, str]:
    """(the import format that reads ``data``, or None; what it is, as a curator says it),
    judged by its bytes, not its name. ``data`` may be a seekable file: then only its first
    bytes are read (and a ZIP's directory at its end)."""
    whole: BinaryIO = io.BytesIO(data) if isinstance(data, bytes) else data
    whole.seek(0)
    data = whole.read(HEAD_BYTES)
    if data.startswith(b"PK\x03\x04"):
        try:
            whole.seek(0)
            names = set(zipfile.ZipFile(whole).namelist())
        except (zipfile.BadZipFile, OSError, ValueError):
            return None, "a damaged ZIP archive"
        if "xl/workbook.xml" in names:
            return "xlsx", "an XLSX workbook"
        if "content.xml" in names and "mimetype" in names:
            return None, "an OpenDocument file (LibreOffice); save it as .xlsx or CSV first"
        if any(n.startswith("word/") for n in names):
            return None, "a Word document, not a table"
        return None, "a ZIP archive, not a table"
    for signature, description in _SIGNATURES:
        if data.startswith(signature):
            return None, description
    head = data
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"),
                       (b"\xfe\xff", "utf-16-be")):
        if head.startswith(bom):
            head = head[len(bom):].decode(codec, "ignore").encode("utf-8", "ignore")
            break
    if b"\x00" in head:
        return None, "not a text file or workbook"
    text = head.decode("utf-8", "ignore").lstrip()
    if text.startswith(("{", "[")):
        return "json", "a JSON file"
    if text.startswith("msgid") or "\nmsgid " in text[:4000]:
        return None, _SIGNATURES[-1][1]
    first = text.split("\n", 1)[0]
    if first.count("\t") > max(first.count(","), first.count(";")):
        return "tsv", "a TSV file (tab-separated text)"
    return "csv", "a CSV file (comma- or semicolon-separated text)"


def wrong_format_message(data: bytes | BinaryIO, chosen: str) -> str | None:
    """What to tell a curator whose file is not in the format they chose (None if it is)."""
    actual, description = what_file_is(data)
    if actual == chosen:
        return None
    if actual is None:
        return f"This is {description}; choose a CSV, XLSX, TSV or JSON file."
    return (f"This is {description}, not {chosen.upper()}: choose {actual.upper()} as the "
            f"format (your other choices are kept; choose the file again).")
