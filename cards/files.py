"""Uploaded and imported files: turn the bytes into a table, and tell which content it holds.

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

Which content (:func:`file_kind`, :func:`content_type_of`)
    Each content type's file has its own set of columns (the columns of its resource in
    ``cards.resources``). A file is of the type whose *required* columns it all has and which
    has no column that type does not know; a few columns may be left out (a symbol tile's
    ``picture``, ``image_source``, ``image_licence``; a slogan's ``keep_german`` and
    ``source``; a translation's ``state``). The required sets differ from type to type, so
    the header names decide alone and a misleading file name cannot change the type.

    Translation files all have the same columns (``key, field, language, text[, state]``), so
    their content type must be named, in this order of precedence:

    1. the ``type_hint`` argument (a type name such as ``"concepts"``, or the model class);
    2. for a workbook, the sheet name (``sauschwer_objects``);
    3. the file name's stem (``concepts.csv``, ``concepts_en.csv``, ``en-concepts.xlsx``,
       ``ConceptCard-2025-06-01.csv`` as the admin names its exports).

    A name matches when it is one of the type's names (see :data:`TYPE_NAMES`: the catalogue
    file names such as ``concepts``, ``symbol_tiles``, ``sign_colours``, ``slogans``,
    ``alfons_cards``, ``objects``, and forms such as ``sauschwer_objects``, ``concept_card``,
    ``ConceptCard``), compared without case with spaces, hyphens and dots read as ``_``; or
    when its first or last words are (``concepts_en``). For a content file, an explicit
    ``type_hint`` must fit the columns; sheet and file names are only used to explain missing
    or unknown columns.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import json
import re
import unicodedata
import xml.parsers.expat
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import tablib
from django.core.exceptions import ImproperlyConfigured

from cards.models import (
    AlfonsCard,
    BrandOwnership,
    ConceptCard,
    Content,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SymbolTile,
)
from cards.text import ascii_number

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
FORMATS = {".csv": "csv", ".tsv": "tsv", ".xlsx": "xlsx", ".json": "json"}

_MB = 1024 * 1024


@dataclass(frozen=True)
class ImportLimits:
    """The most an import file may hold; the readers stop at the first limit a file passes.

    Each is a Django setting ``KARTOTHEK_IMPORT_<NAME>`` (e.g. ``KARTOTHEK_IMPORT_MAX_ROWS``);
    the defaults take the largest real file (20,000 rows of the widest content type) with
    room to spare and keep one import request under 200 MB of memory and 10 s.
    """

    max_bytes: int = DEFAULT_MAX_BYTES  # the file as uploaded
    max_rows: int = 20_000  # data rows, the header row not counted
    max_columns: int = 50  # columns holding a value (trailing empty cells do not count)
    max_cells: int = 500_000  # cells read in all, empty ones inside a row included
    max_row_chars: int = 1_000_000  # characters of a CSV/TSV row (quoted lines included), of an XLSX text
    max_unzipped_bytes: int = 100 * _MB  # what an XLSX unpacks to, all its parts together

    @classmethod
    def from_settings(cls, **overrides: int) -> ImportLimits:
        from django.conf import settings

        values = {
            f.name: getattr(settings, f"KARTOTHEK_IMPORT_{f.name.upper()}", f.default)
            for f in fields(cls)
        }
        return cls(**{**values, **overrides})


def _count(number: int) -> str:
    return f"{number:,}"


class FileProblem(ValueError):
    """A file that cannot be read or placed; the message is meant for the curator."""


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
        return _read_xlsx(data, limits)
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
    return _annotate(dataset, encoding=encoding, delimiter=delimiter, notes=notes)


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
        raise FileProblem(f"the file is {_size(size, '.1f')}; at most {_size(max_bytes, 'g')}")


def _size(n: int, spec: str) -> str:
    if n >= _MB:
        return f"{n / _MB:{spec}} MB"
    return f"{n / 1024:{spec}} KB"


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


def _annotate(
    dataset: tablib.Dataset, *, encoding: str | None, delimiter: str | None, notes: list[str]
) -> tablib.Dataset:
    dataset.kartothek_encoding = encoding
    dataset.kartothek_delimiter = delimiter
    dataset.kartothek_notes = notes
    return dataset


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
                f"row {_count(self.row)}: the row is longer than {_count(self._limit)} characters, "
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
                    f"row {_count(number)}: the file has more than {_count(limits.max_rows)} rows "
                    "besides the header row, the most an import takes"
                )
            if len(record) > limits.max_columns:
                # Trailing empty cells (a spreadsheet's used range) do not count.
                while len(record) > limits.max_columns and not record[-1].strip():
                    record.pop()
                if len(record) > limits.max_columns:
                    raise FileProblem(
                        f"row {_count(number)}, column {_column_label(limits.max_columns + 1)}: "
                        f"the file has more than {_count(limits.max_columns)} columns, the most an "
                        "import takes"
                    )
            cells += len(record)
            if cells > limits.max_cells:
                raise FileProblem(
                    f"row {_count(number)}: the file has more than {_count(limits.max_cells)} cells, "
                    "the most an import takes"
                )
            yield number, record
            lines.row_chars = 0
            lines.row = number + 1
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise FileProblem(
                f"row {_count(number + 1)}: a cell holds more than "
                f"{_count(csv.field_size_limit())} characters, the most an import takes "
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
    return _dataset(header, rows), delimiter


# --- XLSX -----------------------------------------------------------------------------------


_DAMAGED = "cannot be opened as an Excel workbook: the file is damaged or not an .xlsx file"
_MAX_PARTS = 1_000  # zip members of a workbook; real ones have a few dozen
_MAX_SMALL_PART = 4 * _MB  # workbook.xml, relationships: a few KB in real workbooks
_CHUNK = 64 * 1024


class _Workbook:
    """A streaming reader of an XLSX file's active sheet that stops at the import limits.

    openpyxl builds every row as wide as the sheet's rightmost cell (one cell at XFD makes
    16,384 cells a row) and reads all shared strings first, so the parts are read here with
    expat, chunk by chunk: each zip member is inflated 64 KB at a time and counted against
    the declared size and ``max_unzipped_bytes``; rows, columns and cells are counted as the
    parser meets them. Values follow openpyxl's ``data_only`` reading (cached formula
    results, numbers as int or float, dates by their number format)."""

    def __init__(self, data: bytes, limits: ImportLimits) -> None:
        self.limits = limits
        self.unzipped = 0
        try:
            self.zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self.zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError):
            raise FileProblem(_DAMAGED) from None
        if len(infos) > _MAX_PARTS:
            raise FileProblem(f"the workbook has more than {_count(_MAX_PARTS)} parts; {_DAMAGED}")
        declared = sum(info.file_size for info in infos)
        if declared > limits.max_unzipped_bytes:
            raise FileProblem(self._too_big(declared))
        self.names = {info.filename for info in infos}

    def _too_big(self, size: int) -> str:
        return (
            f"the workbook unpacks to {_size(size, '.1f')}, more than "
            f"{_size(self.limits.max_unzipped_bytes, 'g')}, the most an import takes"
        )

    def _long_text(self, where: str) -> str:
        return (f"{where}: a text longer than {_count(self.limits.max_row_chars)} characters, "
                "the most an import takes")

    def chunks(self, name: str, cap: int | None = None) -> Iterator[bytes]:
        """A member's bytes as inflated, counted against its declared size and the limits."""
        if name not in self.names:
            raise FileProblem(_DAMAGED)
        info = self.zip.getinfo(name)
        if cap is not None and info.file_size > cap:
            raise FileProblem(_DAMAGED)
        seen = 0
        with self.zip.open(info) as member:
            while chunk := member.read(_CHUNK):
                seen += len(chunk)
                self.unzipped += len(chunk)
                if seen > info.file_size:  # zipfile stops at the declared size; be sure
                    raise FileProblem(_DAMAGED)
                if self.unzipped > self.limits.max_unzipped_bytes:
                    raise FileProblem(self._too_big(self.unzipped))
                yield chunk

    def parse(self, name: str, start: Any, end: Any = None, text: Any = None,
              cap: int | None = None, raw: bool = False) -> None:
        """Run expat over a member with the given handlers.

        Handlers get local tag names (``c`` for ``x:c``) and attributes by local name; with
        ``raw`` they get the names as written and map them with :func:`_local` themselves
        (the sheet and its texts: no wrapper call per element)."""
        parser = xml.parsers.expat.ParserCreate()

        def refuse(*_args: Any) -> None:  # OOXML has no DTDs: no entities to expand
            raise FileProblem(_DAMAGED)

        parser.StartDoctypeDeclHandler = refuse
        parser.EntityDeclHandler = refuse
        if raw:
            parser.StartElementHandler = start
            if end is not None:
                parser.EndElementHandler = end
        else:
            parser.StartElementHandler = lambda tag, attrs: start(
                _local(tag), {_local(k): v for k, v in attrs.items()})
            if end is not None:
                parser.EndElementHandler = lambda tag: end(_local(tag))
        if text is not None:
            parser.CharacterDataHandler = text
        parser.buffer_text = True
        for chunk in self.chunks(name, cap):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)

    # --- the parts ---------------------------------------------------------------------

    def relationships(self, part: str) -> dict[str, str]:
        """Relationship id -> the part it points to, for ``part`` (e.g. xl/workbook.xml)."""
        folder, _, base = part.rpartition("/")
        rels = f"{folder}/_rels/{base}.rels" if folder else f"_rels/{base}.rels"
        found: dict[str, str] = {}

        def start(tag: str, attrs: dict[str, str]) -> None:
            if tag == "Relationship" and attrs.get("TargetMode") != "External":
                target = attrs.get("Target", "")
                if target.startswith("/"):
                    path = target[1:]
                else:
                    parts = folder.split("/") if folder else []
                    for piece in target.split("/"):
                        if piece == "..":
                            if parts:
                                parts.pop()
                        elif piece not in ("", "."):
                            parts.append(piece)
                    path = "/".join(parts)
                found[attrs.get("Id", "")] = path
                found.setdefault("type:" + attrs.get("Type", "").rpartition("/")[2], path)

        if rels in self.names:
            self.parse(rels, start, cap=_MAX_SMALL_PART)
        return found

    def shared_strings(self, path: str | None) -> list[str]:
        strings: list[str] = []
        if path is None or path not in self.names:
            return strings
        parts: list[str] = []
        state = {"t": False, "skip": 0, "chars": 0}
        limit = self.limits.max_cells

        def start(tag: str, attrs: dict[str, str]) -> None:
            tag = _LOCAL.get(tag) or _local(tag)
            if tag == "si":
                parts.clear()
                state["chars"] = 0
            elif tag == "t" and not state["skip"]:
                state["t"] = True
            elif tag == "rPh":  # phonetic guide text is not part of the value
                state["skip"] += 1

        def end(tag: str) -> None:
            tag = _LOCAL.get(tag) or _local(tag)
            if tag == "si":
                if len(strings) >= limit:
                    raise FileProblem(
                        f"the workbook has more than {_count(limit)} texts, the most an import takes"
                    )
                strings.append("".join(parts))
            elif tag == "t":
                state["t"] = False
            elif tag == "rPh":
                state["skip"] -= 1

        def text(data: str) -> None:
            if state["t"]:
                parts.append(data)
                state["chars"] += len(data)
                if state["chars"] > self.limits.max_row_chars:
                    raise FileProblem(self._long_text(f"text {_count(len(strings) + 1)}"))

        self.parse(path, start, end, text, raw=True)
        return strings

    def date_styles(self, path: str | None) -> set[int]:
        """Indexes of the cell styles whose number format shows a date or a time."""
        from openpyxl.styles.numbers import BUILTIN_FORMATS, is_date_format

        if path is None or path not in self.names:
            return set()
        custom: dict[int, str] = {}
        formats: list[int] = []
        where = {"cellXfs": False}

        def start(tag: str, attrs: dict[str, str]) -> None:
            if tag == "numFmt":
                with contextlib.suppress(ValueError):
                    custom[int(attrs.get("numFmtId", ""))] = attrs.get("formatCode", "")
            elif tag == "cellXfs":
                where["cellXfs"] = True
            elif tag == "xf" and where["cellXfs"]:
                try:
                    formats.append(int(attrs.get("numFmtId", "0")))
                except ValueError:
                    formats.append(0)

        def end(tag: str) -> None:
            if tag == "cellXfs":
                where["cellXfs"] = False

        self.parse(path, start, end, cap=_MAX_SMALL_PART)
        return {
            index for index, fmt in enumerate(formats)
            if is_date_format(custom.get(fmt, BUILTIN_FORMATS.get(fmt)))
        }

    def read(self) -> tuple[str, int, list[tuple[int, list[Any]]]]:
        """(sheet name, number of worksheets, numbered rows of the active sheet)."""
        book = self.relationships("").get("type:officeDocument")
        if book is None or book not in self.names:
            raise FileProblem(_DAMAGED)
        sheets: list[tuple[str, str]] = []
        view = {"active": 0, "date1904": False}

        def start(tag: str, attrs: dict[str, str]) -> None:
            if tag == "sheet":
                sheets.append((attrs.get("name", ""), attrs.get("id", "")))
            elif tag == "workbookView" and "activeTab" in attrs:
                with contextlib.suppress(ValueError):
                    view["active"] = int(attrs["activeTab"])
            elif tag == "workbookPr":
                view["date1904"] = attrs.get("date1904", "").lower() in ("1", "true")

        self.parse(book, start, cap=_MAX_SMALL_PART)
        rels = self.relationships(book)
        worksheets = [(name, rels.get(rid, "")) for name, rid in sheets]
        count = sum(1 for _name, path in worksheets if "/worksheets/" in f"/{path}")
        if not 0 <= view["active"] < len(worksheets):
            view["active"] = 0
        if not worksheets or "/worksheets/" not in f"/{worksheets[view['active']][1]}":
            raise FileProblem("the workbook has no worksheet to read")
        title, path = worksheets[view["active"]]
        strings = self.shared_strings(rels.get("type:sharedStrings"))
        dates = self.date_styles(rels.get("type:styles"))
        return title, count, self.rows(path, strings, dates, bool(view["date1904"]))

    def rows(self, path: str, strings: list[str], dates: set[int],
             date1904: bool) -> list[tuple[int, list[Any]]]:
        from openpyxl.utils.datetime import (
            CALENDAR_MAC_1904,
            CALENDAR_WINDOWS_1900,
            from_excel,
            from_ISO8601,
        )

        limits = self.limits
        epoch = CALENDAR_MAC_1904 if date1904 else CALENDAR_WINDOWS_1900
        rows: list[tuple[int, list[Any]]] = []
        row: dict[int, Any] = {}
        cell: dict[str, Any] = {}
        parts: list[str] = []
        at = {"row": 0, "column": 0, "cells": 0, "text": False, "skip": 0, "chars": 0}

        def refuse_row(number: int) -> None:
            raise FileProblem(
                f"row {_count(number)}: the file has more than {_count(limits.max_rows)} rows besides "
                "the header row, the most an import takes"
            )

        def start(tag: str, attrs: dict[str, str]) -> None:
            tag = _LOCAL.get(tag) or _local(tag)
            if tag == "row":
                number = at["row"] + 1
                if "r" in attrs:
                    try:
                        number = int(attrs["r"])
                    except ValueError:
                        raise FileProblem(_DAMAGED) from None
                if number <= at["row"]:
                    raise FileProblem(_DAMAGED)  # rows out of order: not written by a program
                if number > limits.max_rows + 1:
                    refuse_row(number)
                at["row"], at["column"] = number, 0
                row.clear()
            elif tag == "c":
                column = at["column"] + 1
                ref = attrs.get("r")
                if ref:
                    match = _CELL_REF.fullmatch(ref)
                    if match is None:
                        raise FileProblem(_DAMAGED)
                    column = _column_index(match[1])
                    if match[2] and int(match[2]) > limits.max_rows + 1:
                        refuse_row(int(match[2]))
                at["column"] = column
                at["cells"] += 1
                if at["cells"] > limits.max_cells:
                    raise FileProblem(
                        f"row {_count(at['row'])}: the file has more than {_count(limits.max_cells)} "
                        "cells, the most an import takes"
                    )
                cell.clear()
                cell.update(type=attrs.get("t", "n"), style=attrs.get("s", "0"), column=column)
                parts.clear()
                at["chars"] = 0
            elif tag in ("v", "t") and cell and not at["skip"]:
                at["text"] = True
                cell["has"] = True
            elif tag == "rPh":
                at["skip"] += 1

        def end(tag: str) -> None:
            tag = _LOCAL.get(tag) or _local(tag)
            if tag in ("v", "t"):
                at["text"] = False
            elif tag == "rPh":
                at["skip"] -= 1
            elif tag == "c":
                value = self.value(cell, "".join(parts), strings, dates, epoch,
                                   from_excel, from_ISO8601) if cell.get("has") else None
                if value is not None:
                    if cell["column"] > limits.max_columns:
                        raise FileProblem(
                            f"cell {_column_label(cell['column'])}{at['row']}: the file has more "
                            f"than {_count(limits.max_columns)} columns, the most an import takes"
                        )
                    row[cell["column"]] = value
                cell.clear()
            elif tag == "row":
                if row:
                    width = max(row)
                    rows.append((at["row"], [row.get(c) for c in range(1, width + 1)]))
                row.clear()

        def text(data: str) -> None:
            if at["text"]:
                parts.append(data)
                at["chars"] += len(data)
                if at["chars"] > limits.max_row_chars:
                    raise FileProblem(self._long_text(
                        f"cell {_column_label(cell['column'])}{at['row']}"))

        self.parse(path, start, end, text, raw=True)
        return rows

    @staticmethod
    def value(cell: dict[str, Any], raw: str, strings: list[str], dates: set[int],
              epoch: Any, from_excel: Any, from_iso: Any) -> Any:
        kind = cell["type"]
        try:
            if not raw and kind not in ("inlineStr", "str"):
                return None
            if kind == "s":
                return strings[int(raw)]
            if kind in ("inlineStr", "str", "e"):
                return raw
            if kind == "b":
                return bool(int(raw))
            if kind == "d":
                return from_iso(raw)
            number = float(raw) if any(ch in raw for ch in ".eE") else int(raw)
            if ascii_number(cell["style"]) and int(cell["style"]) in dates:
                with contextlib.suppress(ValueError, OverflowError):
                    return from_excel(number, epoch)
            return number
        except (ValueError, IndexError, OverflowError):
            raise FileProblem(_DAMAGED) from None


_LOCAL: dict[str, str] = {}


def _local(name: str) -> str:
    """'x:c' -> 'c' (remembered: a sheet repeats a handful of names a million times)."""
    short = name.rpartition(":")[2]
    if len(_LOCAL) < 1_000:  # a hostile file cannot grow it without bound
        _LOCAL[name] = short
    return short


_CELL_REF = re.compile(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})?")


def _column_index(letters: str) -> int:
    """'A' -> 1, 'XFD' -> 16384."""
    index = 0
    for letter in letters.upper():
        index = index * 26 + ord(letter) - ord("A") + 1
    return index


def _read_xlsx(data: bytes, limits: ImportLimits) -> tablib.Dataset:
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        raise FileProblem(
            "cannot be opened as an Excel workbook: this is an old .xls file or a "
            "password-protected workbook; save it as .xlsx without a password"
        )
    try:
        title, n_sheets, numbered = _Workbook(data, limits).read()
    except FileProblem:
        raise
    except (zipfile.BadZipFile, xml.parsers.expat.ExpatError, EOFError, OSError, ValueError,
            NotImplementedError, RuntimeError, KeyError, zlib.error):
        # damaged data, a broken zip stream, an unsupported compression or an encrypted member
        raise FileProblem(_DAMAGED) from None

    def blank(value: Any) -> bool:
        return value is None or (isinstance(value, str) and not value.strip())

    numbered = [(n, row) for n, row in numbered if not all(blank(v) for v in row)]
    if not numbered:
        raise FileProblem(f"the sheet “{title}” is empty")
    _n, header = numbered[0]
    width = max(len(row) for _n, row in numbered)
    rows = [row + [None] * (width - len(row)) for _n, row in numbered[1:]]
    header = header + [None] * (width - len(header))
    dataset = _dataset(["" if h is None else str(h) for h in header], rows)
    dataset.title = title
    notes = [f"Read the sheet “{title}” (the workbook has {n_sheets})."] if n_sheets > 1 else []
    return _annotate(dataset, encoding=None, delimiter=None, notes=notes)


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
            f"the file has more than {_count(limits.max_cells)} cells, the most an import takes"
        )
    items = 0

    def count(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal items
        items += 1
        if items > limits.max_rows:
            raise FileProblem(
                f"item {_count(items)}: the file has more than {_count(limits.max_rows)} rows, "
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
    return _dataset(headers, rows)


# --- shared ---------------------------------------------------------------------------------


def _column_label(index: int) -> str:
    """1 -> 'A', 27 -> 'AA' (spreadsheet column letters)."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _dataset(header: list[str], rows: list[list[Any]]) -> tablib.Dataset:
    """Check the header names and build the Dataset."""
    names = [str(name).strip() for name in header]

    def blank(value: Any) -> bool:
        return value is None or (isinstance(value, str) and not value.strip())

    keep: list[int] = []
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        where = f"column {index + 1} ({_column_label(index + 1)})"
        if not name:
            if any(not blank(row[index]) for row in rows if index < len(row)):
                raise FileProblem(f"{where} holds values but has no name in the header row")
            continue  # an empty column without a name (trailing delimiters): drop it
        if name in seen:
            first = seen[name]
            raise FileProblem(
                f"the column name “{name}” appears twice in the header row "
                f"(columns {first + 1} and {index + 1})"
            )
        seen[name] = index
        keep.append(index)
    if not keep:
        raise FileProblem("the header row has no column names")
    dataset = tablib.Dataset(headers=[names[i] for i in keep])
    for row in rows:
        dataset.append([row[i] for i in keep])
    return dataset


# --- which content --------------------------------------------------------------------------

_TYPE_NAME_LIST: tuple[tuple[type[Content], tuple[str, ...]], ...] = (
    (ConceptCard, ("concepts", "concept_cards", "concept_card", "conceptcard", "concept")),
    (SymbolTile, ("symbol_tiles", "symbol_tile", "symboltile", "tiles")),
    (SignSymbol, ("sign_symbols", "sign_symbol", "signsymbol")),
    (SignColour, ("sign_colours", "sign_colour", "signcolour", "sign_colors", "sign_color")),
    (SignCard, ("sign_cards", "sign_card", "signcard")),
    (Slogan, ("slogans", "slogan")),
    (AlfonsCard, ("alfons_cards", "alfons_card", "alfonscard", "alfons", "spiesser_alfons_cards")),
    (
        SauschwerObject,
        ("objects", "sauschwer_objects", "sauschwer_object", "sauschwerobject", "sauschwer"),
    ),
    (BrandOwnership, ("brands", "brand_owners", "brand_owner", "brandownership"),),  # type: ignore[list-item]
)
#: Names a file, a sheet or a ``type_hint`` may use for a content type (after normalising).
TYPE_NAMES: dict[str, type[Content]] = {
    name: model for model, names in _TYPE_NAME_LIST for name in names
}
#: The canonical name of each content type (its catalogue file name).
TYPE_LABELS: dict[type[Content], str] = {model: names[0] for model, names in _TYPE_NAME_LIST}

_OPTIONS = ("option_1", "option_2", "option_3", "option_4")

#: Content type -> (required columns, columns that may be left out).
COLUMNS: dict[type[Content], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ConceptCard: (("key", "text"), ()),
    SymbolTile: (
        ("key", "name", "icon", "is_extra", "position"),
        ("picture", "image_source", "image_licence"),
    ),
    SignSymbol: (("key", "name", "icon", "position"), ()),
    SignColour: (("key", "name", "hex", "mark", "position"), ()),
    SignCard: (("key", "symbol", "colour"), ()),
    Slogan: (("card", "side", "key", "text", *_OPTIONS, "correct"), ("keep_german", "markets", "source")),
    AlfonsCard: (("key", "text", "effect", "amount", "target"), ()),
    SauschwerObject: (("key", "name", "weight_g", "source"), ()),
    # the Slogan option checks' owner table (cards/brands.py), matched on brand and since
    BrandOwnership: (("brand", "group", "since", "until", "source"), ()),  # type: ignore[dict-item]
}
TRANSLATION_COLUMNS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("key", "field", "language", "text"),
    ("state",),
)


@dataclass(frozen=True)
class FileKind:
    """What a file holds: rows of ``model``, or (``translations``) translations of its texts."""

    model: type[Content]
    translations: bool = False

    @property
    def label(self) -> str:
        name = self.model._meta.verbose_name_plural
        return f"translations of {name}" if self.translations else str(name)

    def resource_class(self) -> type:
        """The django-import-export resource that imports this file."""
        from cards.resources import RESOURCES, translation_resource_for

        if self.model is BrandOwnership:
            from cards.brand_files import BrandOwnershipResource

            return BrandOwnershipResource
        return translation_resource_for(self.model) if self.translations else RESOURCES[self.model]


def normalise_type_name(name: str) -> str:
    """'Sauschwer Objects' / 'sauschwer-objects' / 'SauschwerObject' -> comparable form."""
    folded = name.strip().lower()
    for umlaut, ascii_form in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        folded = folded.replace(umlaut, ascii_form)
    return re.sub(r"[^a-z0-9]+", "_", folded).strip("_")


def type_from_name(name: str) -> type[Content] | None:
    """The content type a file, sheet or hint name stands for (``None`` when none)."""
    words = [w for w in normalise_type_name(name).split("_") if w]
    for length in range(len(words), 0, -1):
        for part in (words[:length], words[-length:]):
            model = TYPE_NAMES.get("_".join(part))
            if model is not None:
                return model
    return None


def _translatable_labels() -> list[str]:
    return [label for model, label in TYPE_LABELS.items() if model.TRANSLATABLE_FIELDS]


def _hint_model(type_hint: str | type[Content]) -> type[Content]:
    if isinstance(type_hint, type):
        if type_hint in COLUMNS:
            return type_hint
        raise FileProblem(f"{type_hint.__name__} is not a content type that files hold")
    model = TYPE_NAMES.get(normalise_type_name(type_hint))
    if model is None:
        raise FileProblem(
            f"unknown content type “{type_hint}”; use one of: {', '.join(TYPE_LABELS.values())}"
        )
    return model


def _names(columns: list[str] | tuple[str, ...] | set[str]) -> str:
    return ", ".join(columns)


def _misfit(
    headers: list[str], required: tuple[str, ...], optional: tuple[str, ...]
) -> tuple[list[str], list[str]]:
    """(missing required columns, unknown columns) of a header against a column set."""
    allowed = set(required) | set(optional)
    missing = [c for c in required if c not in headers]
    unknown = [h for h in headers if h not in allowed]
    return missing, unknown


def _misfit_message(
    what: str, headers: list[str], required: tuple[str, ...], optional: tuple[str, ...]
) -> str:
    missing, unknown = _misfit(headers, required, optional)
    allowed = set(required) | set(optional)
    parts = []
    if missing:
        parts.append(f"missing {'column' if len(missing) == 1 else 'columns'}: {_names(missing)}")
    if unknown:
        shown = []
        for name in unknown:
            near = normalise_type_name(name)
            shown.append(f"{name} (write it as {near})" if near in allowed and near != name else name)
        parts.append(f"unknown {'column' if len(unknown) == 1 else 'columns'}: {_names(shown)}")
    optional_note = f"; optional: {_names(optional)}" if optional else ""
    return (
        f"{what}: " + "; ".join(parts)
        + f" (the columns are: {_names(required)}{optional_note})"
    )


def file_kind(
    dataset: tablib.Dataset, filename: str, *, type_hint: str | type[Content] | None = None
) -> FileKind:
    """What ``dataset`` (read from ``filename``) holds; see the module docstring."""
    headers = [str(h).strip() for h in (dataset.headers or [])]
    if not headers:
        raise FileProblem("the file has no header row with column names")
    hinted = _hint_model(type_hint) if type_hint is not None else None
    sheet = getattr(dataset, "title", None) if Path(filename).suffix.lower() == ".xlsx" else None
    named_by, named = None, None
    sources = ((f"the sheet name “{sheet}”", sheet), (f"the file name “{filename}”", Path(filename).stem))
    for source, name in sources:
        model = type_from_name(name) if name else None
        if model is not None:
            named_by, named = source, model
            break

    t_required, t_optional = TRANSLATION_COLUMNS
    if not any(_misfit(headers, t_required, t_optional)):
        model = hinted or named
        if model is None:
            raise FileProblem(
                "this is a translation file, but it does not say which content type it "
                "translates: name the file (or the sheet) after the type, like concepts.csv, "
                f"or choose the type (one of: {', '.join(_translatable_labels())})"
            )
        if not model.TRANSLATABLE_FIELDS:
            raise FileProblem(f"{model._meta.verbose_name_plural} have no texts to translate")
        return FileKind(model, translations=True)

    if hinted is not None:
        required, optional = COLUMNS[hinted]
        if any(_misfit(headers, required, optional)):
            raise FileProblem(
                _misfit_message(
                    f"the columns do not fit {hinted._meta.verbose_name_plural}",
                    headers,
                    required,
                    optional,
                )
            )
        return FileKind(hinted)

    fits = [m for m, (req, opt) in COLUMNS.items() if not any(_misfit(headers, req, opt))]
    if len(fits) == 1:
        return FileKind(fits[0])
    if len(fits) > 1:  # cannot happen with the column sets above; kept for safety
        raise FileProblem(
            "the columns fit several content types ("
            + ", ".join(TYPE_LABELS[m] for m in fits)
            + "); name the type in the file name, like concepts.csv"
        )
    candidates: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
        str(m._meta.verbose_name_plural): columns for m, columns in COLUMNS.items()
    }
    candidates["translations"] = TRANSLATION_COLUMNS

    def distance(columns: tuple[tuple[str, ...], tuple[str, ...]]) -> tuple[int, int]:
        missing, unknown = _misfit(headers, *columns)
        return (len(missing) + len(unknown), len(missing))

    closest = min(candidates, key=lambda what: distance(candidates[what]))
    if named is not None and distance(COLUMNS[named])[0] <= distance(candidates[closest])[0]:
        raise FileProblem(
            _misfit_message(
                f"the columns do not fit {named._meta.verbose_name_plural}, "
                f"which {named_by} suggests",
                headers,
                *COLUMNS[named],
            )
        )
    partial = sorted(
        (
            (missing, m)
            for m, (req, opt) in COLUMNS.items()
            for missing, unknown in [_misfit(headers, req, opt)]
            if not unknown
        ),
        key=lambda pair: len(pair[0]),
    )
    if partial:
        # Every column is known, but some are missing: say what each fitting type still needs.
        needs = "; ".join(
            f"{m._meta.verbose_name_plural} also need {_names(missing)}" for missing, m in partial[:3]
        )
        raise FileProblem(
            "columns are missing: a file must have all the columns of its content type; " + needs
        )
    raise FileProblem(
        _misfit_message(
            f"the columns do not match any content type; the closest are those of {closest}",
            headers,
            *candidates[closest],
        )
    )


def content_type_of(
    dataset: tablib.Dataset, filename: str, *, type_hint: str | type[Content] | None = None
) -> type[Content]:
    """The content type of the rows in ``dataset``, or of the texts a translation file
    translates; :func:`file_kind` also says which of the two it is."""
    return file_kind(dataset, filename, type_hint=type_hint).model
