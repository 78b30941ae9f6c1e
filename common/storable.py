"""Text from outside made storable: what a receiver, a file or a peer sent, before it is saved.

PostgreSQL refuses a NUL character in a text column (SQLite keeps it), and no database
encodes a lone surrogate as UTF-8; either one fails the write, and a write that fails in a
worker leaves its row half done. ``storable_text`` replaces both with U+FFFD (so the reader
sees that something was there) and bounds the length to the column's.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable_text(value: object, max_chars: int) -> str:
    """``value`` as text a database column of ``max_chars`` characters takes: NULs and lone
    surrogates replaced, cut to ``max_chars`` (the cut marked with an ellipsis)."""
    text = _UNSTORABLE.sub(REPLACEMENT, str(value))
    if len(text) > max_chars:
        text = text[: max(0, max_chars - 1)] + "…"
    return text
