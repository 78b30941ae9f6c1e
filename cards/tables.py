"""The common ground of the file readers (cards/files.py, cards/workbooks.py): the import limits,
the problem a curator reads (:class:`FileProblem`), and a checked table from a header and rows.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import tablib

DEFAULT_MAX_BYTES = 20 * 1024 * 1024

MB = 1024 * 1024


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
    max_unzipped_bytes: int = 100 * MB  # what an XLSX unpacks to, all its parts together

    @classmethod
    def from_settings(cls, **overrides: int) -> ImportLimits:
        from django.conf import settings

        values = {
            f.name: getattr(settings, f"KARTOTHEK_IMPORT_{f.name.upper()}", f.default)
            for f in fields(cls)
        }
        return cls(**{**values, **overrides})


def count_text(number: int) -> str:
    return f"{number:,}"


class FileProblem(ValueError):
    """A file that cannot be read or placed; the message is meant for the curator."""


def size_text(n: int, spec: str) -> str:
    if n >= MB:
        return f"{n / MB:{spec}} MB"
    return f"{n / 1024:{spec}} KB"


def annotated(
    dataset: tablib.Dataset, *, encoding: str | None, delimiter: str | None, notes: list[str]
) -> tablib.Dataset:
    dataset.kartothek_encoding = encoding
    dataset.kartothek_delimiter = delimiter
    dataset.kartothek_notes = notes
    return dataset


# --- shared ---------------------------------------------------------------------------------


def column_label(index: int) -> str:
    """1 -> 'A', 27 -> 'AA' (spreadsheet column letters)."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _refuse_nul(names: list[str], rows: list[list[Any]], keep: list[int],
                row_names: list[str] | None) -> None:
    """A NUL character cannot be stored (PostgreSQL refuses it in text): name its cell."""
    for index in keep:
        if "\x00" in names[index]:
            raise FileProblem(f"the header row, column {index + 1}: the name holds a NUL "
                              "character (U+0000); remove it")
    for number, row in enumerate(rows):
        for index in keep:
            value = row[index] if index < len(row) else None
            if isinstance(value, str) and "\x00" in value:
                where = row_names[number] if row_names else f"row {number + 2}"
                raise FileProblem(f"{where}, column “{names[index]}”: the cell holds a NUL "
                                  "character (U+0000), which cannot be stored; remove it")


def dataset_of(header: list[str], rows: list[list[Any]],
               row_names: list[str] | None = None) -> tablib.Dataset:
    """Check the header names and the cells, and build the Dataset. ``row_names``: how the
    file names each row ("row 7", "item 3"); by default a spreadsheet's (header = row 1)."""
    names = [str(name).strip() for name in header]

    def blank(value: Any) -> bool:
        return value is None or (isinstance(value, str) and not value.strip())

    keep: list[int] = []
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        where = f"column {index + 1} ({column_label(index + 1)})"
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
    _refuse_nul(names, rows, keep, row_names)
    dataset = tablib.Dataset(headers=[names[i] for i in keep])
    for row in rows:
        dataset.append([row[i] for i in keep])
    return dataset
