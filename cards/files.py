"""Uploaded and imported files: turn the bytes into a table.

Reading (:func:`read_upload`)
    The format comes from the file name's extension: ``.csv``, ``.tsv``, ``.xlsx`` or ``.json``.
    Any problem raises :class:`FileProblem` with a message for the curator (never a traceback):
    too large (checked before anything is parsed), empty, not a text file, an unknown text
    encoding, a damaged workbook, rows that do not fit the header, header names that are
    missing or appear twice, JSON that is not a list of objects.

    - Text files are read as UTF-8 (a byte order mark is fine). When that fails they are read
      as Windows-1252 (the superset of Latin-1 that Excel on Windows writes), but only when the
      result looks like text (no control characters; the non-ASCII characters are mostly
      letters such as ä ö ü ß or typographic signs such as „ “ – €). A file that starts with a
      UTF-16 byte order mark (Excel's "Unicode text") is read as UTF-16.
    - CSV: the delimiter is ``,``; when the header row then is a single column whose name
      contains ``;`` or a tab, the file is read again with that delimiter (Excel in German
      writes ``;``). ``.tsv`` files are tab-separated. Every row must have as many cells as the
      header (blank rows are skipped). Row numbers in messages count the header row as row 1,
      as a spreadsheet program shows them.
    - XLSX: the workbook's active sheet is read (``dataset.title`` is the sheet name), as a
      stream of its zip members and XML (see :class:`_Workbook`), never through the sheet's
      stored dimension.
    - Limits (:class:`ImportLimits`, Django settings ``KARTOTHEK_IMPORT_*``): rows, columns
      holding values, cells, characters of a CSV row, the bytes an XLSX unpacks to. Each is
      checked while the file is read; the first one passed stops the reading with a message
      that names the row or cell and the limit.
    - JSON: a list of objects that all have the same keys; values are text, numbers,
      true/false or null. Nesting too deep for the parser is a message (:func:`load_json`
      does the same for the other JSON entry points).
    - Header names are stripped of surrounding spaces; a name that appears twice is an error;
      a column without a name is dropped when it is empty and an error when it holds values.
    - Cell values are returned as read (CSV: text; XLSX and JSON: their own types).

    The returned ``tablib.Dataset`` carries what was decided: ``kartothek_encoding``
    (``"UTF-8"``, ``"UTF-8 with BOM"``, ``"UTF-16"``, ``"Windows-1252"``; ``None`` for XLSX),
    ``kartothek_delimiter`` (CSV/TSV only, else ``None``) and ``kartothek_notes``, a list of
    sentences for the curator worth showing (e.g. that the file was read as Windows-1252).

    Reading a workbook is in cards/workbooks.py; what every reader shares (limits, the
    problem a curator reads) in cards/tables.py; which content a file holds in
    cards/file_kinds.py.
"""

from __future__ import annotations

import codecs
import csv
import json
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import tablib
from django.core.exceptions import ImproperlyConfigured

from cards.tables import FileProblem, ImportLimits, annotated, column_label, count_text, dataset_of, size_text
from cards.workbooks import read_xlsx

FORMATS = {".csv": "csv", ".tsv": "tsv", ".xlsx": "xlsx", ".json": "json"}


# --- reading ------------------------------------------------------------------------------


def read_upload(
    data: bytes,
    filename: str,
    *,
    max_bytes: int | None = None,
    limits: ImportLimits | None = None,
) -> tablib.Dataset:
    """The table in an uploaded or imported file (see the module docstring)."""
    limits = _limits(limits, max_bytes)
    check_size(len(data), limits.max_bytes)
    fmt = _format_of(filename)
    if not data:
        raise FileProblem("the file is empty")
    if fmt == "xlsx":
        return read_xlsx(data, limits)
    text, encoding = _decode(data)
    if not text or text.isspace():
        raise FileProblem("the file is empty")
    notes = []
    if encoding == "Windows-1252":
        notes.append("The file is not UTF-8; it was read as Windows-1252 (Latin-1).")
    elif encoding == "UTF-16":
        notes.append("The file was read as UTF-16 text.")
    if fmt == "json":
        dataset = _read_json(text, limits)
        delimiter = None
    else:
        dataset, delimiter = _read_delimited(text, "\t" if fmt == "tsv" else ",", limits)
        if delimiter != ("\t" if fmt == "tsv" else ","):
            notes.append(f"The columns are separated by {_DELIMITER_NAMES[delimiter]}.")
    return annotated(dataset, encoding=encoding, delimiter=delimiter, notes=notes)


def read_path(
    path: Path | str, *, max_bytes: int | None = None, limits: ImportLimits | None = None
) -> tablib.Dataset:
    """:func:`read_upload` for a file on disk; its size is checked before it is read."""
    path = Path(path)
    limits = _limits(limits, max_bytes)
    try:
        size = path.stat().st_size
    except OSError:
        raise FileProblem(f"the file {path.name} cannot be opened") from None
    check_size(size, limits.max_bytes)
    return read_upload(path.read_bytes(), path.name, limits=limits)


def _limits(limits: ImportLimits | None, max_bytes: int | None) -> ImportLimits:
    if limits is None:
        try:
            limits = ImportLimits.from_settings()
        except ImproperlyConfigured:  # used outside Django: the defaults
            limits = ImportLimits()
    return limits if max_bytes is None else replace(limits, max_bytes=max_bytes)


def max_upload_bytes() -> int:
    """The largest import file the settings allow."""
    return _limits(None, None).max_bytes


def check_size(size: int, max_bytes: int | None = None) -> None:
    """Refuse a file larger than ``max_bytes`` (use it on an upload's size before reading it)."""
    if max_bytes is None:
        max_bytes = max_upload_bytes()
    if size > max_bytes:
        raise FileProblem(f"the file is {size_text(size, '.1f')}; at most {size_text(max_bytes, 'g')}")


def _format_of(filename: str) -> str:
    suffix = Path(filename).suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix]
    if suffix == ".xls":
        raise FileProblem(
            "old Excel files (.xls) cannot be read; save the workbook as .xlsx (or CSV UTF-8)"
        )
    shown = f"“{suffix}” files" if suffix else "files without an extension"
    raise FileProblem(f"{shown} cannot be read; use .csv, .tsv, .xlsx or .json")


# --- text encodings -------------------------------------------------------------------------

# Bytes below 0x20 that occur in text files: tab, line feed, form feed, carriage return.
_TEXT_CONTROLS = {0x09, 0x0A, 0x0C, 0x0D}
# Non-ASCII characters other than letters that a Windows-1252 text plausibly contains.
_TYPOGRAPHIC = set("€‚„…–—‘’“”•°§«»×÷·´¨¸ ²³¹µ½¼¾±©®™¢£¥¡¿¤¦¬¯ªº†‡‰‹›ˆ˜")


def _looks_binary(data: bytes) -> bool:
    """NUL bytes, or more control bytes than a text file has (a stray one is tolerated)."""
    if b"\x00" in data:
        return True
    sample = data[: 64 * 1024]
    controls = sum(1 for b in sample if (b < 0x20 and b not in _TEXT_CONTROLS) or b == 0x7F)
    return controls > max(2, len(sample) // 100)


def _plausible_cp1252(text: str) -> bool:
    visible = [ch for ch in text if not ch.isspace()]
    foreign = [ch for ch in visible if ord(ch) > 0x7F]
    if not visible or len(foreign) > 0.3 * len(visible):
        return False
    odd = [ch for ch in foreign if not unicodedata.category(ch).startswith("L") and ch not in _TYPOGRAPHIC]
    return len(odd) <= 0.1 * len(foreign)


def _decode(data: bytes) -> tuple[str, str]:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), "UTF-16"
        except UnicodeDecodeError:
            raise FileProblem("this is not a text file (broken UTF-16)") from None
    if _looks_binary(data):
        raise FileProblem("this is not a text file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    else:
        return text, "UTF-8 with BOM" if data.startswith(codecs.BOM_UTF8) else "UTF-8"
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = ""
    if text and _plausible_cp1252(text):
        return text, "Windows-1252"
    raise FileProblem(
        "the text encoding is not recognised: expected UTF-8 (or Windows-1252); "
        "save the file as “CSV UTF-8”"
    )


# --- CSV / TSV ------------------------------------------------------------------------------

_DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


class _BoundedLines:
    """The lines of a text for ``csv.reader``, refusing a row longer than the limit.

    ``csv.reader`` pulls lines until a row is complete (a quoted text may span lines), so the
    count of characters since the last complete row is checked as each line is handed over:
    a file that is one huge line, or one endless quoted text, stops at the limit."""

    def __init__(self, text: str, limits: ImportLimits) -> None:
        # Lines are cut out of the text itself: io.StringIO would copy it, four bytes a
        # character once one character is outside Latin-1.
        self._text = text
        self._position = 0
        self._limit = limits.max_row_chars
        self.row_chars = 0
        self.row = 1  # the number of the row being read (header = 1)

    def __iter__(self) -> _BoundedLines:
        return self

    def __next__(self) -> str:
        text, start = self._text, self._position
        if start >= len(text):
            raise StopIteration
        window = start + self._limit + 1  # search no further than one row may reach
        ends = [i for i in (text.find("\n", start, window), text.find("\r", start, window)) if i >= 0]
        if ends:
            end = min(ends) + 1
            if text[end - 1] == "\r" and text.startswith("\n", end):
                end += 1
        else:
            end = min(len(text), window)
        self._position = end
        self.row_chars += end - start
        if self.row_chars > self._limit:
            raise FileProblem(
                f"row {count_text(self.row)}: the row is longer than {count_text(self._limit)} characters, "
                "the most an import takes"
            )
        return text[start:end]


def _records(
    text: str, delimiter: str, limits: ImportLimits
) -> Iterator[tuple[int, list[str]]]:
    """(row number, cells) of each row, checking the limits as each row is read."""
    lines = _BoundedLines(text, limits)
    reader = csv.reader(lines, delimiter=delimiter)
    cells = 0
    number = 0
    try:
        for number, record in enumerate(reader, start=1):
            if number > limits.max_rows + 1:
                raise FileProblem(
                    f"row {count_text(number)}: the file has more than {count_text(limits.max_rows)} rows "
                    "besides the header row, the most an import takes"
                )
            if len(record) > limits.max_columns:
                # Trailing empty cells (a spreadsheet's used range) do not count.
                while len(record) > limits.max_columns and not record[-1].strip():
                    record.pop()
                if len(record) > limits.max_columns:
                    raise FileProblem(
                        f"row {count_text(number)}, column {column_label(limits.max_columns + 1)}: "
                        f"the file has more than {count_text(limits.max_columns)} columns, the most an "
                        "import takes"
                    )
            cells += len(record)
            if cells > limits.max_cells:
                raise FileProblem(
                    f"row {count_text(number)}: the file has more than {count_text(limits.max_cells)} cells, "
                    "the most an import takes"
                )
            yield number, record
            lines.row_chars = 0
            lines.row = number + 1
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise FileProblem(
                f"row {count_text(number + 1)}: a cell holds more than "
                f"{count_text(csv.field_size_limit())} characters, the most an import takes "
                "(is a quotation mark never closed?)"
            ) from None
        raise FileProblem(f"row {number + 1} cannot be read as CSV ({exc})") from None


def _read_delimited(
    text: str, default: str, limits: ImportLimits
) -> tuple[tablib.Dataset, str]:
    delimiter = default
    first = next(_records(text, default, replace(limits, max_columns=1 << 30)), (1, []))[1]
    if len(first) == 1:
        others = [d for d in (";", "\t", ",") if d != default and d in first[0]]
        if others:
            delimiter = max(others, key=first[0].count)
    records = list(_records(text, delimiter, limits))
    # Skip blank lines before the header.
    while records and not any(cell.strip() for cell in records[0][1]):
        records.pop(0)
    if not records:
        raise FileProblem("the file is empty")
    _header_number, header = records[0]
    width = len(header)
    bad = [
        (n, len(row))
        for n, row in records[1:]
        if any(cell.strip() for cell in row) and len(row) != width
    ]
    if bad:
        n, cells = bad[0]
        message = (
            f"row {n} has {cells} {'cell' if cells == 1 else 'cells'}, "
            f"but the header row has {width} {'column' if width == 1 else 'columns'}"
        )
        if cells > width and delimiter in ",;":
            message += f" (a text containing “{delimiter}” must be in double quotes)"
        others = [str(row_number) for row_number, _cells in bad[1:]]
        if others:
            listed = ", ".join(others[:3]) + (", …" if len(others) > 3 else "")
            message += (
                f"; row {listed} does not fit either"
                if len(others) == 1
                else f"; rows {listed} do not fit either"
            )
        raise FileProblem(message)
    rows = [row for _n, row in records[1:] if any(cell.strip() for cell in row)]
    return dataset_of(header, rows), delimiter


# --- JSON -----------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a text"
    if value is None:
        return "null"
    return "a number" if isinstance(value, int | float) and not isinstance(value, bool) else "true/false"


def load_json(text: str | bytes, what: str = "this file") -> Any:
    """``json.loads`` with a message instead of a traceback for nesting too deep to parse.

    The C parser recurses once per level and stops with RecursionError at Python's
    recursion limit; every JSON entry point (imports, packs) reads through here."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{what} is nested too deeply to be read (lists or objects "
                         "inside each other, hundreds of levels deep)") from None


def _read_json(text: str, limits: ImportLimits) -> tablib.Dataset:
    # The parser builds the whole document at once: bound what it can build from the text
    # alone (every value but the first follows a comma) before it starts.
    if text.count(",") > 2 * limits.max_cells:
        raise FileProblem(
            f"the file has more than {count_text(limits.max_cells)} cells, the most an import takes"
        )
    items = 0

    def count(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal items
        items += 1
        if items > limits.max_rows:
            raise FileProblem(
                f"item {count_text(items)}: the file has more than {count_text(limits.max_rows)} rows, "
                "the most an import takes"
            )
        return dict(pairs)

    try:
        data = json.loads(text, object_pairs_hook=count)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            f"this is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise FileProblem(
            "this JSON is nested too deeply to be read (lists or objects inside each other, "
            "hundreds of levels deep); a JSON file must hold a list of objects, one per row"
        ) from None
    expected = 'a JSON file must hold a list of objects, one per row ([{"key": …, …}, …])'
    if not isinstance(data, list):
        raise FileProblem(f"{expected}, not {_kind(data)}")
    if not data:
        return tablib.Dataset()
    headers: list[str] = []
    rows: list[list[Any]] = []
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            raise FileProblem(f"{expected}; item {number} is {_kind(item)}")
        keys = [str(k) for k in item]
        if number == 1:
            headers = keys
        elif set(keys) != set(headers):
            missing = [k for k in headers if k not in item]
            extra = [k for k in keys if k not in headers]
            parts = []
            if missing:
                parts.append("lacks " + ", ".join(f"“{k}”" for k in missing))
            if extra:
                parts.append("has " + ", ".join(f"“{k}”" for k in extra) + " in addition")
            raise FileProblem(
                f"every object must have the same keys; item {number} {' and '.join(parts)} "
                "compared with item 1"
            )
        for key, value in item.items():
            if isinstance(value, dict | list):
                raise FileProblem(
                    f"item {number}, “{key}”: a value must be text, a number, true/false or null, "
                    f"not {_kind(value)}"
                )
        rows.append([item[k] for k in headers])
    return dataset_of(headers, rows, [f"item {n}" for n in range(1, len(rows) + 1)])
