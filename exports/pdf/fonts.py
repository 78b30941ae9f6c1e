"""The TrueType fonts embedded in every deck, and which characters they can draw.

DejaVu Sans comes from Debian's ``fonts-dejavu-core`` (CI installs it). It covers Latin,
Greek and Cyrillic, „German quotes“, ẞ and the marks of the Sign colours (●▲■◆★✚▼♥).
A character a font lacks is an error that names the card, never an empty box.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

FONT_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/TTF"),
             Path("/usr/local/share/fonts/dejavu")]
FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf", "mono": "DejaVuSansMono.ttf"}


class FontMissing(RuntimeError):
    """The font files are not installed."""


@dataclass(frozen=True)
class Font:
    role: str            # regular, bold, mono
    name: str            # the name reportlab knows it by
    path: Path
    chars: frozenset[str]
    ascent: float        # per point of size
    descent: float       # per point of size, negative
    widths: dict[str, float]  # advance per point of size, by character

    def width(self, text: str) -> float:
        """Advance width of ``text`` at 1 pt (no kerning: reportlab does not kern either)."""
        widths = self.widths
        try:
            return sum(map(widths.__getitem__, text))
        except KeyError:
            return sum(widths.get(c, 0.5) for c in text)

    def missing(self, text: str) -> list[str]:
        """Characters of ``text`` this font cannot draw (spaces and line breaks aside)."""
        if self.chars.issuperset(text):
            return []
        return sorted({c for c in text if c not in self.chars and c not in "\n\t"})


def _font_dir() -> Path:
    configured = os.environ.get("KARTOTHEK_FONT_DIR")
    candidates = [Path(configured)] if configured else FONT_DIRS
    for folder in candidates:
        if all((folder / name).is_file() for name in FILES.values()):
            return folder
    raise FontMissing(
        "The DejaVu fonts are not installed (looked in "
        + ", ".join(str(d) for d in candidates)
        + "). Install Debian's fonts-dejavu-core (apt-get install fonts-dejavu-core) "
        "or point KARTOTHEK_FONT_DIR at a folder with DejaVuSans.ttf, DejaVuSans-Bold.ttf "
        "and DejaVuSansMono.ttf."
    )


@cache
def fonts() -> dict[str, Font]:
    """Register the fonts with reportlab once per process and describe them."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    folder = _font_dir()
    result = {}
    for role, filename in FILES.items():
        name = f"Kartothek-{role}"
        font = TTFont(name, str(folder / filename))
        pdfmetrics.registerFont(font)
        face = font.face
        scale = 1 / 1000
        chars = frozenset(chr(code) for code in face.charToGlyph if code >= 32)
        widths = {c: face.getCharWidth(ord(c)) * scale for c in chars}
        result[role] = Font(role, name, folder / filename, chars | {" "},
                            face.ascent * scale, face.descent * scale, widths)
    return result


RTL_CLASSES = {"R", "AL"}


def right_to_left(text: str) -> bool:
    """True when ``text`` has right-to-left letters (Hebrew, Arabic, …)."""
    if text.isascii():
        return False
    return any(unicodedata.bidirectional(c) in RTL_CLASSES for c in text)


def describe_chars(chars: list[str]) -> str:
    """'“★” (U+2605 BLACK STAR)' for each character, for error messages."""
    parts = []
    for c in chars[:5]:
        name = unicodedata.name(c, "unnamed character")
        parts.append(f"“{c}” (U+{ord(c):04X} {name})")
    more = f" and {len(chars) - 5} more" if len(chars) > 5 else ""
    return ", ".join(parts) + more
