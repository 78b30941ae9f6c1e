"""File formats of the admin's import and export (django-import-export format classes).

Reading goes through :func:`cards.files.read_upload` (encodings, delimiters, size and damage
checks with messages a curator understands). Spreadsheet formats escape formulas on export
and undo the escape on import (:mod:`cards.formulas`), so a text that starts with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return never runs as a formula, and comes back intact.
"""

from __future__ import annotations

from typing import Any

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


#: Rows and error lines an import preview shows at most; the rest are counted.
PREVIEW_ROWS = 200


def preview_context(result: Any, limit: int = PREVIEW_ROWS) -> dict[str, Any]:
    """What the import page shows of a result: its errors, and the rows it would change first.

    A preview of every row grows with the file (20,000 rows made a 7 MB page); this keeps the
    page to ``limit`` rows and ``limit`` error lines, with counts of everything."""
    from cards.catalogue import describe_errors

    errors = describe_errors(result)
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
    }
