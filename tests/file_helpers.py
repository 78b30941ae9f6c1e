"""Helpers of the file-reading tests: small workbooks and pictures, and the message a refused file gets."""

import io
from pathlib import Path

import openpyxl
import pytest
from PIL import Image

from cards.files import read_upload
from cards.tables import FileProblem

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
