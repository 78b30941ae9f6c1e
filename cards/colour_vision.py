"""Can every player tell the Sign colours apart?

Three rules, checked by ``validate_content`` and by the Sign colour admin form:

* **Colours**: every pair of colours differs by CIEDE2000 ≥ ``MIN_DELTA_E`` under normal vision
  and under simulated protanopia, deuteranopia and tritanopia (Machado, Oliveira & Fernandes
  2009, severity 1.0, applied to linear RGB). CIEDE2000 follows Sharma, Wu & Dalal (2005),
  the paper whose published test pairs pin it in ``tests/test_colour_vision.py``.
* **Marks**: the card repeats its corner mark turned upside down, and a card held the wrong way
  round shows it mirrored or turned, so no mark may look like another after a half turn or a
  mirror (▲ turned is ▼). Only marks whose turned and mirrored forms are known are accepted.
* **Contrast**: the symbol and the mark are drawn in the colour on a light ground (the card's
  faintly tinted white, the back's cream disc, the admin's white), so each colour needs a WCAG
  1.4.11 contrast ratio ≥ ``MIN_CONTRAST`` against each of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_DELTA_E = 10.0
MIN_CONTRAST = 3.0  # WCAG 2.x SC 1.4.11, non-text contrast (symbols and marks)

# The grounds a Sign colour is drawn on: the printed card front is white with CARD_TINT of the
# colour laid over it (exports/pdf/layouts.py SIGN_FRONT), the back draws the marks on a cream
# disc, the admin on white.
CARD_TINT = 0.08
FIXED_GROUNDS = {"white": "#ffffff", "the cream disc of the card back": "#f4f1ea"}

RGB = tuple[float, float, float]

# Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of Color
# Vision Deficiency", IEEE TVCG 15(6), Table 1 at severity 1.0; they act on linear RGB.
MACHADO: dict[str, tuple[RGB, RGB, RGB]] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
VISIONS = ("normal vision", *MACHADO)


# --- colour arithmetic ----------------------------------------------------------------------

def parse_hex(hex_: str) -> RGB:
    """``#RRGGBB`` as sRGB components in 0..1; a clear ValueError for anything else."""
    text = hex_.strip()
    if len(text) != 7 or text[0] != "#":
        raise ValueError(f"'{hex_}' is not a colour of the form #RRGGBB.")
    try:
        return tuple(int(text[i:i + 2], 16) / 255 for i in (1, 3, 5))  # type: ignore[return-value]
    except ValueError:
        raise ValueError(f"'{hex_}' is not a colour of the form #RRGGBB.") from None


def _to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def to_linear(rgb: RGB) -> RGB:
    return (_to_linear(rgb[0]), _to_linear(rgb[1]), _to_linear(rgb[2]))


def simulate(linear: RGB, vision: str) -> RGB:
    """What a viewer with ``vision`` sees, in linear RGB (clipped to the displayable range)."""
    if vision == "normal vision":
        return linear
    m = MACHADO[vision]
    return tuple(  # type: ignore[return-value]
        min(1.0, max(0.0, row[0] * linear[0] + row[1] * linear[1] + row[2] * linear[2]))
        for row in m
    )


_WHITE_D65 = (0.95047, 1.0, 1.08883)


def linear_to_lab(linear: RGB) -> RGB:
    r, g, b = linear
    x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(v / w) for v, w in zip((x, y, z), _WHITE_D65, strict=True))
    return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))


def ciede2000(lab1: RGB, lab2: RGB) -> float:
    """CIEDE2000 colour difference (kL = kC = kH = 1), after Sharma, Wu & Dalal (2005)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0

    dlp = l2 - l1
    dcp = c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    d_hp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dhp / 2))

    lp_bar = (l1 + l2) / 2
    cp_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        hp_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hp_bar = (h1p + h2p + 360) / 2
    else:
        hp_bar = (h1p + h2p - 360) / 2

    t = (1 - 0.17 * math.cos(math.radians(hp_bar - 30))
         + 0.24 * math.cos(math.radians(2 * hp_bar))
         + 0.32 * math.cos(math.radians(3 * hp_bar + 6))
         - 0.20 * math.cos(math.radians(4 * hp_bar - 63)))
    d_theta = 30 * math.exp(-(((hp_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (lp_bar - 50) ** 2 / math.sqrt(20 + (lp_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt(
        (dlp / s_l) ** 2 + (dcp / s_c) ** 2 + (d_hp / s_h) ** 2
        + r_t * (dcp / s_c) * (d_hp / s_h)
    )


def seen_difference(hex1: str, hex2: str, vision: str) -> float:
    """CIEDE2000 between two sRGB colours as a viewer with ``vision`` sees them."""
    labs = [linear_to_lab(simulate(to_linear(parse_hex(h)), vision)) for h in (hex1, hex2)]
    return ciede2000(labs[0], labs[1])


def relative_luminance(hex_: str) -> float:
    r, g, b = to_linear(parse_hex(hex_))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(hex1: str, hex2: str) -> float:
    """WCAG 2.x contrast ratio, 1..21."""
    l1, l2 = sorted((relative_luminance(hex1), relative_luminance(hex2)), reverse=True)
    return (l1 + 0.05) / (l2 + 0.05)


def tinted_white(hex_: str, tint: float = CARD_TINT) -> str:
    """White with ``tint`` of the colour laid over it, as the printed card front is."""
    rgb = parse_hex(hex_)
    return "#" + "".join(f"{round(255 * (1 - tint + tint * c)):02X}" for c in rgb)


# --- marks ----------------------------------------------------------------------------------

# Each accepted mark, with what it looks like turned half round and mirrored left-right and
# top-bottom. Two marks clash when one's set of looks meets the other's.
_TURNS: dict[str, tuple[str, str, str]] = {
    # mark: (turned 180°, mirrored left-right, mirrored top-bottom)
    "●": ("●", "●", "●"), "○": ("○", "○", "○"), "◎": ("◎", "◎", "◎"),
    "■": ("■", "■", "■"), "□": ("□", "□", "□"),
    "◆": ("◆", "◆", "◆"), "◇": ("◇", "◇", "◇"),
    "▲": ("▼", "▲", "▼"), "▼": ("▲", "▼", "▲"),
    "◀": ("▶", "▶", "◀"), "▶": ("◀", "◀", "▶"),
    "★": ("★↓", "★", "★↓"), "☆": ("☆↓", "☆", "☆↓"),
    "✚": ("✚", "✚", "✚"), "✖": ("✖", "✖", "✖"),
    "♥": ("♥↓", "♥", "♥↓"), "♠": ("♠↓", "♠", "♠↓"), "♣": ("♣↓", "♣", "♣↓"),
    "♦": ("♦", "♦", "♦"),
    "▬": ("▬", "▬", "▬"), "❚": ("❚", "❚", "❚"),
    # letters and digits that a half turn or mirror does not turn into another one
    **{c: (c, c, c) for c in "HIOX08"},
    "A": ("A↓", "A", "A↓"), "T": ("T↓", "T", "T↓"), "U": ("U↓", "U", "U↓"),
    "V": ("V↓", "V", "V↓"), "Y": ("Y↓", "Y", "Y↓"),
    "B": ("B↓", "B↔", "B"), "C": ("C↔", "C↔", "C"), "D": ("D↔", "D↔", "D"),
    "E": ("E↔", "E↔", "E"), "K": ("K↔", "K↔", "K"),
    "N": ("N", "N↔", "N↔"), "S": ("S", "S↔", "S↔"), "Z": ("Z", "Z↔", "Z↔"),
    "M": ("W", "M", "W"), "W": ("M", "W", "M"),
    "6": ("9", "6↔", "9↔"), "9": ("6", "9↔", "6↔"),
    "b": ("q", "d", "p"), "d": ("p", "b", "q"), "p": ("d", "q", "b"), "q": ("b", "p", "d"),
    "n": ("u", "n", "u"), "u": ("n", "u", "n"),
}
KNOWN_MARKS = "".join(k for k in _TURNS if len(k) == 1)


def mark_looks(mark: str) -> frozenset[str]:
    """Every way the mark can appear on a card held turned or mirrored."""
    return frozenset((mark, *_TURNS[mark]))


# --- the check ------------------------------------------------------------------------------

@dataclass(frozen=True)
class ColourSpec:
    key: str
    name: str
    hex: str
    mark: str


@dataclass(frozen=True)
class ColourProblem:
    keys: tuple[str, ...]  # the colours the problem is about
    message: str


def colour_problems(colours: Sequence[ColourSpec]) -> list[ColourProblem]:
    """Every break of the three rules among ``colours`` (empty when all is well)."""
    problems: list[ColourProblem] = []
    usable = []
    for c in colours:
        try:
            parse_hex(c.hex)
        except ValueError as exc:
            problems.append(ColourProblem((c.key,), str(exc)))
            continue
        usable.append(c)
        for ground_name, ground in _grounds(c.hex):
            ratio = contrast_ratio(c.hex, ground)
            if ratio < MIN_CONTRAST:
                problems.append(ColourProblem(
                    (c.key,),
                    f"{c.name} ({c.hex}) has contrast {ratio:.2f}:1 on {ground_name} ({ground}); "
                    f"its symbol and mark need at least {MIN_CONTRAST:g}:1 (choose a darker "
                    "colour).",
                ))
        if c.mark not in _TURNS:
            problems.append(ColourProblem(
                (c.key,),
                f"the mark '{c.mark}' of {c.name} is not one whose turned and mirrored forms are "
                f"known; choose one of {' '.join(KNOWN_MARKS)}",
            ))
    for i, a in enumerate(usable):
        for b in usable[i + 1:]:
            for vision in VISIONS:
                de = seen_difference(a.hex, b.hex, vision)
                if de < MIN_DELTA_E:
                    problems.append(ColourProblem(
                        (a.key, b.key),
                        f"{a.name} ({a.hex}) and {b.name} ({b.hex}) differ by only CIEDE2000 "
                        f"{de:.1f} under {vision}; every pair needs at least {MIN_DELTA_E:g}.",
                    ))
            if a.mark in _TURNS and b.mark in _TURNS and mark_looks(a.mark) & mark_looks(b.mark):
                same = "the same mark" if a.mark == b.mark else (
                    f"the same mark once turned or mirrored ('{a.mark}' and '{b.mark}')")
                problems.append(ColourProblem(
                    (a.key, b.key),
                    f"{a.name} and {b.name} have {same}; a card shows its mark upside down too.",
                ))
    return problems


def _grounds(hex_: str) -> Iterable[tuple[str, str]]:
    yield from FIXED_GROUNDS.items()
    yield "the card front (white tinted with the colour)", tinted_white(hex_)


def palette_report(colours: Sequence[ColourSpec]) -> list[str]:
    """The numbers behind the rules, one line each, for a curator or a test failure."""
    lines = []
    for vision in VISIONS:
        worst = min(
            ((seen_difference(a.hex, b.hex, vision), a.name, b.name)
             for i, a in enumerate(colours) for b in colours[i + 1:]),
            default=None,
        )
        if worst:
            lines.append(f"{vision}: closest pair {worst[1]}/{worst[2]} at CIEDE2000 {worst[0]:.1f}")
    for c in colours:
        worst_ratio = min(contrast_ratio(c.hex, g) for _, g in _grounds(c.hex))
        lines.append(f"{c.name} {c.hex} {c.mark}: lowest contrast {worst_ratio:.2f}:1")
    return lines
