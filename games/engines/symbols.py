"""Sag's mit Symbolen: hint givers mark symbols until the candidate finds the secret concept.

One round: eight concept cards lie on the board's slots 1..8, a number card (hidden from the
candidate) names the slot of the secret concept. The hint givers, in turn clockwise from the
candidate's left, each place a marker on a symbol; after each hint the candidate (Kandidat)
removes a card they think wrong or attempts a solution. See docs/engines.md for the project's rules.

Replacing a card (Game Preparation): "if a concept is drawn which no player can explain, it is
discarded and a replacement is drawn. Likewise a substitution is made for a card such as 'green
player' if no player is using the green cylinder." The rulebook allows it only for a card as it
is drawn, before play; it sets no number. The project's limits (docs/engines.md): only before the
round's first hint, only a card drawn for this round (not one left from an earlier round, not a
replacement: "a replacement is drawn", and it stands), each player at most once a round, and
never a card the next round could need (the pile keeps at least ``SLOTS`` cards).
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
    log,
    new_rng_state,
    next_player,
    plain_copy,
    shuffled,
    stacked_pile,
    top_scorers,
)

SLUG = "symbols"
MIN_PLAYERS = 3
MAX_PLAYERS = 6

PILES = ("concepts", "numbers")
OPTIONS = ("stack", "first_candidate", "goal", "grey_markers", "symbols")
SLOTS = 8
NUMBERS = tuple(range(1, SLOTS + 1))
MAX_MARKERS = 7  # also the most cards a round can remove: then one card is left
GREY_MARKERS = 2
MARKERS = ("green", "grey")
GOAL = 35
GOAL_FIVE_OR_SIX = 27
WRONG_POINTS = 3  # for everyone but the candidate and the hint giver
REPLACEMENTS_PER_PLAYER = 1  # a round: a card nobody can explain is the exception


# --- setup -------------------------------------------------------------------------------


def setup(
    players: Sequence[str],
    content: Mapping[str, Any],
    *,
    seed: int | str,
    options: Mapping[str, Any] | None = None,
) -> State:
    players = check_players(players, MIN_PLAYERS, MAX_PLAYERS)
    options = check_options("Sag's mit Symbolen", options, OPTIONS)
    body = _body(content)
    concepts = [card["key"] for card in body["concepts"]]
    stack = options.get("stack")
    check_stack(stack, PILES)
    first = options.get("first_candidate", players[0])
    if first not in players:
        raise ValueError(f"The first candidate {first!r} is not a player.")
    state: State = {
        "game": SLUG,
        "players": players,
        "scores": {player: 0 for player in players},
        "goal": _goal(options, len(players)),
        "grey_markers": _flag(options, "grey_markers"),
        "symbols": _board_symbols(body, options.get("symbols")),
        "numbers": _stacked_numbers((stack or {}).get("numbers", [])),
        "board": [None] * SLOTS,
        "out": [],  # removed and solution cards: they leave the game
        "discarded": [],  # replaced cards
        "round": 0,
        "candidate": first,
        "secret": None,
        "markers": [],
        "hint_giver": None,
        "last_hint_giver": None,
        "removals": 0,
        "drawn": [],  # slots filled this round and not replaced yet: the cards that may be replaced
        "replaced_by": [],  # players who replaced a card this round
        "phase": "hint",
        "winners": None,
        "log": [],
        "rng": new_rng_state(seed),
    }
    state["concepts"] = stacked_pile(state, "concepts", concepts, stack)
    _start_round(state)
    return state


def _body(content: Mapping[str, Any]) -> Mapping[str, Any]:
    if content.get("game", SLUG) != SLUG:
        raise ValueError(f"This is a content pack for {content.get('game')!r}, not {SLUG!r}.")
    body: Mapping[str, Any] = content.get("body", content)
    return body


def _goal(options: Mapping[str, Any], n_players: int) -> int:
    goal = options.get("goal", GOAL_FIVE_OR_SIX if n_players >= 5 else GOAL)
    if not isinstance(goal, int) or isinstance(goal, bool) or goal < 1:
        raise ValueError(f"The goal is a positive whole number, not {goal!r}.")
    return goal


def _flag(options: Mapping[str, Any], name: str) -> bool:
    value = options.get(name, False)
    if not isinstance(value, bool):
        raise ValueError(f"Option {name} is true or false, not {value!r}.")
    return value


def _board_symbols(body: Mapping[str, Any], chosen: Any) -> list[str]:
    """The symbols on the board: the base tiles, or the ones chosen for the extra-tiles variant.

    Each extra tile covers a base tile, so a chosen board has as many symbols as the base one.
    """
    tiles = sorted(body["symbols"], key=lambda tile: tile.get("position", 0))
    base = [tile["key"] for tile in tiles if not tile.get("extra", False)]
    if chosen is None:
        symbols = base
    else:
        known = {tile["key"] for tile in tiles}
        if not isinstance(chosen, list) or not all(isinstance(key, str) for key in chosen):
            raise ValueError("Option symbols is a list of symbol keys.")
        unknown = [key for key in chosen if key not in known]
        if unknown:
            raise ValueError(f"Option symbols: unknown symbols {', '.join(unknown)}.")
        if len(set(chosen)) != len(chosen):
            raise ValueError("Option symbols: a symbol is on the board twice.")
        if len(chosen) != len(base):
            raise ValueError(
                f"Option symbols: the board has {len(base)} symbol spaces, not {len(chosen)} "
                "(each extra tile covers a base tile)."
            )
        symbols = list(chosen)
    if len(symbols) < MAX_MARKERS:
        raise ValueError(f"The board needs at least {MAX_MARKERS} symbols, not {len(symbols)}.")
    return symbols


def _stacked_numbers(numbers: Any) -> list[int]:
    if not isinstance(numbers, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n in NUMBERS for n in numbers
    ):
        raise ValueError(f"Stacked numbers: the number cards are 1 to {SLOTS}, got {numbers!r}.")
    return list(numbers)


# --- rounds ------------------------------------------------------------------------------


def _start_round(state: State) -> None:
    """Refill the board in slot order, draw the number card; or end the game if it cannot."""
    board = state["board"]
    empty = [slot for slot in range(SLOTS) if board[slot] is None]
    if len(empty) > len(state["concepts"]):
        log(state, "game_ended", reason="concepts_exhausted")
        _end_game(state, top_scorers(state["scores"]))
        return
    pile = state["concepts"]
    state["drawn"] = [slot + 1 for slot in empty]
    state["replaced_by"] = []
    for slot in empty:
        board[slot] = pile[0]
        pile = pile[1:]
    state["concepts"] = pile
    if state["numbers"]:
        state["secret"], state["numbers"] = state["numbers"][0], state["numbers"][1:]
    else:
        state["secret"] = shuffled(state, NUMBERS)[0]  # the eight number cards, reshuffled
    state["round"] += 1
    state["markers"] = []
    state["removals"] = 0
    state["hint_giver"] = _next_hint_giver(state, state["candidate"])
    state["last_hint_giver"] = None
    state["phase"] = "hint"
    log(state, "round_started", round=state["round"], candidate=state["candidate"])


def _next_hint_giver(state: State, after: str) -> str:
    """The next player clockwise after ``after``, skipping the candidate."""
    player = next_player(state["players"], after)
    if player == state["candidate"]:
        player = next_player(state["players"], player)
    return player


def _end_round(state: State, outcome: str, points: dict[str, int], solution: str) -> None:
    """Score, send the solution card out of the game, and start the next round at once."""
    secret = state["secret"]
    if state["board"][secret - 1] is not None:  # a removed solution card has already left
        state["board"][secret - 1] = None
        state["out"] = [*state["out"], solution]
    log(
        state,
        "round_ended",
        round=state["round"],
        outcome=outcome,
        secret=secret,
        solution=solution,
        points=points,
    )
    state["secret"] = None
    if _score(state, points):
        return
    state["candidate"] = next_player(state["players"], state["candidate"])
    _start_round(state)


def _score(state: State, points: dict[str, int]) -> bool:
    """Add points, capped at the goal; end the game (True) when someone reaches it."""
    goal = state["goal"]
    scores = state["scores"]
    for player, gain in points.items():
        scores[player] = min(scores[player] + gain, goal)
    at_goal = [player for player in state["players"] if scores[player] >= goal]
    if at_goal:
        log(state, "game_ended", reason="goal")
        _end_game(state, at_goal)
        return True
    return False


def _end_game(state: State, winners: list[str]) -> None:
    state["phase"] = "over"
    state["winners"] = winners
    state["hint_giver"] = None


def _three_for_the_others(state: State, hint_giver: str) -> dict[str, int]:
    excluded = {state["candidate"], hint_giver}
    return {player: WRONG_POINTS for player in state["players"] if player not in excluded}


# --- actions -----------------------------------------------------------------------------


def legal_actions(state: State, player: str) -> list[Action]:
    phase = state["phase"]
    actions: list[Action] = []
    if phase == "hint":
        if player == state["hint_giver"]:
            actions += _hints(state)
        actions += [{"type": "replace", "slot": slot} for slot in replaceable(state, player)]
    elif phase == "decide" and player == state["candidate"]:
        slots = _occupied(state)
        actions += [{"type": "remove", "slot": slot} for slot in slots]
        actions += [{"type": "guess", "slot": slot} for slot in slots]
    return actions


def replaceable(state: State, player: str) -> list[int]:
    """The slots whose card ``player`` may replace now (empty when none).

    Rulebook, Game Preparation: "if a concept is drawn which no player can explain, it is
    discarded and a replacement is drawn." So only before the round's first hint and only a card
    drawn for this round; the replacement stands. The project's limits where the rulebook is
    silent (docs/engines.md): each player once a round, and only while the pile keeps enough
    cards to refill a whole board next round.
    """
    if state["phase"] != "hint" or state["markers"] or player not in state["scores"]:
        return []
    if state.get("replaced_by", []).count(player) >= REPLACEMENTS_PER_PLAYER:
        return []
    if len(state["concepts"]) <= SLOTS:
        return []
    return list(state.get("drawn", []))  # a state saved before the limits: no replacements


def _hints(state: State) -> list[Action]:
    markers = state["markers"]
    if len(markers) >= MAX_MARKERS:
        return []
    marked = {marker["symbol"] for marker in markers}
    colours = ["green"]
    if state["grey_markers"] and _grey_left(state):
        colours.append("grey")
    return [
        {"type": "hint", "symbol": symbol, "marker": colour}
        for symbol in state["symbols"]
        if symbol not in marked
        for colour in colours
    ]


def _grey_left(state: State) -> int:
    return GREY_MARKERS - sum(1 for marker in state["markers"] if marker["marker"] == "grey")


def _occupied(state: State) -> list[int]:
    return [slot for slot, card in enumerate(state["board"], start=1) if card is not None]


def apply(state: State, player: str, action: Action) -> State:
    return dispatch(state, player, action, _HANDLERS, "Sag's mit Symbolen", _copy)


def _copy(state: State) -> State:
    """A copy to change: the containers an action changes are copied, the rest is shared.

    ``rng``, ``concepts``, ``out``, ``discarded``, ``numbers``, ``markers``, ``drawn`` and
    ``replaced_by`` are replaced,
    never changed in place; log events are never changed once written.
    """
    new = dict(state)
    new["scores"] = dict(state["scores"])
    new["board"] = list(state["board"])
    new["log"] = list(state["log"])
    return new


def _hint(state: State, player: str, action: Action) -> None:
    if state["phase"] != "hint":
        raise IllegalAction("The candidate decides now: remove a card or attempt a solution.")
    if player != state["hint_giver"]:
        raise IllegalAction(f"It is {state['hint_giver']}'s turn to give a hint.")
    symbol, colour = action.get("symbol"), action.get("marker")
    if colour not in MARKERS or (colour == "grey" and not state["grey_markers"]):
        raise IllegalAction("Place a green marker" + (" or a grey one." if state["grey_markers"] else "."))
    if colour == "grey" and not _grey_left(state):
        raise IllegalAction("Both grey markers are on the board already.")
    if len(state["markers"]) >= MAX_MARKERS:
        raise IllegalAction(f"All {MAX_MARKERS} markers are on the board.")
    if symbol not in state["symbols"]:
        raise IllegalAction(f"There is no symbol {symbol!r} on the board.")
    if any(marker["symbol"] == symbol for marker in state["markers"]):
        raise IllegalAction("That symbol already has a marker this round.")
    state["markers"] = [*state["markers"], {"symbol": symbol, "marker": colour, "player": player}]
    state["last_hint_giver"] = player
    state["phase"] = "decide"
    log(state, "hint", player=player, symbol=symbol, marker=colour)


def _candidate_slot(state: State, player: str, action: Action) -> int:
    if player != state["candidate"]:
        raise IllegalAction("Only the candidate removes cards and attempts solutions.")
    if state["phase"] != "decide":
        raise IllegalAction("Wait for the next hint.")
    return _slot(state, action)


def _slot(state: State, action: Action) -> int:
    slot = action.get("slot")
    if not isinstance(slot, int) or isinstance(slot, bool) or not 1 <= slot <= SLOTS:
        raise IllegalAction(f"A slot is a number from 1 to {SLOTS}.")
    if state["board"][slot - 1] is None:
        raise IllegalAction(f"There is no card on slot {slot}.")
    return slot


def _remove(state: State, player: str, action: Action) -> None:
    slot = _candidate_slot(state, player, action)
    card = state["board"][slot - 1]
    state["board"][slot - 1] = None
    state["out"] = [*state["out"], card]
    state["removals"] += 1
    hint_giver = state["last_hint_giver"]
    log(state, "removed", player=player, slot=slot, card=card)
    if slot == state["secret"]:
        _end_round(state, "solution_removed", _three_for_the_others(state, hint_giver), card)
    elif state["removals"] == MAX_MARKERS:
        # One card is left: it counts as a correct solution worth one point, scored after the
        # hint giver's point for this removal. If that point reaches the goal the game is over
        # at once and the last card's point is wasted (End of the Game).
        last_card = state["board"][state["secret"] - 1]
        points = {hint_giver: 1}
        if state["scores"][hint_giver] + 1 < state["goal"]:
            points[state["candidate"]] = 1
        _end_round(state, "last_card", points, last_card)
    else:
        _score_hint(state, hint_giver)


def _score_hint(state: State, hint_giver: str) -> None:
    log(state, "scored", points={hint_giver: 1})
    if not _score(state, {hint_giver: 1}):
        state["phase"] = "hint"
        state["hint_giver"] = _next_hint_giver(state, hint_giver)


def _guess(state: State, player: str, action: Action) -> None:
    slot = _candidate_slot(state, player, action)
    log(state, "guessed", player=player, slot=slot, card=state["board"][slot - 1])
    solution = state["board"][state["secret"] - 1]
    if slot == state["secret"]:
        cards_left = sum(1 for card in state["board"] if card is not None)
        _end_round(state, "right_solution", {player: cards_left}, solution)
    else:
        points = _three_for_the_others(state, state["last_hint_giver"])
        _end_round(state, "wrong_solution", points, solution)


def _replace(state: State, player: str, action: Action) -> None:
    if state["phase"] != "hint" or state["markers"]:
        raise IllegalAction("Cards can be replaced only before the round's first hint.")
    slot = _slot(state, action)
    if state.get("replaced_by", []).count(player) >= REPLACEMENTS_PER_PLAYER:
        raise IllegalAction("You have replaced a card this round already.")
    if slot not in state.get("drawn", []):
        raise IllegalAction("Only a card drawn for this round can be replaced, and only once.")
    if len(state["concepts"]) <= SLOTS:
        raise IllegalAction("The pile keeps its last cards for the next round: no more replacements.")
    card = state["board"][slot - 1]
    state["board"][slot - 1] = state["concepts"][0]
    state["concepts"] = state["concepts"][1:]
    state["discarded"] = [*state["discarded"], card]
    state["drawn"] = [drawn for drawn in state["drawn"] if drawn != slot]
    state["replaced_by"] = [*state["replaced_by"], player]
    log(state, "replaced", player=player, slot=slot, card=card, new=state["board"][slot - 1])


_HANDLERS = {"hint": _hint, "remove": _remove, "guess": _guess, "replace": _replace}


# --- what players see --------------------------------------------------------------------


def view(state: State, player: str | None, *, with_log: bool = True) -> dict[str, Any]:
    """The public state; hint givers also see the secret slot (never the candidate or table)."""
    seen: dict[str, Any] = {
        "game": SLUG,
        "players": list(state["players"]),
        "scores": dict(state["scores"]),
        "goal": state["goal"],
        "phase": state["phase"],
        "round": state["round"],
        "candidate": state["candidate"],
        "hint_giver": state["hint_giver"] if state["phase"] == "hint" else None,
        "last_hint_giver": state["last_hint_giver"],
        "board": [{"slot": slot, "concept": card} for slot, card in enumerate(state["board"], 1)],
        "symbols": list(state["symbols"]),
        "markers": [dict(marker) for marker in state["markers"]],
        "markers_left": MAX_MARKERS - len(state["markers"]),
        "grey_markers": state["grey_markers"],
        "grey_markers_left": _grey_left(state) if state["grey_markers"] else 0,
        "concepts_left": len(state["concepts"]),
        "out": len(state["out"]),
        "discarded": list(state["discarded"]),
        "result": result(state),
        "you": player,
    }
    if with_log:
        seen["log"] = plain_copy(state["log"])
    if player in state["scores"] and player != state["candidate"] and state["secret"] is not None:
        seen["secret"] = state["secret"]
    return seen


def result(state: State) -> dict[str, Any] | None:
    if state["phase"] != "over":
        return None
    return {"scores": dict(state["scores"]), "winners": list(state["winners"])}
