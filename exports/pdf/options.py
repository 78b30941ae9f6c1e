"""What a curator can choose when printing a deck: sizes, paper, bleed, duplex, marks.

All lengths are millimetres. ``DeckOptions`` is a frozen value; the command line, the
admin print page and the print-shop profiles all build one and hand it to the renderer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

INCH = 25.4

SIZES: dict[str, tuple[float, float]] = {
    "poker": (63.0, 88.0),
    "bridge": (57.0, 89.0),
    "tarot": (70.0, 120.0),
    "mini": (44.0, 63.0),
}
PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
DUPLEX = ("long", "short")
PROFILES = ("drivethru", "gamecrafter")
# Print shops work in inches: their "poker" card is 2.5 × 3.5 in with 1/8 in bleed.
SHOP_SIZES = {"poker": (2.5 * INCH, 3.5 * INCH), "bridge": (2.25 * INCH, 3.5 * INCH),
              "tarot": (2.75 * INCH, 4.75 * INCH), "mini": (1.75 * INCH, 2.5 * INCH)}
SHOP_BLEED = INCH / 8


class OptionError(ValueError):
    """An option value that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class Selection:
    """Only some cards: ``kind`` names what the keys are keys of (see cards.SELECTION_KINDS)."""

    kind: str
    keys: frozenset[str]


@dataclass(frozen=True)
class DeckOptions:
    size: tuple[float, float] = SIZES["poker"]
    size_name: str = "poker"
    paper: str = "a4"
    bleed: float = 3.0
    safe: float = 4.0                   # text keeps this far inside the trim
    layout: str = "sheets"              # "sheets" (many up) or "single" (one card per page)
    duplex: str | None = None           # None, "long" or "short"
    fold: bool = False                  # front and back side by side, fold line between
    fronts_only: bool = False
    crop_marks: bool = False
    crop_length: float = 4.0
    crop_offset: float | None = None    # distance of the marks from the trim; default: the bleed
    gap: float = 0.0
    cut_lines: bool = False
    margin: float = 3.0                 # paper edge that stays blank (printers cannot print there)
    back_offset: tuple[float, float] = (0.0, 0.0)
    calibration: bool = False
    min_font_size: float = 6.0
    contents_page: bool = True
    strict: bool = False
    profile: str | None = None
    selection: Selection | None = None
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # NaN passes no comparison and so would slip past every range check below (a "nan"
        # offset reached the renderer): every number must first be a finite one.
        numbers = [("card width", self.size[0]), ("card height", self.size[1]),
                   ("bleed", self.bleed), ("safe", self.safe), ("gap", self.gap),
                   ("crop length", self.crop_length), ("margin", self.margin),
                   ("minimum font size", self.min_font_size),
                   ("front/back offset across", self.back_offset[0]),
                   ("front/back offset up", self.back_offset[1])]
        if self.crop_offset is not None:
            numbers.append(("crop offset", self.crop_offset))
        for name, value in numbers:
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise OptionError(f"The {name} must be a number of millimetres, not {value!r}.")
        width, height = self.size
        if not (10 <= width <= 400 and 10 <= height <= 400):
            raise OptionError(f"A card of {width:g} × {height:g} mm is not printable; 10–400 mm a side.")
        checks = [("bleed", self.bleed, 0, 10), ("safe", self.safe, 0, min(width, height) / 4),
                  ("gap", self.gap, 0, 50), ("crop length", self.crop_length, 0, 30),
                  ("margin", self.margin, 0, 30), ("minimum font size", self.min_font_size, 3, 30)]
        if self.crop_offset is not None:
            checks.append(("crop offset", self.crop_offset, 0, 20))
        for name, value, low, high in checks:
            if not low <= value <= high:
                raise OptionError(f"The {name} must be between {low:g} and {high:g} mm, not {value:g}.")
        if self.paper not in PAPERS:
            raise OptionError(f"Unknown paper '{self.paper}'; choose one of {', '.join(PAPERS)}.")
        if self.duplex not in (None, *DUPLEX):
            raise OptionError(f"Duplex is 'long' or 'short', not '{self.duplex}'.")
        if self.duplex and self.fold:
            raise OptionError("Choose duplex or fold, not both.")
        if self.layout not in ("sheets", "single"):
            raise OptionError(f"Unknown layout '{self.layout}'.")
        if any(abs(v) > 20 for v in self.back_offset):
            raise OptionError("The front/back offset is at most 20 mm each way.")

    @property
    def mark_offset(self) -> float:
        return self.crop_offset if self.crop_offset is not None else max(self.bleed, 1.0)

    @property
    def sides(self) -> str:
        """How backs are printed: duplex-long, duplex-short, fold, separate, none."""
        if self.fronts_only:
            return "none"
        if self.fold:
            return "fold"
        if self.duplex:
            return f"duplex-{self.duplex}"
        return "separate"

    def describe(self) -> list[tuple[str, str]]:
        """The options as (name, value) rows for the contents page."""
        w, h = self.size
        sides = {
            "none": "fronts only",
            "fold": "fold: front and back side by side",
            "duplex-long": "duplex, flip on the long edge",
            "duplex-short": "duplex, flip on the short edge",
            "separate": "single-sided: all fronts, then all backs",
        }[self.sides]
        rows = [("Card size", f"{self.size_name} ({w:g} × {h:g} mm)"),
                ("Bleed / safe zone", f"{self.bleed:g} mm / {self.safe:g} mm inside the trim"),
                ("Backs", sides)]
        if self.layout == "sheets":
            rows.append(("Paper", f"{self.paper.upper() if self.paper == 'a4' else 'Letter'}, "
                                  f"margin {self.margin:g} mm, gap {self.gap:g} mm"))
        if self.duplex:
            dx, dy = self.back_offset
            rows.append(("Front/back offset", f"{dx:+g} mm across, {dy:+g} mm up"))
        if self.crop_marks:
            rows.append(("Crop marks",
                         f"{self.crop_length:g} mm long, {self.mark_offset:g} mm from the trim"))
        if self.cut_lines:
            rows.append(("Cut lines", "yes"))
        rows.append(("Smallest text", f"{self.min_font_size:g} pt"))
        if self.profile:
            rows.append(("Print-shop profile", self.profile))
        return rows


def _shown(text: str) -> str:
    """A value as echoed in a message: a pasted page of text is cut short."""
    text = text.strip()
    return text if len(text) <= 40 else text[:40] + "…"


def parse_size(text: str) -> tuple[str, tuple[float, float]]:
    """'poker' → ('poker', (63, 88)); '60x90' or '60×90' → ('60×90', (60, 90))."""
    name = text.strip().lower()
    if name in SIZES:
        return name, SIZES[name]
    match = re.fullmatch(r"(\d+(?:[.,]\d+)?)\s*[x×*]\s*(\d+(?:[.,]\d+)?)(?:\s*mm)?", name)
    if not match:
        raise OptionError(f"Unknown card size '{_shown(text)}': use {', '.join(SIZES)} "
                          "or WxH in mm (e.g. 60x90).")
    width, height = (float(v.replace(",", ".")) for v in match.groups())
    return f"{width:g}×{height:g}", (width, height)


def parse_offset(text: str) -> tuple[float, float]:
    """'1.5,-0.5' → (1.5, -0.5): millimetres across and up, as read off the calibration page."""
    parts = [p for p in re.split(r"[,;\s]+", text.strip()) if p]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) == 1:
        values.append(0.0)
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise OptionError(f"'{_shown(text)}' is not an offset: give 'X,Y' in mm, e.g. 0.5,-1.")
    if any(abs(v) > 20 for v in values):
        raise OptionError("The front/back offset is at most 20 mm each way.")
    return values[0], values[1]


def apply_profile(options: DeckOptions, profile: str | None) -> DeckOptions:
    """A print shop's requirements on top of the chosen options.

    DriveThruCards and The Game Crafter both take one card per page with 1/8 in of bleed and
    their card sizes in inches; neither wants crop marks, a contents page or duplex sheets.
    """
    if profile is None:
        return options
    if profile not in PROFILES:
        raise OptionError(f"Unknown profile '{profile}'; choose one of {', '.join(PROFILES)}.")
    size = SHOP_SIZES.get(options.size_name, options.size)
    return replace(options, profile=profile, layout="single", size=size, bleed=SHOP_BLEED,
                   safe=max(options.safe, SHOP_BLEED), crop_marks=False, cut_lines=False,
                   duplex=None, fold=False, gap=0.0, contents_page=False, calibration=False)
