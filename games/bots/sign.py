"""A Sign bot: it collects the symbol it holds in the most colours and watches for signs.

It plays fair: it decides from its seat's view and legal actions only (see ``games.bots``).
It checks its hand at once (``ready``), shows its team's sign while it holds a quintet, and
calls "Sign!" on a team-mate whose sign it sees (not at once every time: a player may miss a
sign for a while). Now and then it misreads a team-mate who has stopped swapping and calls an
invalid "Sign!". Opponents' signs are not in its view, so it never calls on an opponent: a
guess would give that team a point far more often than it scores.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from games.engines import sign as engine

READ_MATE = 0.5  # a team-mate's sign is seen at this decision
MISREAD = 0.002  # a team-mate who is done is taken for one who signs

Faces = dict[str, dict[str, str]]


def choose(seen: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    if legal[0]["type"] == "ready":
        return legal[0]
    if seen["phase"] != "swapping":
        return None
    call = _call_sign(seen, rng)
    if call is not None:
        return call  # a sign call is legal at any time in the swapping phase
    faces: Faces = seen["faces"]
    hand: list[str] = seen["hand"]
    symbol, colours = _best_collection(hand, faces)
    quintet = len(hand) == engine.HAND_SIZE and len(colours) == engine.HAND_SIZE
    if quintet and seen["you"] not in seen["signals"]:
        return {"type": "signal"}
    return _swap(seen, faces, symbol, colours)


def _call_sign(seen: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    me = seen["you"]
    for mate in seen["signals"]:
        if mate != me and rng.random() < READ_MATE:
            return {"type": "sign", "target": mate}
    if seen["done"]:
        mates = seen["teams"][seen["team"]]
        for other in seen["done"]:
            if other != me and other in mates and other not in seen["signals"] and rng.random() < MISREAD:
                return {"type": "sign", "target": other}
    return None


def _swap(seen: dict[str, Any], faces: Faces, symbol: str, colours: set[str]) -> dict[str, Any] | None:
    hand: list[str] = seen["hand"]
    table: list[str] = seen["table"]
    useful = []
    if len(colours) < engine.HAND_SIZE:
        for card in table:
            face = faces[card]
            if face["symbol"] == symbol and face["colour"] not in colours:
                useful.append(card)
    if len(hand) > engine.HAND_SIZE:
        return {"type": "drop", "card": _worst(hand, faces, symbol)}
    if len(hand) < engine.HAND_SIZE:
        return {"type": "take", "card": useful[0] if useful else table[0]}
    if useful:
        return {"type": "take", "card": useful[0]}
    if seen["you"] not in seen["done"]:
        return {"type": "done"}
    return None  # done, and nothing on the table worth a swap


def _best_collection(hand: list[str], faces: Faces) -> tuple[str, set[str]]:
    """The symbol held in the most different colours (ties: the most cards, then by name),
    and those colours."""
    colours: dict[str, set[str]] = {}
    counts: dict[str, int] = {}
    for card in hand:
        face = faces[card]
        symbol = face["symbol"]
        colours.setdefault(symbol, set()).add(face["colour"])
        counts[symbol] = counts.get(symbol, 0) + 1
    symbol = max(colours, key=lambda s: (len(colours[s]), counts[s], s))
    return symbol, colours[symbol]


def _worst(hand: list[str], faces: Faces, symbol: str) -> str:
    """A card off the collection, or else a second card of a colour already collected."""
    for card in hand:
        if faces[card]["symbol"] != symbol:
            return card
    seen_colours: set[str] = set()
    for card in hand:
        colour = faces[card]["colour"]
        if colour in seen_colours:
            return card
        seen_colours.add(colour)
    return hand[0]


def tally(final: dict[str, Any]) -> Counter[Any]:
    """One finished game's counts for the balance report; tallies of games add up."""
    counts: Counter[Any] = Counter(games=1)
    for event in final["log"]:
        counts["kind", event["type"]] += 1
        if event["type"] == "round_end":
            counts["outcome", event["outcome"]] += 1
    return counts


def stats_of(counts: Counter[Any]) -> dict[str, str]:
    """How the rounds ended (a valid "Sign!", an invalid one, or a draw: the deck ran out), and
    the hand check before each table opens (the ``checking`` phase)."""
    total = sum(n for key, n in counts.items() if isinstance(key, tuple) and key[0] == "outcome")
    if not total:
        return {}
    deals = counts["kind", "deal"]
    return {
        "rounds ending with a valid Sign!": f"{counts['outcome', 'valid'] / total:.1%}",
        "rounds ending with an invalid Sign!": f"{counts['outcome', 'invalid'] / total:.1%}",
        "rounds ending in a draw (deck ran out)": f"{counts['outcome', 'draw'] / total:.1%}",
        "table refreshes per round": f"{counts['kind', 'refresh'] / total:.2f}",
        "checking phase (hands checked before the table opens)": (
            f"{counts['kind', 'table_opened']} of {deals} deals opened after "
            f"{counts['kind', 'ready']} ready messages ({counts['kind', 'ready'] / deals:.2f} a deal)"
        ),
        "team signs shown per round": f"{counts['kind', 'signal'] / total:.2f}",
    }


def extra_stats(final_states: list[dict[str, Any]]) -> dict[str, str]:
    return stats_of(sum((tally(state) for state in final_states), Counter()))
