"""A Sag's mit Symbolen bot with a shared, made-up sense of what a symbol means.

Real players link "sun" to "Italy" through shared culture. The bots share a fixed table
instead: ``association(concept, symbol)`` is a number in [0, 1) derived from the two keys, the
same for every bot. A hint giver marks the symbol that sets the secret concept apart from the
other cards (a grey marker: one the secret has nothing to do with); the candidate weighs the
cards by the markers, removes the least likely card, and attempts a solution once one card is
likely enough.

It plays fair: it decides from its seat's view and legal actions only (see ``games.bots``); a
hint giver's view holds the secret slot, the candidate's does not.
"""

from __future__ import annotations

import math
import random
import zlib
from collections import Counter
from functools import lru_cache
from typing import Any

from games.bots import ending_lines

HINT_NOISE = 0.15  # hint givers do not always find the best symbol
PERCEPTION = 0.35  # how far a candidate's links differ from the hint givers'
SHARPNESS = 6.0  # how strongly the candidate trusts the markers
GUESS_CONFIDENCE = 0.8
CANDIDATE_SLIPS = 0.05  # now and then the candidate removes a card at random
REPLACE_CHANCE = 0.01  # now and then a player finds a concept impossible to explain
GREY_BIAS = 0.3  # grey markers are scarce: used only for a clearly better hint


@lru_cache(maxsize=65536)
def association(concept: str, symbol: str) -> float:
    return zlib.crc32(f"{concept}|{symbol}".encode()) / 2**32


@lru_cache(maxsize=65536)
def perceived(player: str, concept: str, symbol: str) -> float:
    """How strongly this player links a concept to a symbol: the shared association, blurred
    by the player's own taste (the same every time)."""
    taste = zlib.crc32(f"{player}|{concept}|{symbol}".encode()) / 2**32 - 0.5
    return association(concept, symbol) + 2 * PERCEPTION * taste


@lru_cache(maxsize=4096)
def _links(concept: str, symbols: tuple[str, ...]) -> tuple[float, ...]:
    """A concept's association with each symbol of the board, in board order."""
    return tuple(association(concept, symbol) for symbol in symbols)


def choose(seen: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any] | None:
    phase = seen["phase"]
    player = seen["you"]
    if phase == "hint":
        if player == seen["hint_giver"]:
            return _hint(seen, rng)
        replacements = [action for action in legal if action["type"] == "replace"]
        if replacements and rng.random() < REPLACE_CHANCE:
            return rng.choice(replacements)
        return None
    if phase == "decide" and player == seen["candidate"]:
        return _decide(seen, player, rng)
    return None


def _hint(seen: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The symbol that best sets the secret apart from the strongest other card on it."""
    board = {entry["slot"]: entry["concept"] for entry in seen["board"] if entry["concept"]}
    symbols = tuple(seen["symbols"])
    mine = _links(board[seen["secret"]], symbols)
    theirs = [_links(concept, symbols) for slot, concept in board.items() if slot != seen["secret"]]
    strongest = list(map(max, *theirs)) if len(theirs) > 1 else list(theirs[0])
    marked = {marker["symbol"] for marker in seen["markers"]}
    noise = HINT_NOISE * 2
    hints = [
        (m - t + noise * rng.random(), symbol, "green")
        for symbol, m, t in zip(symbols, mine, strongest, strict=True)
        if symbol not in marked
    ]
    if seen["grey_markers_left"] > 0:
        typical = [sum(links) / len(theirs) for links in zip(*theirs, strict=True)]
        hints += [
            (t - m - GREY_BIAS, symbol, "grey")
            for symbol, m, t in zip(symbols, mine, typical, strict=True)
            if symbol not in marked
        ]
    _, symbol, colour = max(hints)
    return {"type": "hint", "symbol": symbol, "marker": colour}


def likelihoods(seen: dict[str, Any], player: str) -> dict[int, float]:
    """How likely each card on the board is the secret, as this player reads the markers."""
    scores = {}
    for entry in seen["board"]:
        if entry["concept"] is None:
            continue
        score = 0.0
        for marker in seen["markers"]:
            link = perceived(player, entry["concept"], marker["symbol"])
            score += link if marker["marker"] == "green" else -link
        scores[entry["slot"]] = score
    top = max(scores.values())
    weights = {slot: math.exp(SHARPNESS * (score - top)) for slot, score in scores.items()}
    total = sum(weights.values())
    return {slot: weight / total for slot, weight in weights.items()}


def _decide(seen: dict[str, Any], player: str, rng: random.Random) -> dict[str, Any]:
    odds = likelihoods(seen, player)
    likeliest = max(odds, key=odds.__getitem__)
    if odds[likeliest] >= GUESS_CONFIDENCE:
        return {"type": "guess", "slot": likeliest}
    if rng.random() < CANDIDATE_SLIPS:
        return {"type": "remove", "slot": rng.choice(list(odds))}
    return {"type": "remove", "slot": min(odds, key=odds.__getitem__)}


def tally(final: dict[str, Any]) -> Counter[Any]:
    """One finished game's counts for the balance report; tallies of games add up."""
    counts: Counter[Any] = Counter(games=1)
    for event in final["log"]:
        kind = event["type"]
        if kind == "round_ended":
            counts["outcome", event["outcome"]] += 1
            counts["rounds"] += 1
        elif kind in ("hint", "replaced"):
            counts[kind] += 1
        elif kind == "game_ended":
            counts["ending", event["reason"]] += 1
    return counts


def stats_of(counts: Counter[Any]) -> dict[str, str]:
    """How rounds end, how many hints a round takes, how many cards are replaced."""
    rounds = counts["rounds"]
    if not rounds:
        return {}
    keyed = sorted(key for key in counts if isinstance(key, tuple))
    stats = {f"rounds ending: {name.replace('_', ' ')}": f"{counts[kind, name] / rounds:.1%}"
             for kind, name in keyed if kind == "outcome"}
    stats["hints per round"] = f"{counts['hint'] / rounds:.2f}"
    stats["cards replaced per round"] = (f"{counts['replaced'] / rounds:.2f} "
                                         "(at most one per player a round)")
    return {**stats, **ending_lines(counts)}


def extra_stats(final_states: list[dict[str, Any]]) -> dict[str, str]:
    return stats_of(sum((tally(state) for state in final_states), Counter()))
