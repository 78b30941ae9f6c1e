"""What the four engines share: the illegal-action error, seeded randomness, stacked piles."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

State = dict[str, Any]
Action = dict[str, Any]


class IllegalAction(Exception):
    """An action the rules do not allow now; the message is for the player."""


def new_rng_state(seed: int | str) -> list[Any]:
    """The state of a fresh generator for a seed, as JSON-serialisable data."""
    rng = random.Random(str(seed))
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _dump(state: Any) -> Any:
    if isinstance(state, tuple):
        return [_dump(item) for item in state]
    return state


def _load(data: Any) -> Any:
    if isinstance(data, list):
        return tuple(_load(item) for item in data)
    return data


def rng_of(state: State) -> random.Random:
    """The game's generator, restored from the state (use, then store with ``keep_rng``)."""
    rng = random.Random()
    data = state["rng"]
    if len(data) == 3 and isinstance(data[1], list):
        # The Mersenne Twister's (version, 625 ints, gauss) shape, restored without a
        # function call per int: the engines restore it once or twice per round.
        rng.setstate((data[0], tuple(data[1]), data[2]))
    else:
        rng.setstate(_load(data))
    return rng


def keep_rng(state: State, rng: random.Random) -> None:
    """Store the generator's state in the game state (a new list: copies may share the old)."""
    version, internal, gauss = rng.getstate()
    state["rng"] = [version, list(internal), gauss]


def shuffled(state: State, items: Sequence[Any]) -> list[Any]:
    """A shuffled copy of items, drawn from the game's generator (which moves on)."""
    rng = rng_of(state)
    result = list(items)
    rng.shuffle(result)
    keep_rng(state, rng)
    return result


def stacked_pile(
    state: State, pile: str, keys: Sequence[str], stack: dict[str, list[str]] | None
) -> list[str]:
    """A pile: the stacked keys on top in the order given, the rest shuffled by the seed.

    The first element of the returned list is the top card (drawn first).
    """
    stack = stack or {}
    top = list(stack.get(pile, []))
    unknown = [key for key in top if key not in set(keys)]
    if unknown:
        raise ValueError(f"Stacked {pile}: unknown cards {', '.join(map(str, unknown))}.")
    if len(set(top)) != len(top):
        raise ValueError(f"Stacked {pile}: a card is stacked twice.")
    rest = [key for key in keys if key not in set(top)]
    return top + shuffled(state, rest)


def check_stack(stack: dict[str, list[str]] | None, piles: Sequence[str]) -> None:
    for pile in stack or {}:
        if pile not in piles:
            raise ValueError(f"There is no pile '{pile}' to stack; the piles are: {', '.join(piles)}.")


def copy_state(state: State) -> State:
    return copy.deepcopy(state)


_SCALARS = frozenset((str, int, float, bool, type(None)))


def plain_copy(value: Any) -> Any:
    """A copy of JSON data (dicts, lists, scalars): like ``copy.deepcopy``, several times faster."""
    kind = type(value)
    if kind is dict:
        return {key: item if type(item) in _SCALARS else plain_copy(item) for key, item in value.items()}
    if kind is list:
        return [item if type(item) in _SCALARS else plain_copy(item) for item in value]
    return value


def log(state: State, type_: str, **data: Any) -> None:
    state["log"].append({"type": type_, **data})


def next_player(players: Sequence[str], player: str) -> str:
    """The player to the left of ``player``: the next one clockwise in seating order."""
    return players[(players.index(player) + 1) % len(players)]


def top_scorers(scores: dict[str, int]) -> list[str]:
    """Every player with the highest score, in the order of ``scores``."""
    best = max(scores.values())
    return [player for player, score in scores.items() if score == best]


def check_players(players: Sequence[str], minimum: int, maximum: int) -> list[str]:
    players = list(players)
    if len(set(players)) != len(players):
        raise ValueError("Player ids must be distinct.")
    if not minimum <= len(players) <= maximum:
        raise ValueError(f"This game is for {minimum} to {maximum} players, not {len(players)}.")
    if not all(isinstance(p, str) and p for p in players):
        raise ValueError("Player ids are non-empty strings.")
    return players


def check_options(
    game: str, options: Mapping[str, Any] | None, allowed: Sequence[str]
) -> dict[str, Any]:
    """A copy of the options, refusing names the game does not know."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(
            f"{game} has no option {', '.join(unknown)}; the options are: {', '.join(allowed)}."
        )
    return options


def dispatch(
    state: State,
    player: str,
    action: Action,
    handlers: Mapping[str, Callable[[State, str, Action], None]],
    game: str,
    copy_for_change: Callable[[State], State],
) -> State:
    """The common frame of ``apply``: check who acts and what, then change a copy."""
    if player not in state["scores"]:
        raise IllegalAction(f"{player!r} is not playing this game.")
    if state["phase"] == "over":
        raise IllegalAction("The game is over.")
    if not isinstance(action, dict):
        raise IllegalAction("An action is a dict with a type.")
    handler = handlers.get(action.get("type"))  # type: ignore[arg-type]
    if handler is None:
        raise IllegalAction(f"There is no action {action.get('type')!r} in {game}.")
    new = copy_for_change(state)
    handler(new, player, action)
    return new
