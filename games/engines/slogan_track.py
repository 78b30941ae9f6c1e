"""Slogan's track and Spießer Alfons: the spaces and career levels, moving along them (a prize
at each new level), chips between players and the bank, and the effects of an Alfons card.
Pure Python, no Django; games/engines/slogan.py plays them.
"""

from __future__ import annotations

from typing import Any

from games.engines.base import (
    State,
    keep_rng,
    log,
    rng_of,
)

START = 0
GOAL = 37
LEVEL_SPACES = 6
GOAL_LEVEL = 7


def career_level(space: int) -> int:
    """0 on the start, 1..6 on the career levels (six spaces each), 7 on the goal."""
    if space <= START:
        return 0
    if space >= GOAL:
        return GOAL_LEVEL
    return (space - 1) // LEVEL_SPACES + 1


def first_space_of(level: int) -> int:
    return (level - 1) * LEVEL_SPACES + 1


# --- the track ------------------------------------------------------------------------------


def move_to(state: State, player: str, space: int, *, cause: str) -> None:
    """Move a piece (stopping at the start and the goal) and pay a career prize for climbing."""
    old = state["positions"][player]
    new = min(max(space, START), GOAL)
    state["positions"][player] = new
    log(state, "move", turn=state["turn"], player=player, start=old, end=new, cause=cause)
    _career_prize(state, player, old, new)


def _career_prize(state: State, player: str, old: int, new: int) -> None:
    """Entering a higher level (2..6 or the goal) pays one chip per player strictly behind.

    A jump over several levels pays only the highest; falling back pays nothing.
    """
    level = career_level(new)
    if level <= career_level(old) or level < 2:
        return
    behind = sum(1 for p, space in state["positions"].items() if p != player and space < new)
    state["scores"][player] += behind
    log(state, "career_prize", turn=state["turn"], player=player, level=level, chips=behind)


# --- Spießer Alfons -------------------------------------------------------------------------


def spiesser_alfons(state: State, player: str, card: str) -> None:
    entry = state["catalogue"]["alfons"][card]
    effect = entry["effect"]
    at = len(state["log"])
    carried_out = ALFONS_EFFECTS[effect["kind"]](state, player, effect)
    state["log"].insert(
        at,
        {
            "type": "alfons",
            "turn": state["turn"],
            "player": player,
            "card": card,
            "text": entry["text"],
            "effect": dict(effect),
            "void": not carried_out,
        },
    )


def _alfons_move(state: State, player: str, effect: dict[str, Any]) -> bool:
    return _alfons_move_to(state, player, state["positions"][player] + effect["amount"])


def _alfons_move_to(state: State, player: str, space: int) -> bool:
    space = min(max(space, START), GOAL)
    if space == state["positions"][player]:
        return False
    move_to(state, player, space, cause="alfons")
    return True


def _alfons_chips(state: State, player: str, effect: dict[str, Any]) -> bool:
    amount = effect["amount"]
    if amount >= 0:
        return _transfer(state, None, player, amount) > 0
    return _transfer(state, player, None, -amount) > 0


def _alfons_pay_each(state: State, player: str, effect: dict[str, Any]) -> bool:
    # A player who runs short pays the others in clockwise order while chips last.
    others = clockwise_from(state["players"], player)[1:]
    return sum(_transfer(state, player, other, effect["amount"]) for other in others) > 0


def _alfons_collect_each(state: State, player: str, effect: dict[str, Any]) -> bool:
    others = clockwise_from(state["players"], player)[1:]
    return sum(_transfer(state, other, player, effect["amount"]) for other in others) > 0


def _alfons_swap(state: State, player: str, effect: dict[str, Any]) -> bool:
    candidates = swap_candidates(state, player, effect["target"])
    if not candidates:
        return False
    if len(candidates) == 1:
        partner = candidates[0]
    else:
        rng = rng_of(state)
        partner = rng.choice(candidates)
        keep_rng(state, rng)
    positions = state["positions"]
    mine, theirs = positions[player], positions[partner]
    positions[player], positions[partner] = theirs, mine
    log(state, "swap", turn=state["turn"], player=player, partner=partner, start=mine, end=theirs)
    _career_prize(state, player, mine, theirs)
    _career_prize(state, partner, theirs, mine)
    return True


def swap_candidates(state: State, player: str, target: str) -> list[str]:
    """The pieces a swap may go to; empty when the swap would change nothing (void)."""
    positions: dict[str, int] = state["positions"]
    mine = positions[player]
    others = {p: space for p, space in positions.items() if p != player}
    if target == "leader":
        best = max(others.values())
        return [p for p, space in others.items() if space == best] if best > mine else []
    if target == "last":
        worst = min(others.values())
        return [p for p, space in others.items() if space == worst] if worst < mine else []
    # "next": the nearest piece on another space, ahead or behind.
    distances = {p: abs(space - mine) for p, space in others.items() if space != mine}
    if not distances:
        return []
    nearest = min(distances.values())
    return [p for p, distance in distances.items() if distance == nearest]


def _alfons_overtake(state: State, player: str, effect: dict[str, Any]) -> bool:
    mine = state["positions"][player]
    ahead = [space for p, space in state["positions"].items() if p != player and space > mine]
    if not ahead:
        return False
    return _alfons_move_to(state, player, min(ahead) + 1)


def _alfons_to_start(state: State, player: str, effect: dict[str, Any]) -> bool:
    return _alfons_move_to(state, player, START)


def _alfons_to_level(state: State, player: str, effect: dict[str, Any]) -> bool:
    return _alfons_move_to(state, player, first_space_of(effect["amount"]))


ALFONS_EFFECTS = {
    "move": _alfons_move,
    "chips": _alfons_chips,
    "pay_each": _alfons_pay_each,
    "collect_each": _alfons_collect_each,
    "swap": _alfons_swap,
    "overtake": _alfons_overtake,
    "to_start": _alfons_to_start,
    "to_level": _alfons_to_level,
}


def _transfer(state: State, payer: str | None, payee: str | None, amount: int) -> int:
    """Chips from a player (or the unlimited bank: None) to a player (or the bank).

    A player pays at most what they have; the payee bears the loss. Returns the chips moved.
    """
    if payer is not None:
        amount = min(amount, state["scores"][payer])
        state["scores"][payer] -= amount
    if payee is not None:
        state["scores"][payee] += amount
    if amount:
        log(state, "chips", turn=state["turn"], payer=payer, payee=payee, amount=amount)
    return amount


def clockwise_from(players: list[str], player: str) -> list[str]:
    seat = players.index(player)
    return players[seat:] + players[:seat]
