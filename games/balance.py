"""Does a Sauschwer round need judgement, or does the heaviest card decide it?

The simulation of issue 13: deal nine random cards from the catalogue; the first starts the
scale with Helmut beside it, each of the other eight goes on the side without Helmut, and Helmut
then moves to the side that is truly heavier. Two figures come out of it:

* how often the side holding the single heaviest card is the heavier side at the end of the
  round (the giants decide the round, estimating the rest does not matter);
* how often a placement leaves the two sides within ``CLOSE`` of each other (the heavier side
  at most 30 % heavier than the lighter), the placements where a player has to weigh the totals.

On the catalogue before issue 13 these came out at 97.8 % and 4.6 % (the issue measured 97.7 %
and 4.8 %); ``tests/test_sauschwer_balance.py`` pins today's figures.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CARDS_PER_ROUND = 9  # the start card and eight placements
CLOSE = 0.30
ROUNDS = 20_000
SEED = 13

MAX_HEAVIEST_DECIDES = 0.85
MIN_CLOSE_PLACEMENTS = 0.15


@dataclass(frozen=True)
class Balance:
    rounds: int
    heaviest_decides: float  # share of rounds
    close_placements: float  # share of placements

    def lines(self) -> dict[str, str]:
        return {
            "heaviest card decides the round": f"{self.heaviest_decides:.1%} "
            f"(goal ≤ {MAX_HEAVIEST_DECIDES:.0%})",
            "placements leaving the sides within 30 %": f"{self.close_placements:.1%} "
            f"(goal ≥ {MIN_CLOSE_PLACEMENTS:.0%})",
        }


def balance(weights: Sequence[int], rounds: int = ROUNDS, seed: int = SEED) -> Balance:
    """Play ``rounds`` rounds of ideal placing with the catalogue's ``weights`` (grams)."""
    if len(weights) < CARDS_PER_ROUND:
        raise ValueError(f"a round needs {CARDS_PER_ROUND} objects, the catalogue has {len(weights)}.")
    rng = random.Random(seed)
    decided = close = placements = 0
    for _ in range(rounds):
        deal = rng.sample(weights, CARDS_PER_ROUND)
        sides = [deal[0], 0]  # side 0 starts with the first card, and Helmut beside it
        helmut = 0
        heaviest_side = 0
        heaviest = deal[0]
        for weight in deal[1:]:
            side = 1 - helmut
            sides[side] += weight
            if weight > heaviest:
                heaviest, heaviest_side = weight, side
            helmut = 0 if sides[0] >= sides[1] else 1
            placements += 1
            if max(sides) <= (1 + CLOSE) * min(sides):
                close += 1
        if sides[heaviest_side] > sides[1 - heaviest_side]:
            decided += 1
    return Balance(rounds, decided / rounds, close / placements)


def report_lines(game: str, content: Mapping[str, Any]) -> dict[str, str]:
    """The two figures for a Sauschwer pack's cards, for ``manage.py simulate``'s report."""
    if game != "sauschwer":
        return {}
    body = content.get("body", content)  # a pack file, or just its body
    weights = sorted(int(card["weight_g"]) for card in body.get("cards", []))
    if len(weights) < CARDS_PER_ROUND:
        return {}
    return balance(weights).lines()
