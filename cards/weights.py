"""Weights as people read and type them: grams, kilograms or tonnes, in German or English
number formats. Stored as whole grams; the admin form and the spreadsheet import read a weight
with :func:`parse_weight`, so "55kg" is 55,000 g everywhere."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

_SEPARATORS = {"de": (".", ","), "en": (",", ".")}


def _number(value: float, decimals: int, language: str) -> str:
    thousands, decimal = _SEPARATORS.get(language, _SEPARATORS["en"])
    text = f"{value:,.{decimals}f}"
    if decimals:
        text = text.rstrip("0").rstrip(".")
    return text.replace(",", "\x00").replace(".", decimal).replace("\x00", thousands)


def format_weight(grams: int, language: str = "de") -> str:
    """850 g, 1,2 kg, 10.100 t (German) or 850 g, 1.2 kg, 10,100 t (English)."""
    if grams < 1000:
        return f"{_number(grams, 0, language)} g"
    if grams < 1_000_000:
        kilos = grams / 1000
        return f"{_number(kilos, 0 if kilos >= 100 else 1, language)} kg"
    tonnes = grams / 1_000_000
    return f"{_number(tonnes, 0 if tonnes >= 100 else 1, language)} t"


# --- reading a weight as a curator types it ----------------------------------------------

#: Grams per unit, by every spelling the reader accepts (lowercase).
UNITS: dict[str, int] = {
    "g": 1, "gr": 1, "gramm": 1, "gram": 1, "grams": 1, "gramme": 1,
    "kg": 1000, "kilo": 1000, "kilos": 1000, "kilogramm": 1000, "kilogram": 1000,
    "kilograms": 1000,
    "t": 1_000_000, "tonne": 1_000_000, "tonnen": 1_000_000, "tonnes": 1_000_000,
    "ton": 1_000_000, "tons": 1_000_000,
}
#: The largest weight a database column (signed 64-bit) holds, in grams.
MAX_GRAMS = 2**63 - 1

WEIGHT_HELP = (
    "A number with its unit: g, kg or t (“55 kg”, “55kg”, “0,5 t”, “1.234,5 kg”, "
    "“1,234.5 kg”). A plain number is grams. German and English number formats both work; "
    "where a number reads both ways (“1,234 kg”, “1.234 kg”) the German reading wins: "
    "the comma is the decimal point, the dot groups thousands. Kept in whole grams."
)

_WEIGHT = re.compile(r"(?P<sign>[-+−–]?)\s*(?P<number>[0-9][0-9.,' _\u00a0\u202f]*)?\s*(?P<unit>\S*)")


class WeightError(ValueError):
    """A weight that cannot be read or is not a weight; the message says which rule."""


def _grouped(digits: str, separator: str) -> bool:
    pattern = re.compile(rf"[0-9]{{1,3}}(?:{re.escape(separator)}[0-9]{{3}})+")
    return pattern.fullmatch(digits) is not None


def _read_number(text: str, shown: str) -> Decimal:
    """A number in German (1.234,5) or English (1,234.5) format; German where both fit."""
    number = re.sub(r"[ _'\u00a0\u202f]", "", text)
    commas, dots = number.count(","), number.count(".")
    if commas and dots:
        decimal = "," if number.rfind(",") > number.rfind(".") else "."
        group = "." if decimal == "," else ","
        whole, _, fraction = number.rpartition(decimal)
        if number.count(decimal) != 1 or not _grouped(whole, group):
            raise WeightError(f"“{shown}” is not a number one can read: write e.g. 1.234,5 kg "
                              "or 1,234.5 kg.")
        number = whole.replace(group, "") + "." + fraction
    elif commas:
        if commas > 1:  # 1,234,567: English thousands
            if not _grouped(number, ","):
                raise WeightError(f"“{shown}” is not a number one can read.")
            number = number.replace(",", "")
        else:  # German decimal comma (0,5 t; 1,234 kg is 1.234 kg)
            number = number.replace(",", ".")
    elif dots:
        if _grouped(number, "."):  # German thousands (1.234 g, 1.234.567 g)
            number = number.replace(".", "")
        elif dots > 1:
            raise WeightError(f"“{shown}” is not a number one can read.")
        # else an English decimal point (1.5 kg)
    try:
        return Decimal(number)
    except InvalidOperation:
        raise WeightError(f"“{shown}” is not a number one can read.") from None


def parse_weight(value: object) -> int:
    """Whole grams from what a curator typed or a spreadsheet holds.

    ``55kg`` and ``55 kg`` are 55,000 g, ``0,5 t`` 500,000 g, ``1.234,5 kg`` and
    ``1,234.5 kg`` 1,234,500 g; a plain number (or a spreadsheet's number cell) is grams.
    Each broken rule has its own message: negative, zero, unreadable, unknown unit, not whole
    grams, too heavy."""
    if isinstance(value, bool):
        raise WeightError(f"“{value}” is not a weight: write a number of grams, or one with "
                          "its unit (55 kg).")
    if isinstance(value, (int, float, Decimal)):
        shown = str(value)
        amount, factor, negative = Decimal(str(value)), 1, value < 0
        amount = abs(amount)
    else:
        shown = "" if value is None else str(value).strip()
        if not shown:
            raise WeightError("Enter a weight, e.g. 180 g, 55 kg or 0,5 t.")
        if len(shown) > 60:  # no weight is this long; quote only its start
            raise WeightError(f"“{shown[:40]}…” is not a weight: write a number with g, kg "
                              "or t, e.g. 180 g, 55 kg or 0,5 t.")
        match = _WEIGHT.fullmatch(shown)
        if match is None or match["number"] is None:
            raise WeightError(f"“{shown}” is not a weight: write a number with g, kg or t, "
                              "e.g. 180 g, 55 kg or 0,5 t.")
        unit = match["unit"].lower().rstrip(".")
        if unit and unit not in UNITS:
            raise WeightError(f"“{match['unit']}” in “{shown}” is not a unit this game knows: "
                              "use g, kg or t.")
        factor = UNITS[unit] if unit else 1
        negative = match["sign"] in ("-", "−", "–")
        amount = _read_number(match["number"].strip(), shown)
    if negative and amount != 0:
        raise WeightError(f"A weight cannot be negative (“{shown}”): nothing weighs less "
                          "than nothing.")
    grams = amount * factor
    if grams == 0:
        raise WeightError(f"“{shown}” weighs nothing: an object weighs at least 1 g.")
    if grams != grams.to_integral_value():
        raise WeightError(f"“{shown}” is not a whole number of grams: weights are kept in "
                          "whole grams (at least 1 g).")
    if grams > MAX_GRAMS:
        raise WeightError(f"“{shown}” is heavier than any weight this game can keep "
                          f"({format_weight(MAX_GRAMS)}).")
    return int(grams)


def show_weight(grams: int) -> str:
    """The exact weight in the largest unit that needs at most two decimals, German format,
    read back by :func:`parse_weight` as the same grams: 180 g, 2,25 kg, 1.234,5 kg, 10.100 t
    (1,234 kg would need three decimals: 1.234 g)."""
    for unit, factor in (("t", 1_000_000), ("kg", 1000)):
        whole, rest = divmod(grams, factor)
        fraction = f"{rest:0{len(str(factor)) - 1}d}".rstrip("0")
        if whole >= 1 and len(fraction) <= 2:
            number = _number(whole, 0, "de") + (f",{fraction}" if fraction else "")
            return f"{number} {unit}"
    return f"{_number(grams, 0, 'de')} g"


class WeightField(forms.CharField):
    """A form field for whole grams that takes a weight with its unit and shows it back in the
    best unit (:func:`show_weight`)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("help_text", WEIGHT_HELP)
        kwargs.setdefault("widget", forms.TextInput(attrs={"maxlength": 40, "size": 16,
                                                           "inputmode": "decimal"}))
        super().__init__(**kwargs)  # no max_length: its validator would see the grams (int)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return show_weight(value)
        return value

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        try:
            return parse_weight(text)
        except WeightError as exc:
            raise ValidationError(str(exc), code="weight") from None

    def has_changed(self, initial: Any, data: Any) -> bool:
        try:
            return initial != (parse_weight(data) if data not in self.empty_values else None)
        except WeightError:
            return True
