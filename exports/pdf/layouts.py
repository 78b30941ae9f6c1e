"""The card designs, as data in millimetres that the renderer walks.

Every box is ``(x, y, w, h)`` in mm on a 63 × 88 mm reference card, measured from the card's
top-left corner; its safe zone is 4 mm inside the trim. The renderer maps the reference
card onto the chosen size piece by piece (the 4 mm border onto the chosen safe zone, the
inside onto the inside), so a design fits poker, tarot and mini alike, and text boxes stay
inside the safe zone. A filled box that touches the trim edge runs on into the bleed.

Elements without a ``field`` are the same on every card: the renderer draws them once per
deck into a form XObject and reuses it. Elements with a ``field`` take their text, picture or
colour from the card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

REF_W, REF_H, REF_SAFE = 63.0, 88.0, 4.0

Box = tuple[float, float, float, float]
FULL: Box = (0.0, 0.0, REF_W, REF_H)


@dataclass(frozen=True)
class Fill:
    box: Box
    colour: str = "#ffffff"
    radius: float = 0.0
    colour_field: str | None = None  # take the colour from the card
    tint: float = 1.0                # 1: the colour itself; 0.1: a tenth of it on white

    @property
    def dynamic(self) -> bool:
        return self.colour_field is not None


@dataclass(frozen=True)
class Frame:
    box: Box
    colour: str = "#000000"
    width: float = 0.75  # pt
    radius: float = 0.0
    colour_field: str | None = None
    dash: tuple[float, ...] = ()

    @property
    def dynamic(self) -> bool:
        return self.colour_field is not None


@dataclass(frozen=True)
class Disc:
    centre: tuple[float, float]
    radius: float
    colour: str

    dynamic = False


@dataclass(frozen=True)
class Text:
    """A text: a constant (``literal``) or a card's field, fitted into ``box``."""

    box: Box
    field: str | None = None
    literal: str | None = None
    font: str = "regular"        # regular, bold
    size: float = 10.0           # pt on the reference card: the largest size tried
    colour: str = "#000000"
    colour_field: str | None = None
    align: str = "center"        # left, center, right
    valign: str = "middle"       # top, middle, bottom
    rotate: int = 0              # 0 or 180 (turned about the box's centre)
    leading: float = 1.18
    max_lines: int | None = None
    spacing: float = 0.0         # extra pt between characters (constant labels only)

    @property
    def dynamic(self) -> bool:
        return self.field is not None or self.colour_field is not None


@dataclass(frozen=True)
class Picture:
    """A symbol's picture (PNG from the pack), as large as fits, centred."""

    box: Box
    field: str = "picture"

    dynamic = True


@dataclass(frozen=True)
class Icon:
    """A Tabler icon drawn in the card's colour (Sign)."""

    box: Box
    field: str = "icon"
    colour_field: str = "hex"

    dynamic = True


@dataclass(frozen=True)
class Options:
    """A slogan's four answer options; the correct one starred (Slogan card backs)."""

    box: Box
    field: str
    size: float = 9.5
    colour: str = "#2b2b2b"
    accent: str = "#c8102e"
    star: str = "★"

    dynamic = True


@dataclass(frozen=True)
class Pattern:
    """A constant grid of glyphs, for card backs."""

    box: Box
    glyph: str
    colour: str
    size: float = 6.0
    step: float = 6.0   # mm between glyphs
    font: str = "regular"

    dynamic = False


Element = Fill | Frame | Disc | Text | Picture | Icon | Options | Pattern


@dataclass(frozen=True)
class Face:
    elements: tuple[Element, ...]

    @property
    def static(self) -> tuple[Element, ...]:
        return tuple(e for e in self.elements if not e.dynamic)

    @property
    def dynamic(self) -> tuple[Element, ...]:
        return tuple(e for e in self.elements if e.dynamic)


@dataclass(frozen=True)
class Design:
    """How the cards of one group look: a front, and a back that is the same for all cards
    of the group (``back_varies`` False: the game's card back) or carries the card's data."""

    group: str
    title: str
    front: Face
    back: Face
    back_varies: bool


def turned(element: Any) -> Any:
    """The same element turned 180° about the card's centre (for corner indices)."""
    x, y, w, h = element.box
    return replace(element, box=(REF_W - x - w, REF_H - y - h, w, h),
                   rotate=(getattr(element, "rotate", 0) + 180) % 360)


# --- palettes ------------------------------------------------------------------------------

NAVY, TEAL, CREAM = "#1f2a44", "#2a9d8f", "#fbf7ef"
SLOGAN_RED, SLOGAN_CREAM, INK = "#c8102e", "#fff8e7", "#2b2b2b"
ALFONS_BROWN, ALFONS_BEIGE = "#5c5346", "#efe9da"
PIG_PINK, PIG_DEEP, PIG_INK, SCALE_VIOLET = "#f9d5dd", "#d94f70", "#3b1f2b", "#6a4c93"
SIGN_DARK = "#232323"


def _band(y: float, h: float, colour: str) -> Fill:
    return Fill((0, y, REF_W, h), colour)


def _game_back(title_lines: tuple[str, ...], ground: str, pattern: str, panel: str,
               ink: str, glyph: str = "●") -> Face:
    lines = len(title_lines)
    panel_h = 12 + 9 * lines
    top = (REF_H - panel_h) / 2
    elements: list[Element] = [
        Fill(FULL, ground),
        Pattern((0, 0, REF_W, REF_H), glyph, pattern, size=5, step=6.3),
        Frame((4.5, 4.5, REF_W - 9, REF_H - 9), panel, width=0.8, radius=3),
        Fill((9, top, REF_W - 18, panel_h), panel, radius=4),
    ]
    for i, line in enumerate(title_lines):
        elements.append(Text((11, top + 6 + 9 * i, REF_W - 22, 9), literal=line, font="bold",
                             size=15, colour=ink))
    return Face(tuple(elements))


# --- Sag's mit Symbolen ---------------------------------------------------------------------

SYMBOLS_BACK = _game_back(("Sag's mit", "Symbolen"), NAVY, "#2c3b5e", CREAM, NAVY)

CONCEPT_FRONT = Face((
    Fill(FULL, CREAM),
    _band(0, 15, NAVY),
    _band(74, 14, NAVY),
    Frame((5, 19, 53, 51), TEAL, width=0.9, radius=3),
    # the concept once more, upside down, for the players across the board
    Text((7, 4.5, 49, 9), field="text", font="bold", size=10, colour=CREAM, rotate=180,
         max_lines=1),
    Text((8, 22, 47, 45), field="text", font="bold", size=22, colour=NAVY),
    Text((7, 76.5, 49, 6), literal="Sag's mit Symbolen", size=7, colour=CREAM, spacing=0.3),
))

TILE_FRONT = Face((
    Fill(FULL, CREAM),
    _band(74, 14, NAVY),
    Frame((5, 5, 53, 66), TEAL, width=0.9, radius=3),
    Picture((10, 10, 43, 43)),
    Text((7, 56, 49, 12), field="name", font="bold", size=14, colour=NAVY),
    Text((50, 6.5, 7, 7), field="extra_mark", font="bold", size=11, colour=TEAL),
    Text((7, 76.5, 49, 6), literal="Sag's mit Symbolen", size=7, colour=CREAM, spacing=0.3),
))

# --- Sign -----------------------------------------------------------------------------------

_SIGN_CORNER = (
    Text((5, 4.5, 11, 9), field="mark", font="bold", size=18, colour_field="hex", align="left"),
    Text((5, 13, 24, 5), field="colour_name", font="bold", size=7, colour_field="hex",
         align="left", max_lines=1),
)

SIGN_FRONT = Face((
    Fill(FULL, "#ffffff"),
    Fill(FULL, colour_field="hex", tint=0.08),
    Frame((3, 3, 57, 82), colour_field="hex", width=1.6, radius=3.5),
    Icon((9, 20, 45, 48)),
    *_SIGN_CORNER,
    *(turned(e) for e in _SIGN_CORNER),
))


def sign_back(colours: list[dict[str, Any]]) -> Face:
    """The Sign back: the deck's colour marks in a ring around the name."""
    elements: list[Element] = [
        Fill(FULL, SIGN_DARK),
        Frame((4.5, 4.5, REF_W - 9, REF_H - 9), "#5a5a5a", width=0.8, radius=3),
        Disc((REF_W / 2, REF_H / 2), 17, "#2f2f2f"),
        Text((9, REF_H / 2 - 6, REF_W - 18, 12), literal="SIGN", font="bold", size=22,
             colour="#ffffff", spacing=2),
    ]
    count = max(1, len(colours))
    for i, colour in enumerate(colours):
        angle = math.pi / 2 - 2 * math.pi * i / count
        cx = REF_W / 2 + 23 * math.cos(angle)
        cy = REF_H / 2 - 23 * math.sin(angle)
        elements.append(Disc((cx, cy), 4.6, "#f4f1ea"))
        elements.append(Text((cx - 4, cy - 4, 8, 8), literal=colour["mark"], font="bold",
                             size=14, colour=colour["hex"]))
    return Face(tuple(elements))


# --- Slogan ---------------------------------------------------------------------------------

def _slogan_number(n: int, y: float) -> tuple[Element, ...]:
    return (Disc((9.5, y), 3.4, SLOGAN_RED),
            Text((6.1, y - 3, 6.8, 6), literal=str(n), font="bold", size=9, colour="#ffffff"))


def _slogan_front(title: str = "SLOGAN") -> Face:
    return Face((
        Fill(FULL, SLOGAN_CREAM),
        _band(0, 13, SLOGAN_RED),
        Text((6, 4, 51, 7), literal=title, font="bold", size=11, colour="#ffffff", spacing=2.5),
        *_slogan_number(1, 19),
        Text((7, 24, 49, 23), field="slogan1", font="bold", size=14, colour=INK),
        Frame((10, 50.5, 43, 0), "#d9c9a3", width=0.8, dash=(2, 2)),
        *_slogan_number(2, 56.5),
        Text((7, 61.5, 49, 22.5), field="slogan2", font="bold", size=14, colour=INK),
    ))


def _slogan_back(title: str = "SLOGAN") -> Face:
    return Face((
        Fill(FULL, SLOGAN_CREAM),
        _band(0, 13, SLOGAN_RED),
        Text((6, 4, 51, 7), literal=title, font="bold", size=11, colour="#ffffff", spacing=2.5),
        *_slogan_number(1, 19),
        Text((14, 16, 43, 6), field="slogan1", size=6.5, colour="#8a7a5a", align="left",
             max_lines=2),
        Options((7, 24, 49, 24), field="options1"),
        Frame((10, 50.5, 43, 0), "#d9c9a3", width=0.8, dash=(2, 2)),
        *_slogan_number(2, 56.5),
        Text((14, 53.5, 43, 6), field="slogan2", size=6.5, colour="#8a7a5a", align="left",
             max_lines=2),
        Options((7, 61.5, 49, 22.5), field="options2"),
    ))


SLOGAN_FRONT = _slogan_front()
SLOGAN_BACK = _slogan_back()


def _slogan_design(pack: dict[str, Any]) -> Design:
    """A market's deck carries its market in the band (SLOGAN · UK), so the UK and the US
    decks, printed side by side, are told apart on every card, front and back."""
    market = pack.get("market")
    if not market:
        return Design("slogans", "Slogan cards", SLOGAN_FRONT, SLOGAN_BACK, True)
    from cards.models import MARKET_NAMES

    title = f"SLOGAN · {MARKET_NAMES.get(market, market)}"
    return Design("slogans", "Slogan cards", _slogan_front(title), _slogan_back(title), True)


def _alfons_front(title: str) -> Face:
    return Face((
        Fill(FULL, ALFONS_BEIGE),
        _band(0, 15, ALFONS_BROWN),
        Text((6, 4.5, 51, 8), literal=title, font="bold", size=12, colour=ALFONS_BEIGE),
        Frame((5, 19, 53, 52), ALFONS_BROWN, width=0.6, radius=2.5),
        Text((8, 22, 47, 46), field="text", size=12.5, colour=INK),
        Text((7, 75, 49, 8), field="effect_badge", font="bold", size=11, colour=ALFONS_BROWN),
    ))


def _alfons_back(title_lines: tuple[str, ...]) -> Face:
    return _game_back(title_lines, ALFONS_BROWN, "#6a6052", ALFONS_BEIGE, ALFONS_BROWN, glyph="✚")


ALFONS_FRONT = _alfons_front("Spießer Alfons")
ALFONS_BACK = _alfons_back(("Spießer", "Alfons"))
# "Spießer" (a stuffy conformist) is German and means nothing to other players: decks in
# other languages call the card by the name alone.
ALFONS_FRONT_INTERNATIONAL = _alfons_front("Alfons")
ALFONS_BACK_INTERNATIONAL = _alfons_back(("Alfons",))


# --- Sauschwer ------------------------------------------------------------------------------

SAUSCHWER_FRONT = Face((
    Fill(FULL, PIG_PINK),
    _band(0, 14, PIG_DEEP),
    Text((6, 4, 51, 8), literal="SAUSCHWER", font="bold", size=11, colour="#ffffff", spacing=2.5),
    Fill((6, 19, 51, 50), "#ffffff", radius=4),
    Text((9, 22, 45, 44), field="name", font="bold", size=19, colour=PIG_INK),
    Text((20, 73, 23, 10), literal="⚖", font="regular", size=20, colour=PIG_DEEP),
))

SAUSCHWER_BACK = Face((
    Fill(FULL, SCALE_VIOLET),
    Pattern((0, 0, REF_W, REF_H), "⚖", "#7a5ca3", size=6, step=7.5),
    Frame((4.5, 4.5, REF_W - 9, REF_H - 9), "#ffffff", width=0.8, radius=3),
    Fill((7, 26, 49, 26), "#ffffff", radius=4),
    Text((9, 28, 45, 22), field="weight", font="bold", size=26, colour=SCALE_VIOLET, max_lines=1),
    Text((8, 56, 47, 16), field="name", font="bold", size=10, colour="#ffffff"),
))


def designs_for(pack: dict[str, Any]) -> dict[str, Design]:
    """The designs of a pack's card groups (some backs show the pack's own data)."""
    game = pack["game"]
    if game == "symbols":
        return {
            "concepts": Design("concepts", "Concept cards", CONCEPT_FRONT, SYMBOLS_BACK, False),
            "tiles": Design("tiles", "Symbol tiles", TILE_FRONT, SYMBOLS_BACK, False),
        }
    if game == "sign":
        return {"cards": Design("cards", "Sign cards", SIGN_FRONT,
                                sign_back(pack["body"]["colours"]), False)}
    if game == "slogan":
        return {
            "slogans": _slogan_design(pack),
            "alfons": (
                Design("alfons", "Spießer Alfons cards", ALFONS_FRONT, ALFONS_BACK, False)
                if pack["language"] == "de" else
                Design("alfons", "Alfons cards", ALFONS_FRONT_INTERNATIONAL,
                       ALFONS_BACK_INTERNATIONAL, False)
            ),
        }
    if game == "sauschwer":
        return {"objects": Design("objects", "Objects", SAUSCHWER_FRONT, SAUSCHWER_BACK, True)}
    raise ValueError(f"No card designs for the game '{game}'.")
