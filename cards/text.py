"""Text helpers shared by models, imports and checks: keys, normalised comparison, clean text.

Two texts that *look* the same are the same card: comparison folds case, accents,
punctuation, and letters of other alphabets that look like Latin ones (a Cyrillic “О” is an
“O”). A text that would print differently from how it reads in the admin is refused:
invisible or formatting characters, line and paragraph separators, blank-looking fillers,
private-use and unassigned code points, and words that mix Latin with Cyrillic or Greek.
"""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator

KEY_MAX_LENGTH = 60
KEY_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z"

_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_GERMAN_FOLDS = (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss"))  # ẞ lowercases to ß

validate_key = RegexValidator(
    KEY_PATTERN,
    message=(
        "A key is lowercase ASCII letters and digits in words joined by single hyphens "
        "(like 'bermuda-dreieck')."
    ),
)

# Cyrillic and Greek letters that print like a Latin letter (after Unicode's confusables
# list, restricted to the two alphabets a German or English keyboard user meets).
_LOOK_ALIKES = str.maketrans({
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "І": "I", "Ј": "J", "Ѕ": "S",
    "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i",
    "ј": "j", "ѕ": "s", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "υ": "u",
})

# Characters that show nothing (or nothing one can see to be there) yet are letters or
# marks by category: Hangul fillers make a card look blank; the others hide inside words.
_BLANK_LOOKING = frozenset(
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers (category Lo)
    "\u034f"                    # combining grapheme joiner
    "\u2800"                    # braille pattern blank
    "\u180b\u180c\u180d\u180f"  # Mongolian variation selectors
) | frozenset(chr(c) for c in range(0xFE00, 0xFE10))  # variation selectors 1-16
# Control, format, surrogate, private use, unassigned; line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_MIXABLE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")
_WORD = re.compile(r"\w+")


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
    'Oma', ' oma ' and 'OMA!' are the same card, and so is 'Оma' with a Cyrillic 'О'.
    """
    if text.isascii():
        return " ".join(_NOT_ALNUM.sub(" ", text.lower()).split())
    folded = unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES).casefold()
    for umlaut, ascii_form in _GERMAN_FOLDS:
        folded = folded.replace(umlaut, ascii_form)
    folded = unicodedata.normalize("NFKD", folded)
    kept = "".join(
        ch if unicodedata.category(ch)[0] in "LN" and ch not in _BLANK_LOOKING else " "
        for ch in folded
        if not unicodedata.combining(ch)
    )
    return " ".join(kept.split())


_UNNAMED = {"Co": "private use", "Cn": "unassigned", "Cs": "surrogate"}


def _describe(ch: str) -> str:
    name = unicodedata.name(ch, "") or _UNNAMED.get(unicodedata.category(ch), "control")
    return f"U+{ord(ch):04X}: {name.lower()}"


def hidden_characters(value: str) -> list[str]:
    """The characters of a text that cannot be seen or would print as something else."""
    return [
        ch for ch in value
        if unicodedata.category(ch) in _REFUSED_CATEGORIES or ch in _BLANK_LOOKING
    ]


def mixed_script_words(value: str) -> list[tuple[str, list[str]]]:
    """Words that mix Latin with Cyrillic or Greek letters, with the scripts they mix."""
    found = []
    for word in _WORD.findall(value):
        if word.isascii():
            continue
        scripts = sorted({
            script for ch in word if ch.isalpha()
            for script in _MIXABLE_SCRIPTS if unicodedata.name(ch, "").startswith(script + " ")
        })
        if len(scripts) > 1:
            found.append((word, scripts))
    return found


def validate_clean_text(value: str) -> None:
    """Reject texts that would print, export or compare badly.

    Empty texts, spaces at either end, invisible characters (control and format characters
    such as zero-width joiners, line separators, blank-looking fillers, private-use and
    unassigned code points), and words spelt with look-alike letters of another alphabet.
    """
    if not value.strip():
        raise ValidationError("This text is empty.")
    if value != value.strip():
        raise ValidationError("Remove the spaces at the start or end of this text.")
    bad = sorted(set(hidden_characters(value)))
    if bad:
        codes = ", ".join(f"U+{ord(ch):04X}" for ch in bad)
        names = "; ".join(_describe(ch) for ch in bad)
        raise ValidationError(
            f"This text contains invisible control characters ({codes}). Remove them ({names})."
        )
    mixed = mixed_script_words(value)
    if mixed:
        word, scripts = mixed[0]
        raise ValidationError(
            f"The word “{word}” mixes {' and '.join(s.title() for s in scripts)} letters that "
            "look alike; type it in one alphabet."
        )


#: The most characters of a reason or note a person writes (a dismissal's reason, a glossary
#: note, a release's note): a paragraph, never a file pasted in by mistake.
REASON_MAX_CHARS = 2000


def reason_too_long(value: str, what: str = "reason") -> str | None:
    """The message for a reason or note longer than ``REASON_MAX_CHARS``; None if it fits."""
    if len(value) > REASON_MAX_CHARS:
        return (f"The {what} is {len(value):,} characters long; at most "
                f"{REASON_MAX_CHARS:,} are kept.")
    return None


def validate_reason_length(value: str) -> None:
    """The model and form validator of every free-text reason or note field."""
    problem = reason_too_long(value, "text")
    if problem:
        raise ValidationError(problem, code="max_length")


def ascii_number(text: str, max_digits: int = 18) -> bool:
    """True for a whole number written in ASCII digits (at most ``max_digits`` of them).

    ``str.isdigit()`` also accepts "²", "١" or "𝟗", which ``int()`` refuses or reads as another
    number: every number that comes from a request, a file or a header is checked with this."""
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()


def whole_number(text: object, max_digits: int = 9) -> int | None:
    """A number a request sends (a query or form value, a path part), or None when it is not a
    whole number in at most ``max_digits`` ASCII digits: "²", "-1", "1e3" and 5,000 digits
    (``int()`` raises on those, or makes a number no column holds) all come back None, for
    the caller's 400 or default."""
    text = "" if text is None else str(text).strip()
    return int(text) if ascii_number(text, max_digits) else None
