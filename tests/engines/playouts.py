"""Helpers for the engines' property tests: random legal games and the checks at each step."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import pytest

from games.engines import IllegalAction

State = dict[str, Any]
Move = tuple[str, dict[str, Any]]

JUNK_ACTIONS: list[Any] = [
    None,
    "hint",
    [],
    {},
    {"type": None},
    {"type": "no-such-action"},
    {"type": 7},
]


def dumped(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def legal_moves(engine: ModuleType, state: State) -> list[Move]:
    return [(player, action) for player in state["players"] for action in engine.legal_actions(state, player)]


def pick_move(rng: random.Random, moves: list[Move]) -> Move:
    """A move chosen first by action type, then among that type: rare types are not drowned
    out by common ones (a Sag's mit Symbolen board offers 8 replacements to every player).

    The choices come from a generator seeded by Hypothesis: one drawn number per game keeps
    long games inside Hypothesis's data budget."""
    types = sorted({action["type"] for _, action in moves})
    kind = rng.choice(types)
    return rng.choice([move for move in moves if move[1]["type"] == kind])


def check_step(engine: ModuleType, state: State, player: str, action: dict[str, Any]) -> State:
    """Apply a legal move, checking the contract around it; returns the new state."""
    before = dumped(state)
    new = engine.apply(state, player, action)
    assert dumped(state) == before, "apply changed its argument"
    assert json.loads(dumped(new)) == new, "the new state is not plain JSON data"
    for event in new["log"]:
        assert isinstance(event.get("type"), str)
    return new


def check_rejected(engine: ModuleType, state: State, moves: Iterable[Move]) -> None:
    """Each move, not a legal one now, is refused with IllegalAction and changes nothing."""
    before = dumped(state)
    for player, action in moves:
        with pytest.raises(IllegalAction):
            engine.apply(state, player, action)
    assert dumped(state) == before


def check_legal_accepted(engine: ModuleType, state: State, moves: Iterable[Move]) -> None:
    for player, action in moves:
        engine.apply(state, player, action)


def views(engine: ModuleType, state: State) -> dict[str | None, str]:
    """Every player's serialised view and the table's."""
    return {who: dumped(engine.view(state, who)) for who in [*state["players"], None]}
