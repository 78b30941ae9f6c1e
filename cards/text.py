"""Text helpers shared by models, imports and checks: keys and normalised comparison."""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator

KEY_MAX_LENGTH = 60
KEY_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z"

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_GERMAN_FOLDS = (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss"), ("ẞ", "ss"))

validate_key = RegexValidator(
    KEY_PATTERN,
    message=(
        "A key is lowercase ASCII letters and digits in words joined by single hyphens "
        "(like 'bermuda-dreieck')."
    ),
)


def make_key(text: str, max_length: int = KEY_MAX_LENGTH) -> str:
    """The stable key of a German source text: 'Bermuda-Dreieck' -> 'bermuda-dreieck'."""
    slug = text.strip().lower()
    for umlaut, ascii_form in _GERMAN_FOLDS:
        slug = slug.replace(umlaut, ascii_form)
    slug = unicodedata.normalize("NFKD", slug).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", slug).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    if not slug:
        raise ValidationError(f"Cannot make a key from {text!r}: it has no letters or digits.")
    return slug


def normalise(text: str) -> str:
    """The form two texts are compared in to find duplicates.

    Case, accents, punctuation, quotes and spacing do not make two card texts different:
    'Oma', ' oma ' and 'OMA!' are the same card.
    """
    if text.isascii():
        return " ".join(_NOT_ALNUM.sub(" ", text.lower()).split())
    folded = unicodedata.normalize("NFKC", text).casefold()
    for umlaut, ascii_form in _GERMAN_FOLDS:
        folded = folded.replace(umlaut, ascii_form)
    folded = unicodedata.normalize("NFKD", folded)
    kept = "".join(
        ch if unicodedata.category(ch)[0] in "LN" else " "
        for ch in folded
        if not unicodedata.combining(ch)
    )
    return " ".join(kept.split())


def validate_clean_text(value: str) -> None:
    """Reject texts that would print or export badly: empty, control characters."""
    if not value.strip():
        raise ValidationError("This text is empty.")
    if value != value.strip():
        raise ValidationError("Remove the spaces at the start or end of this text.")
    bad = [ch for ch in value if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")
           and ch not in "\u00ad\u200d"]
    if bad:
        names = ", ".join(sorted({f"U+{ord(ch):04X}" for ch in bad}))
        raise ValidationError(f"This text contains invisible control characters ({names}).")
