"""Weights as people read them: grams, kilograms or tonnes, in the locale's number format."""

from __future__ import annotations

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
