"""What a list cell shows of a long text: whole words, and URLs that may break anywhere."""

from __future__ import annotations

import re

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import Truncator

# A URL or a path: a token with a slash or a dot inside, too long to sit on one line of a
# narrow column. Such a token breaks anywhere (the list's CSS: .breakable); a word never does.
_LONG_TOKEN = re.compile(r"(\S*[/.]\S*)")
_LONG = 22


def cell_text(text: str, limit: int = 60) -> SafeString:
    """``text`` cut to ``limit`` characters, its long URLs and paths marked breakable."""
    short = Truncator(text).chars(limit)
    parts = _LONG_TOKEN.split(short)
    return format_html_join("", "{}", (
        (format_html('<span class="breakable">{}</span>', part)
         if index % 2 and len(part) > _LONG else part,)
        for index, part in enumerate(parts)
    ))
