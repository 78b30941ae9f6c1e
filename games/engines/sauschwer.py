"""Sauschwer: objects go onto a beam scale; whoever judges the heavier side scores.

Each player has three object cards face up (names public, weights on the back hidden from
everyone). In turn, a player puts a card on the side without Helmut the pig and sets Helmut on
the side they think heavier; anyone else may doubt ("Stop!"). At the end of a round everybody
shows a pig-cheek marker (Schweinebacke) for the heavier side, then the weights are revealed.
See docs/engines.md for the project's rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.engines.base import (
    Action,
    IllegalAction,
    State,
    check_options,
    check_players,
    check_stack,
    dispatch,
    keep_rng,
    log,
    new_rng_state,
    next_player,
    plain_copy,
    rng_of,
    stacked_pile,
    top_scorers,
)

SLUG = "sauschwer"
MIN_PLAYERS = 2
MAX_PLAYERS = 8

PILES = ("cards",)
OPTIONS = ("stack", "first_player", "opening_side", "rounds", "target_points", "max_cards")
SIDES = ("red", "violet")
# Moves every player makes at the same time, each for their own seat, that no other player's
# move of these kinds changes (the markers are hidden until all are in): the play mode applies
# one sent while another seat's such move came in (games/moves.py), instead of "too late".
SIMULTANEOUS = ("marker",)
HAND_SIZE = 3
ROUNDS = 6
TARGET_POINTS = 20
MAX_CARDS = 8


def other_side(side: str) -> str:
    return SIDES[1] if side == SIDES[0] else SIDES[0]


# --- setup -------------------------------------------------------------------------------


def setup(
    players: Sequence[str],
    content: Mapping[str, Any],
    *,
    seed: int | str,
    options: Mapping[str, Any] | None = None,
) -> State:
    players = check_players(players, MIN_PLAYERS, MAX_PLAYERS)
    options = check_options('Sauschwer', options, OPTIONS)
    cards = _body(content)["cards"]
    if len(cards) < HAND_SIZE * len(players) + 1:
        raise ValueError(f"{len(players)} players need at least {HAND_SIZE * len(players) + 1} cards.")
    stack = options.get("stack")
    check_stack(stack, PILES)
    first = options.get("first_player", players[0])
    if first not in players:
        raise ValueError(f"The first player {first!r} is not a player.")
    opening_side = options.get("opening_side")
    if opening_side is not None and opening_side not in SIDES:
        raise ValueError(f"The opening side is red or violet, not {opening_side!r}.")
    state: State = {
        "game": SLUG,
        "players": players,
        "scores": {player: 0 for player in players},
        "rounds": _positive(options, "rounds", ROUNDS),
        "target_points": _positive(options, "target_points", TARGET_POINTS),
        "max_cards": _positive(options, "max_cards", MAX_CARDS, minimum=2),
        "opening_side": opening_side,
        # Names and weights never change: copies of the state share these two dicts.
        "names": {card["key"]: card["name"] for card in cards},
        "weights": {card["key"]: card["weight_g"] for card in cards},
        "hands": {},
        "scale": [],
        "helmut": None,
        "active": None,
        "last_placer": None,
        "doubter": None,
        "markers": {},
        "round": 0,
        "out": [],  # cards weighed in earlier rounds
        "phase": "place",
        "winners": None,
        "log": [],
        "rng": new_rng_state(seed),
    }
    pile = stacked_pile(state, "cards", [card["key"] for card in cards], stack)
    # Three cards at a time, in seating order.
    state["hands"] = {p: pile[HAND_SIZE * n : HAND_SIZE * (n + 1)] for n, p in enumerate(players)}
    state["pile"] = pile[HAND_SIZE * len(players) :]
    log(state, "dealt", hands={p: list(hand) for p, hand in state["hands"].items()})
    _start_round(state, first)
    return state


def _body(content: Mapping[str, Any]) -> Mapping[str, Any]:
    if content.get("game", SLUG) != SLUG:
        raise ValueError(f"This is a content pack for {content.get('game')!r}, not {SLUG!r}.")
    body: Mapping[str, Any] = content.get("body", content)
    return body


def _positive(options: Mapping[str, Any], name: str, default: int, *, minimum: int = 1) -> int:
    value = options.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"Option {name} is a whole number of at least {minimum}, not {value!r}.")
    return value


# --- rounds ------------------------------------------------------------------------------


def _start_round(state: State, starter: str) -> None:
    """Put the opening card on the opening side with Helmut; the starter (or the next player
    clockwise who still holds a card) places first. No card to open with, or nobody with a card
    to place: the game ends."""
    active = _holder_from(state, starter)
    if not state["pile"] or active is None:
        log(state, "game_ended", reason="cards_exhausted")
        _end_game(state)
        return
    side = state["opening_side"]
    if side is None:
        rng = rng_of(state)
        side = rng.choice(SIDES)
        keep_rng(state, rng)
    opening, state["pile"] = state["pile"][0], state["pile"][1:]
    state["round"] += 1
    state["scale"] = [{"card": opening, "side": side}]
    state["helmut"] = side
    state["active"] = active
    state["last_placer"] = None
    state["doubter"] = None
    state["markers"] = {}
    state["phase"] = "place"
    log(state, "round_started", round=state["round"], card=opening, side=side, player=active)


def _holder_from(state: State, player: str) -> str | None:
    """``player`` or the first player clockwise from them who holds a card."""
    for _ in state["players"]:
        if state["hands"][player]:
            return player
        player = next_player(state["players"], player)
    return None


def _end_placing(state: State, reason: str) -> None:
    state["phase"] = "markers"
    state["active"] = None
    log(state, "reveal_called", reason=reason, doubter=state["doubter"])


def _reveal(state: State) -> None:
    """All markers are in: weigh both sides, score, and start the next round or end the game."""
    totals = {side: 0 for side in SIDES}
    weights = state["weights"]
    for placed in state["scale"]:
        totals[placed["side"]] += weights[placed["card"]]
    heavier = None if totals["red"] == totals["violet"] else max(SIDES, key=totals.__getitem__)
    points = _points(state, heavier)
    for player, gain in points.items():
        state["scores"][player] += gain
    log(
        state,
        "revealed",
        round=state["round"],
        weights={placed["card"]: weights[placed["card"]] for placed in state["scale"]},
        totals=totals,
        heavier=heavier,
        helmut=state["helmut"],
        markers=dict(state["markers"]),
        last_placer=state["last_placer"],
        doubter=state["doubter"],
        points=points,
    )
    state["out"] = [*state["out"], *(placed["card"] for placed in state["scale"])]
    state["scale"] = []
    state["markers"] = {}
    if state["round"] >= state["rounds"]:
        log(state, "game_ended", reason="rounds")
        _end_game(state)
    elif max(state["scores"].values()) >= state["target_points"]:
        log(state, "game_ended", reason="target_points")
        _end_game(state)
    else:
        _start_round(state, next_player(state["players"], state["last_placer"]))


def _points(state: State, heavier: str | None) -> dict[str, int]:
    """Each correct marker scores the number of wrong ones; the doubter ±1. Equal weights:
    nobody scores."""
    if heavier is None:
        return {}
    markers = state["markers"]
    right = [player for player in state["players"] if markers[player] == heavier]
    wrong = len(markers) - len(right)
    points = {player: wrong for player in right if wrong}
    doubter = state["doubter"]
    if doubter is not None:
        bonus = 1 if state["helmut"] != heavier else -1
        points[doubter] = points.get(doubter, 0) + bonus
    return points


def _end_game(state: State) -> None:
    state["phase"] = "over"
    state["active"] = None
    state["winners"] = top_scorers(state["scores"])


def forced_marker(state: State, player: str) -> str | None:
    """The side the last placer (Helmut's side) or the doubter (the other side) must show."""
    if player == state["last_placer"]:
        return str(state["helmut"])
    if player == state["doubter"]:
        return other_side(state["helmut"])
    return None


# --- actions -----------------------------------------------------------------------------


def legal_actions(state: State, player: str) -> list[Action]:
    phase = state["phase"]
    if player not in state["scores"]:
        return []
    if phase == "place":
        actions: list[Action] = []
        if player == state["active"]:
            actions += [
                {"type": "place", "card": card, "helmut": side}
                for card in state["hands"][player]
                for side in SIDES
            ]
        if state["last_placer"] is not None and player != state["last_placer"]:
            actions.append({"type": "stop"})
        return actions
    if phase == "markers" and player not in state["markers"]:
        forced = forced_marker(state, player)
        return [{"type": "marker", "side": side} for side in SIDES if forced in (None, side)]
    return []


def apply(state: State, player: str, action: Action) -> State:
    return dispatch(state, player, action, _HANDLERS, 'Sauschwer', _copy)


def _copy(state: State) -> State:
    """A copy to change. ``pile``, ``scale``, ``out`` and the hands' lists are replaced, never
    changed in place; ``names``, ``weights`` and the log's events never change."""
    new = dict(state)
    new["scores"] = dict(state["scores"])
    new["hands"] = dict(state["hands"])
    new["markers"] = dict(state["markers"])
    new["log"] = list(state["log"])
    return new


def _place(state: State, player: str, action: Action) -> None:
    if state["phase"] != "place":
        raise IllegalAction("The round is over: show your marker.")
    if player != state["active"]:
        raise IllegalAction(f"It is {state['active']}'s turn to place a card.")
    card, helmut = action.get("card"), action.get("helmut")
    if card not in state["hands"][player]:
        raise IllegalAction("Place one of your own cards.")
    if helmut not in SIDES:
        raise IllegalAction("Set Helmut on the red or the violet side.")
    side = other_side(state["helmut"])
    state["scale"] = [*state["scale"], {"card": card, "side": side}]
    hand = [key for key in state["hands"][player] if key != card]
    if state["pile"]:
        hand.append(state["pile"][0])
        state["pile"] = state["pile"][1:]
    state["hands"][player] = hand
    state["helmut"] = helmut
    state["last_placer"] = player
    log(state, "placed", player=player, card=card, side=side, helmut=helmut)
    if len(state["scale"]) >= state["max_cards"]:
        _end_placing(state, "full")
        return
    active = _holder_from(state, next_player(state["players"], player))
    if active is None:
        _end_placing(state, "no_cards")
    else:
        state["active"] = active


def _stop(state: State, player: str, action: Action) -> None:
    if state["phase"] != "place":
        raise IllegalAction("The round is already over.")
    if state["last_placer"] is None:
        raise IllegalAction("Nothing has been placed yet this round.")
    if player == state["last_placer"]:
        raise IllegalAction("You cannot doubt your own placement.")
    state["doubter"] = player
    log(state, "stopped", player=player)
    _end_placing(state, "stop")


def _marker(state: State, player: str, action: Action) -> None:
    if state["phase"] != "markers":
        raise IllegalAction("Markers are shown only at the end of a round.")
    if player in state["markers"]:
        raise IllegalAction("Your marker is already in.")
    side = action.get("side")
    if side not in SIDES:
        raise IllegalAction("Your marker shows red or violet.")
    forced = forced_marker(state, player)
    if forced is not None and side != forced:
        role = "placed the last card" if player == state["last_placer"] else "doubted"
        raise IllegalAction(f"You {role}: your marker must show {forced}.")
    state["markers"][player] = side
    log(state, "marker_in", player=player)
    if len(state["markers"]) == len(state["players"]):
        _reveal(state)


_HANDLERS = {"place": _place, "stop": _stop, "marker": _marker}


# --- what players see --------------------------------------------------------------------


def view(state: State, player: str | None, *, with_log: bool = True) -> dict[str, Any]:
    """Names, hands and the scale are public; weights appear only in the log's reveals;
    a marker is seen by its owner until all are in."""
    names = state["names"]
    seen: dict[str, Any] = {
        "game": SLUG,
        "players": list(state["players"]),
        "scores": dict(state["scores"]),
        "phase": state["phase"],
        "round": state["round"],
        "rounds": state["rounds"],
        "target_points": state["target_points"],
        "max_cards": state["max_cards"],
        "hands": {
            p: [{"card": key, "name": names[key]} for key in hand] for p, hand in state["hands"].items()
        },
        "scale": [
            {"card": placed["card"], "name": names[placed["card"]], "side": placed["side"]}
            for placed in state["scale"]
        ],
        "helmut": state["helmut"],
        "active": state["active"],
        "last_placer": state["last_placer"],
        "doubter": state["doubter"],
        "markers_in": [p for p in state["players"] if p in state["markers"]],
        "pile": len(state["pile"]),
        "result": result(state),
        "you": player,
    }
    if with_log:
        seen["log"] = plain_copy(state["log"])
    if player in state["markers"]:
        seen["your_marker"] = state["markers"][player]
    return seen


def result(state: State) -> dict[str, Any] | None:
    if state["phase"] != "over":
        return None
    return {"scores": dict(state["scores"]), "winners": list(state["winners"])}
