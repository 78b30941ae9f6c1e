"""Helpers of the import-limit tests: a refused file's message, a CSV of n concept cards, the formats."""

from __future__ import annotations

from pathlib import Path

import pytest

from cards.files import read_upload
from cards.tables import FileProblem, ImportLimits

ROOT = Path(__file__).resolve().parent.parent
FORMAT = {"csv": "0", "xlsx": "1", "tsv": "2", "json": "3"}


def refusal(data: bytes, filename: str, **limits: int) -> str:
    with pytest.raises(FileProblem) as info:
        read_upload(data, filename, limits=ImportLimits(**limits) if limits else None)
    return str(info.value)


def concepts_csv(rows: int) -> bytes:
    return ("key,text\n" + "".join(f"k{n},Karte {n}\n" for n in range(rows))).encode()
