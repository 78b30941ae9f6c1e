"""Sag's mit Symbolen test helpers: the rulebook's example game and short ways to write a move."""

from __future__ import annotations

from typing import Any

from games.engines import symbols as engine
from tests.engines.packs import EXAMPLE_BOARD, symbols_pack

PLAYERS = ["Tim", "Sabine", "Frank", "Lisa"]  # seating order, clockwise
NEXT_CARDS = ["apotheke", "arzt", "autobahn"]


def new_game(
    players: list[str] = PLAYERS,
    *,
    board: list[str] = EXAMPLE_BOARD,
    numbers: list[int] | None = None,
    pack: dict[str, Any] | None = None,
    seed: int = 1,
    **options: Any,
) -> dict[str, Any]:
    """A game whose first board is ``board`` (slots 1..8) followed by NEXT_CARDS; the secret is
    slot 4 unless ``numbers`` says otherwise."""
    stack = {"concepts": [*board, *NEXT_CARDS], "numbers": [4] if numbers is None else numbers}
    return engine.setup(players, pack or symbols_pack(), seed=seed, options={"stack": stack, **options})


def play(state: dict[str, Any], *moves: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    for player, action in moves:
        state = engine.apply(state, player, action)
    return state


def hint(symbol: str, marker: str = "green") -> dict[str, Any]:
    return {"type": "hint", "symbol": symbol, "marker": marker}


def remove(slot: int) -> dict[str, Any]:
    return {"type": "remove", "slot": slot}


def guess(slot: int) -> dict[str, Any]:
    return {"type": "guess", "slot": slot}


def replace(slot: int) -> dict[str, Any]:
    return {"type": "replace", "slot": slot}


def concept_on(state: dict[str, Any], slot: int) -> str | None:
    return state["board"][slot - 1]


def last_round(state: dict[str, Any]) -> dict[str, Any]:
    return [event for event in state["log"] if event["type"] == "round_ended"][-1]
