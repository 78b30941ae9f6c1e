"""A Sign bot: it collects the symbol it holds in the most colours and watches for signs.

It sees its hand and the table through the engine's ``view``. The one thing it takes from the
full state is whether another player holds a quintet: that stands for the secret team sign,
which a team-mate reads most of the time and an opponent only now and then. Now and then a bot
misreads a team-mate who is one card short and calls an invalid "Sign!".
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from games.engines import sign as engine

READ_MATE = 0.5  # a team-mate who is done with a quintet is seen signing
READ_OPPONENT = 0.03  # an opponent's sign is caught
MISREAD = 0.01  # a team-mate one card short is taken for a quintet


def choose(state: dict[str, Any], player: str, rng: random.Random) -> dict[str, Any] | None:
    seen = engine.view(state, player, with_log=False)
    if seen["phase"] != "swapping":
        return None
    call = _call_sign(state, seen, player, rng)
    if call is not None:
        return call
    return _swap(seen, state["cards"], player)


def _call_sign(
    state: dict[str, Any], seen: dict[str, Any], player: str, rng: random.Random
) -> dict[str, Any] | None:
    my_team = engine.team_of(state, player)
    for other in seen["done"]:
        if other == player:
            continue
        mate = engine.team_of(state, other) == my_team
        hand = state["hands"][other]
        if engine.is_quintet(hand, state["cards"]):
            chance = READ_MATE if mate else READ_OPPONENT
        elif mate and _best_collection(hand, state["cards"])[1] == engine.HAND_SIZE - 1:
            chance = MISREAD
        else:
            continue
        if rng.random() < chance:
            return {"type": "sign", "target": other}
    return None


def _swap(seen: dict[str, Any], cards: dict[str, list[str]], player: str) -> dict[str, Any] | None:
    hand: list[str] = seen["hand"]
    symbol, _ = _best_collection(hand, cards)
    colours = {cards[card][1] for card in hand if cards[card][0] == symbol}
    useful = [
        card
        for card in seen["table"]
        if cards[card][0] == symbol and cards[card][1] not in colours and len(colours) < engine.HAND_SIZE
    ]
    if len(hand) > engine.HAND_SIZE:
        return {"type": "drop", "card": _worst(hand, cards, symbol)}
    if len(hand) < engine.HAND_SIZE:
        card = useful[0] if useful else seen["table"][0]
        return {"type": "take", "card": card}
    if useful:
        return {"type": "take", "card": useful[0]}
    if player not in seen["done"]:
        return {"type": "done"}
    return None  # done, and nothing on the table worth a swap


def _best_collection(hand: list[str], cards: dict[str, list[str]]) -> tuple[str, int]:
    """The symbol held in the most different colours (ties: the most cards, then by name)."""
    colours: dict[str, set[str]] = {}
    for card in hand:
        symbol, colour = cards[card]
        colours.setdefault(symbol, set()).add(colour)
    counts = Counter(cards[card][0] for card in hand)
    symbol = max(colours, key=lambda s: (len(colours[s]), counts[s], s))
    return symbol, len(colours[symbol])


def _worst(hand: list[str], cards: dict[str, list[str]], symbol: str) -> str:
    """A card off the collection, or else a second card of a colour already collected."""
    others = [card for card in hand if cards[card][0] != symbol]
    if others:
        return others[0]
    seen_colours: set[str] = set()
    for card in hand:
        if cards[card][1] in seen_colours:
            return card
        seen_colours.add(cards[card][1])
    return hand[0]


def extra_stats(final_states: list[dict[str, Any]]) -> dict[str, str]:
    """How the rounds ended: a valid "Sign!", an invalid one, or a draw (the deck ran out)."""
    outcomes: Counter[str] = Counter(
        event["outcome"] for state in final_states for event in state["log"] if event["type"] == "round_end"
    )
    total = sum(outcomes.values())
    if not total:
        return {}
    refreshes = sum(1 for state in final_states for event in state["log"] if event["type"] == "refresh")
    return {
        "rounds ending with a valid Sign!": f"{outcomes['valid'] / total:.1%}",
        "rounds ending with an invalid Sign!": f"{outcomes['invalid'] / total:.1%}",
        "rounds ending in a draw (deck ran out)": f"{outcomes['draw'] / total:.1%}",
        "table refreshes per round": f"{refreshes / total:.2f}",
    }
