"""Small content packs for the engine tests, shaped exactly as docs/content-pack.md describes.

One function per game; each returns the whole pack dict (the engines receive it as ``content``).
The defaults are small but play a full game; keyword arguments pin what a test needs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

Pack = dict[str, Any]

# The rulebook's "Example of a Round" board, in slot order 1..8 (the secret is #4, Italien).
EXAMPLE_BOARD = ["goethe", "liebe", "china", "italien", "ferien", "bauer", "dschungel", "oma"]
MORE_CONCEPTS = [
    "apotheke", "arzt", "autobahn", "bauernhof", "campingplatz", "eifersucht", "erfinder",
    "fete", "frieden", "hafen", "handwerker", "hausmann", "jaeger", "kirmes", "kneipe",
    "krieg", "langeweile", "lehrer", "matrose", "mutter", "papst", "schule", "zirkus",
    "ritter", "piraten", "olympia", "wueste", "winter", "hochzeit", "kino", "zahnarzt",
    "fernsehen",
]  # fmt: skip
BASE_SYMBOLS = [
    "handy", "koffer", "sonne", "tiger", "fabrik", "wahlurne", "herz", "totenkopf",
    "krone", "schiff", "geld", "uhr",
]  # fmt: skip
EXTRA_SYMBOLS = ["anker", "rakete", "gespenst", "diamant"]

SIGN_SYMBOLS = ["anker", "schluessel", "stern", "herz", "mond", "krone", "blitz", "fisch"]
SIGN_COLOURS = [
    ("rot", "#D62828", "●"), ("orange", "#F77F00", "▲"), ("gelb", "#FCBF49", "■"),
    ("gruen", "#2A9D8F", "◆"), ("blau", "#1D3557", "★"), ("violett", "#7B2CBF", "✚"),
    ("braun", "#8D5524", "⬟"), ("grau", "#6C757D", "✖"),
]  # fmt: skip

ALFONS_EFFECTS: list[dict[str, Any]] = [
    {"kind": "move", "amount": 2},
    {"kind": "move", "amount": -3},
    {"kind": "chips", "amount": 2},
    {"kind": "chips", "amount": -2},
    {"kind": "pay_each", "amount": 1},
    {"kind": "collect_each", "amount": 1},
    {"kind": "swap", "target": "leader"},
    {"kind": "swap", "target": "last"},
    {"kind": "swap", "target": "next"},
    {"kind": "overtake"},
    {"kind": "to_start"},
    {"kind": "to_level", "amount": 3},
]

# Weights in grams for the default Sauschwer deck: light, middling and very heavy objects.
SAUSCHWER_WEIGHTS = [
    2, 5, 12, 30, 60, 100, 150, 250, 400, 500, 750, 1000, 1500, 2500, 4000, 7000,
    12000, 25000, 80000, 500000, 3, 45, 200, 900, 3000, 15000, 1200, 70, 8, 350,
    600, 2000, 9000, 40000, 120, 20, 1, 5000, 300, 65,
]  # fmt: skip


def _picture(key: str) -> dict[str, Any]:
    return {
        "url": f"/media/symbols/{key}.png",
        "sha256": hashlib.sha256(key.encode()).hexdigest(),
        "media_type": "image/png",
        "width": 512,
        "height": 512,
        "source": "Tabler Icons",
        "licence": "MIT",
    }


def wrap(game: str, body: dict[str, Any], *, language: str = "en") -> Pack:
    """The pack envelope around a game's body, with the sha256 of its canonical JSON."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {
        "format": "kartothek-content-pack",
        "format_version": 1,
        "game": game,
        "language": language,
        "source_language": "de",
        "content_version": "draft",
        "sha256": hashlib.sha256(canonical.encode()).hexdigest(),
        "body": body,
    }


def symbols_pack(
    concepts: Sequence[str] | int | None = None,
    *,
    symbols: Sequence[str] = BASE_SYMBOLS,
    extra_symbols: Sequence[str] = EXTRA_SYMBOLS,
) -> Pack:
    """Sag's mit Symbolen: ``concepts`` is a list of keys or how many (default: the example
    board plus 32 more = 40 cards)."""
    all_concepts = EXAMPLE_BOARD + MORE_CONCEPTS
    if concepts is None:
        keys = all_concepts
    elif isinstance(concepts, int):
        keys = (all_concepts + [f"begriff-{n:03d}" for n in range(concepts)])[:concepts]
    else:
        keys = list(concepts)
    tiles = [(key, False) for key in symbols] + [(key, True) for key in extra_symbols]
    return wrap(
        "symbols",
        {
            "concepts": [
                {"key": key, "text": key.replace("-", " ").title(), "status": "approved"}
                for key in sorted(keys)
            ],
            "symbols": [
                {
                    "key": key,
                    "name": key.title(),
                    "status": "approved",
                    "extra": extra,
                    "position": position,
                    "picture": _picture(key),
                }
                for position, (key, extra) in enumerate(tiles, start=1)
            ],
        },
    )


def sign_pack(n_symbols: int = 6, n_colours: int = 6) -> Pack:
    """Sign: one card of each symbol in each colour (default 6 × 6 = 36 cards)."""
    symbols = SIGN_SYMBOLS[:n_symbols]
    colours = SIGN_COLOURS[:n_colours]
    return wrap(
        "sign",
        {
            "symbols": [
                {"key": key, "name": key.title(), "status": "approved", "icon": key, "position": n}
                for n, key in enumerate(symbols, start=1)
            ],
            "colours": [
                {
                    "key": key,
                    "name": key.title(),
                    "status": "approved",
                    "hex": hex_,
                    "mark": mark,
                    "position": n,
                }
                for n, (key, hex_, mark) in enumerate(colours, start=1)
            ],
            "cards": sorted(
                (
                    {"key": f"{symbol}-{colour}", "symbol": symbol, "colour": colour}
                    for symbol in symbols
                    for colour, _, _ in colours
                ),
                key=lambda card: card["key"],
            ),
        },
    )


def slogan_pack(n_cards: int = 40, effects: Sequence[dict[str, Any]] = ALFONS_EFFECTS) -> Pack:
    """Slogan: ``n_cards`` cards of two slogans; option ``(card + side) % 4`` is correct.
    One Spießer Alfons card per effect (default: every kind, both signs)."""

    def slogan(card: int, side: int) -> dict[str, Any]:
        correct = (card + side) % 4
        return {
            "key": f"slogan-{card:03d}-{side}",
            "text": f"Slogan {card}/{side} …",
            "status": "approved",
            "options": [
                {"text": f"Brand {card}-{side}-{n}", "status": "approved", "correct": n == correct}
                for n in range(4)
            ],
        }

    return wrap(
        "slogan",
        {
            "cards": [
                {"key": f"karte-{card:03d}", "slogans": [slogan(card, 1), slogan(card, 2)]}
                for card in range(1, n_cards + 1)
            ],
            "alfons": sorted(
                (
                    {
                        "key": f"alfons-{n:02d}-{effect['kind'].replace('_', '-')}",
                        "text": f"Alfons {n}: {effect}",
                        "status": "approved",
                        "effect": dict(effect),
                    }
                    for n, effect in enumerate(effects, start=1)
                ),
                key=lambda card: card["key"],
            ),
        },
    )


def sauschwer_pack(weights: Sequence[int] | dict[str, int] = SAUSCHWER_WEIGHTS) -> Pack:
    """Sauschwer: object cards with these weights in grams; keys ``ding-01``… when a list is
    given, or the dict's keys."""
    if isinstance(weights, dict):
        items = list(weights.items())
    else:
        items = [(f"ding-{n:02d}", weight) for n, weight in enumerate(weights, start=1)]
    return wrap(
        "sauschwer",
        {
            "cards": [
                {
                    "key": key,
                    "name": f"Object {key}",
                    "status": "approved",
                    "weight_g": weight,
                    "weight_source": "test",
                }
                for key, weight in sorted(items)
            ]
        },
    )


PACKS = {
    "symbols": symbols_pack,
    "sign": sign_pack,
    "slogan": slogan_pack,
    "sauschwer": sauschwer_pack,
}


def pack_for(game: str) -> Pack:
    """The default small pack of a game."""
    return PACKS[game]()
