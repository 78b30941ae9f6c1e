"""Reading an uploaded .xlsx workbook: its active sheet as a stream of zip members and XML
(see :class:`_Workbook`), never through the sheet's stored dimension, within the import limits.
``cards.files.read_upload`` hands .xlsx files here.
"""

from __future__ import annotations

import contextlib
import io
import re
import xml.parsers.expat
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

import tablib

from cards.tables import (
    MB,
    FileProblem,
    ImportLimits,
    annotated,
    column_label,
    count_text,
    dataset_of,
    size_text,
)
from cards.text import ascii_number

# --- XLSX -----------------------------------------------------------------------------------


_DAMAGED = "cannot be opened as an Excel workbook: the file is damaged or not an .xlsx file"
_MAX_PARTS = 1_000  # zip members of a workbook; real ones have a few dozen
_MAX_SMALL_PART = 4 * MB  # workbook.xml, relationships: a few KB in real workbooks
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
            raise FileProblem(f"the workbook has more than {count_text(_MAX_PARTS)} parts; {_DAMAGED}")
        declared = sum(info.file_size for info in infos)
        if declared > limits.max_unzipped_bytes:
            raise FileProblem(self._too_big(declared))
        self.names = {info.filename for info in infos}

    def _too_big(self, size: int) -> str:
        return (
            f"the workbook unpacks to {size_text(size, '.1f')}, more than "
            f"{size_text(self.limits.max_unzipped_bytes, 'g')}, the most an import takes"
        )

    def _long_text(self, where: str) -> str:
        return (f"{where}: a text longer than {count_text(self.limits.max_row_chars)} characters, "
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
                        f"the workbook has more than {count_text(limit)} texts, the most an import takes"
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
                    raise FileProblem(self._long_text(f"text {count_text(len(strings) + 1)}"))

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
                f"row {count_text(number)}: the file has more than {count_text(limits.max_rows)} rows "
                "besides the header row, the most an import takes"
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
                        f"row {count_text(at['row'])}: the file has more than {count_text(limits.max_cells)} "
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
                            f"cell {column_label(cell['column'])}{at['row']}: the file has more "
                            f"than {count_text(limits.max_columns)} columns, the most an import takes"
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
                        f"cell {column_label(cell['column'])}{at['row']}"))

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


def read_xlsx(data: bytes, limits: ImportLimits) -> tablib.Dataset:
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
    dataset = dataset_of(["" if h is None else str(h) for h in header], rows,
                         [f"row {n}" for n, _row in numbered[1:]])
    dataset.title = title
    notes = [f"Read the sheet “{title}” (the workbook has {n_sheets})."] if n_sheets > 1 else []
    return annotated(dataset, encoding=None, delimiter=None, notes=notes)
