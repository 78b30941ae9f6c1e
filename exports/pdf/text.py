"""Fitting text into a box: wrap at spaces, then shrink down to a minimum size.

Widths come from the font's advance table at 1 pt and scale linearly, so trying another size
costs arithmetic only. Text that does not fit even at the minimum size is cut with “…” and
reported; it never runs out of its box.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from exports.pdf.fonts import Font

ELLIPSIS = "…"
STEP = 0.5  # pt between the sizes tried
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000]+")


@dataclass(frozen=True, slots=True)
class Fitted:
    lines: tuple[str, ...]
    widths: tuple[float, ...]  # of each line, in pt at ``size``
    size: float
    leading: float             # pt from baseline to baseline
    truncated: bool


_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> list[str]:
    """Paragraphs of ``text`` in NFC, runs of spaces collapsed, control characters dropped."""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text.replace("\t", " "))
    if "\n" not in text:
        return [_SPACES.sub(" ", text).strip()]
    return [_SPACES.sub(" ", p).strip() for p in text.split("\n")]


def _break_word(word: str, font: Font, limit: float) -> list[str]:
    """A word wider than the line, in pieces that fit (no hyphen: keys, URLs, numbers)."""
    pieces, current, width = [], "", 0.0
    for char in word:
        w = font.widths.get(char, 0.5)
        if current and width + w > limit:
            pieces.append(current)
            current, width = "", 0.0
        current += char
        width += w
    if current:
        pieces.append(current)
    return pieces


# A line may also break after the hyphen inside a compound ("crawler-|transporter",
# "Bermuda-|Dreieck"), but not after a leading minus ("-3").
_AFTER_HYPHEN = re.compile(r"(?<=[^\W\d_][-\u2010])(?=\w)")


def _measured(paragraphs: list[str], font: Font) -> list[list[tuple[str, float, bool]]]:
    """Per paragraph: (piece, width at 1 pt, joins the previous piece without a space)."""
    result = []
    for paragraph in paragraphs:
        pieces: list[tuple[str, float, bool]] = []
        for word in paragraph.split(" "):
            for index, part in enumerate(_AFTER_HYPHEN.split(word)):
                pieces.append((part, font.width(part), index > 0))
        result.append(pieces)
    return result


def wrap(paragraphs: list[str], font: Font, limit: float,
         broken: list[str] | None = None, *,
         measured: list[list[tuple[str, float, bool]]] | None = None,
         ) -> tuple[list[str], list[float]]:
    """Greedy line breaking at spaces and after hyphens in compounds; ``limit`` and the
    returned widths are at 1 pt.

    Words wider than a line are split (and listed in ``broken`` when given).
    """
    space = font.widths.get(" ", 0.3)
    lines: list[str] = []
    widths: list[float] = []
    for words in measured if measured is not None else _measured(paragraphs, font):
        line, line_width = "", 0.0
        for word, w, joined in words:
            if w > limit:
                pieces = [(piece, font.width(piece)) for piece in _break_word(word, font, limit)]
                if broken is not None:
                    broken.append(word)
            else:
                pieces = [(word, w)]
            for number, (piece, pw) in enumerate(pieces):
                gap = 0.0 if (joined and number == 0) or number > 0 else space
                if not line:
                    line, line_width = piece, pw
                elif line_width + gap + pw <= limit:
                    line += (" " if gap else "") + piece
                    line_width += gap + pw
                else:
                    lines.append(line)
                    widths.append(line_width)
                    line, line_width = piece, pw
        lines.append(line)
        widths.append(line_width)
    return lines, widths


def fit(text: str, font: Font, width: float, height: float, size: float, min_size: float,
        *, leading: float = 1.18, max_lines: int | None = None) -> Fitted:
    """The largest size from ``size`` down to ``min_size`` at which ``text`` fits the box (pt)."""
    paragraphs = clean(text)
    if len(paragraphs) == 1:
        one = font.width(paragraphs[0])
        if one * size <= width and size * (font.ascent - font.descent) <= height:
            return Fitted((paragraphs[0],), (one * size,), size, size * leading, False)
    measured = _measured(paragraphs, font)
    # No size above the one at which the widest word fits is worth trying (words are split
    # only at the smallest size); steps stay on the grid size, size - STEP, …
    widest = max((w for words in measured for _, w, _joined in words), default=0.0)
    current = size
    if widest * size > width:
        steps = math.ceil((size - width / widest) / STEP)
        current = max(min_size, size - steps * STEP)
    while True:
        limit = width / current
        broken: list[str] = []
        lines, widths = wrap(paragraphs, font, limit, broken, measured=measured)
        rows_fit = max(1, int((height - current * (font.ascent - font.descent)) // (current * leading)) + 1)
        if max_lines is not None:
            rows_fit = min(rows_fit, max_lines)
        fits = len(lines) <= rows_fit and current * (font.ascent - font.descent) <= height
        if fits and (not broken or current <= min_size):
            return Fitted(tuple(lines), tuple(w * current for w in widths), current,
                          current * leading, False)
        if current <= min_size:
            break
        current = max(min_size, current - STEP)
    # Does not fit even at the smallest size: keep what fits and end with an ellipsis.
    kept = lines[:rows_fit]
    last = kept[-1]
    ell = font.widths.get(ELLIPSIS, 1.0)
    while last and font.width(last) + ell > limit:
        last = last[:-1]
    kept[-1] = last.rstrip() + ELLIPSIS
    return Fitted(tuple(kept), tuple(font.width(line) * current for line in kept), current,
                  current * leading, True)
