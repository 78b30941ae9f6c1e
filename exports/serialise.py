"""Packs as bytes: canonical JSON (sorted keys, no whitespace, UTF-8), so the same content gives
the same bytes and the same sha256; gzip for the API's compressed answers.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from typing import Any

# --- serialisation ------------------------------------------------------------------------


def canonical(data: Any) -> bytes:
    """The one byte form of a JSON value: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def gzip_bytes(data: bytes) -> bytes:
    # mtime=0 keeps the compressed bytes deterministic too
    return gzip.compress(data, compresslevel=9, mtime=0)
