"""What the deck's drawing modules share: colours from the layouts' hex codes, the games' titles,
how many problems a report page lists."""

from __future__ import annotations

from functools import lru_cache

from reportlab.lib.colors import Color, HexColor

GAME_TITLES = {"symbols": "Sag's mit Symbolen", "sign": "Sign", "slogan": "Slogan",
               "sauschwer": "Sauschwer"}
MAX_LISTED = 40
MM = 72 / 25.4  # points in a millimetre
PICTURE_DPI = 300  # the least resolution a printed picture should have


@lru_cache(maxsize=256)
def colour(hex_: str, tint: float = 1.0) -> Color:
    """A layout's colour ("#rrggbb"), lightened towards white by ``tint`` below 1."""
    base = HexColor(hex_)
    if tint >= 1:
        return base
    return Color(1 - (1 - base.red) * tint, 1 - (1 - base.green) * tint, 1 - (1 - base.blue) * tint)
