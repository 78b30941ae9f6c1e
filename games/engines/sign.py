"""Sign: teams swap cards with the table and call "Sign!" on a quintet (see docs/engines.md).

A round opens with a check: the table cards lie face down until every player has sent
``{"type": "ready"}`` (phase ``checking``). Then there are no turns: any player may take, drop,
declare done, show the team's sign or call "Sign!" at any time. A round that ends (by a call
or because the deck ran short) deals the next one at once; the log records how it ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.engines.base import (
    Action,
    IllegalAction,
    State,
    check_options,
    check_players,
    check_stack,
    log,
    new_rng_state,
    next_player,
    stacked_pile,
)

SLUG = "sign"
MIN_PLAYERS = 4
MAX_PLAYERS = 9

HAND_SIZE = 5
PILES = ("deck",)
OPTIONS = ("teams", "target_points", "rounds", "first_dealer", "stack")
DEFAULT_TARGET_POINTS = 3
# The rulebook's player table: table cards by number of players.
TABLE_CARDS = {4: 5, 5: 6, 6: 6, 7: 7, 8: 7, 9: 8}
# The team division of the player table when the host names none: seats alternate.
DEFAULT_TEAM_COUNT = {4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 3}
# The rulebook's player table: the team divisions allowed for each number of players.
DIVISIONS: dict[int, list[tuple[int, ...]]] = {
    4: [(2, 2)],
    5: [(3, 2)],
    6: [(3, 3), (2, 2, 2)],
    7: [(4, 3), (3, 2, 2)],
    8: [(4, 4)],
    9: [(3, 3, 3)],
}

HANDLED = ("ready", "take", "drop", "done", "signal", "sign")
# Never changed in place, so new states share them: the pack's data, and the generator's
# state (replaced whole by keep_rng). Past log events are never changed either.
SHARED = ("cards", "rng")


# --- setup -------------------------------------------------------------------------------


def setup(
    players: Sequence[str],
    content: dict[str, Any],
    *,
    seed: int | str,
    options: dict[str, Any] | None = None,
) -> State:
    players = check_players(players, MIN_PLAYERS, MAX_PLAYERS)
    options = check_options('Sign', options, OPTIONS)
    cards = _cards_of(content)
    needed = HAND_SIZE * len(players) + TABLE_CARDS[len(players)]
    if len(cards) < needed:
        raise ValueError(f"{len(players)} players need at least {needed} cards; the pack has {len(cards)}.")
    target_points, rounds = _game_length(options)
    first_dealer = options.get("first_dealer", players[0])
    if first_dealer not in players:
        raise ValueError(f"The first dealer {first_dealer!r} is not a player.")
    stack = options.get("stack")
    check_stack(stack, PILES)
    teams = _teams(players, options.get("teams"))
    state: State = {
        "game": SLUG,
        "players": players,
        "teams": teams,
        "team_scores": [0] * len(teams),
        "scores": {player: 0 for player in players},
        "phase": "checking",
        "round": 0,
        "dealer": first_dealer,
        "target_points": target_points,
        "rounds": rounds,
        "table_size": TABLE_CARDS[len(players)],
        "cards": cards,
        "hands": {},
        "table": [],
        "deck": [],
        "discard": [],
        "bottom_card": None,
        "done": [],
        "ready": [],
        "signals": [],
        "rng": new_rng_state(seed),
        "log": [],
    }
    _deal(state, stack)
    return state


def _cards_of(content: dict[str, Any]) -> dict[str, list[str]]:
    """Card key -> [symbol, colour], from the pack."""
    if content.get("game", SLUG) != SLUG:
        raise ValueError(f"This is a pack of {content.get('game')!r}, not of Sign.")
    body = content.get("body", content)
    cards: dict[str, list[str]] = {}
    for card in body.get("cards", []):
        if card["key"] in cards:
            raise ValueError(f"The card {card['key']} is in the pack twice.")
        cards[card["key"]] = [card["symbol"], card["colour"]]
    return cards


def _game_length(options: dict[str, Any]) -> tuple[int | None, int | None]:
    """(target_points, rounds): exactly one of them is set."""
    rounds = options.get("rounds")
    if rounds is not None:
        if "target_points" in options:
            raise ValueError("Play either to target_points or for a number of rounds, not both.")
        if not _is_int(rounds) or rounds < 1:
            raise ValueError("rounds must be a whole number of at least 1.")
        return None, int(rounds)
    target_points = options.get("target_points", DEFAULT_TARGET_POINTS)
    if not _is_int(target_points) or target_points < 1:
        raise ValueError("target_points must be a whole number of at least 1.")
    return int(target_points), None


def _teams(players: list[str], teams: Any) -> list[list[str]]:
    if teams is None:
        count = DEFAULT_TEAM_COUNT[len(players)]
        return [players[first::count] for first in range(count)]
    if not isinstance(teams, list) or not all(isinstance(team, list) for team in teams):
        raise ValueError("teams is a list of lists of player ids.")
    members = [player for team in teams for player in team]
    if sorted(members) != sorted(players):
        raise ValueError("Every player must be in exactly one team.")
    division = tuple(sorted((len(team) for team in teams), reverse=True))
    allowed = allowed_divisions(len(players))
    if division not in allowed:
        raise ValueError(
            f"With {len(players)} players the teams are {_named(allowed)}, "
            f"not {_named([division])}."
        )
    return [list(team) for team in teams]


def allowed_divisions(players: int) -> list[tuple[int, ...]]:
    """The team divisions the rulebook's player table allows for that many players, largest
    team first (``[]`` for a number of players Sign is not for)."""
    return list(DIVISIONS.get(players, []))


def _named(divisions: Sequence[tuple[int, ...]]) -> str:
    return " or ".join("-".join(map(str, division)) for division in divisions)


def option_warnings(options: dict[str, Any] | None) -> list[str]:
    """Advice for a screen that sets the options: allowed, but the rulebook advises against."""
    warnings = []
    rounds = (options or {}).get("rounds")
    if isinstance(rounds, int) and not isinstance(rounds, bool) and rounds >= 1 and rounds % 2 == 0:
        warnings.append(
            f"An odd number of rounds avoids a draw: with {rounds} rounds a tie is much likelier."
        )
    return warnings


def _deal(state: State, stack: dict[str, list[str]] | None = None) -> None:
    """Shuffle, five cards to each player from the dealer's left, then the table cards.

    A stacked deck applies to the first deal; later rounds shuffle the whole pack.
    """
    state["round"] += 1
    deck = stacked_pile(state, "deck", sorted(state["cards"]), stack)
    for player in _from_left_of(state, state["dealer"]):
        state["hands"][player], deck = deck[:HAND_SIZE], deck[HAND_SIZE:]
    size = state["table_size"]
    state["table"], state["deck"] = deck[:size], deck[size:]
    state["discard"] = []
    state["done"] = []
    state["ready"] = []
    state["signals"] = []
    state["phase"] = "checking"
    state["bottom_card"] = state["deck"][-1] if state["deck"] else None
    # The table cards lie face down: the log names them when they are opened.
    log(
        state,
        "deal",
        round=state["round"],
        dealer=state["dealer"],
        table_count=len(state["table"]),
        bottom_card=state["bottom_card"],
    )


def _from_left_of(state: State, player: str) -> list[str]:
    players: list[str] = state["players"]
    seat = players.index(player)
    return players[seat + 1 :] + players[: seat + 1]


# --- actions -------------------------------------------------------------------------------


def legal_actions(state: State, player: str) -> list[Action]:
    if player not in state["players"]:
        return []
    if state["phase"] == "checking":
        return [] if player in state["ready"] else [{"type": "ready"}]
    if state["phase"] != "swapping":
        return []
    hand: list[str] = state["hands"][player]
    actions: list[Action] = []
    if len(hand) <= HAND_SIZE:
        actions += [{"type": "take", "card": card} for card in state["table"]]
    if len(hand) >= HAND_SIZE:
        actions += [{"type": "drop", "card": card} for card in hand]
    if len(hand) == HAND_SIZE and player not in state["done"]:
        actions.append({"type": "done"})
    if player not in state["signals"]:
        actions.append({"type": "signal"})
    actions += [{"type": "sign", "target": other} for other in state["players"] if other != player]
    return actions


def apply(state: State, player: str, action: Action) -> State:
    if player not in state["players"]:
        raise IllegalAction(f"{player!r} does not play in this game.")
    if state["phase"] == "over":
        raise IllegalAction("The game is over.")
    kind = _checked_type(action)
    if state["phase"] == "checking" and kind != "ready":
        raise IllegalAction("The table opens when every player has checked their hand: send ready.")
    if state["phase"] != "checking" and kind == "ready":
        raise IllegalAction("The table is already open.")
    new = _copy(state)
    if kind == "ready":
        _fields(action, set())
        _ready(new, player)
    elif kind == "signal":
        _fields(action, set())
        _signal(new, player)
    elif kind == "take":
        _take(new, player, _card_of(action))
    elif kind == "drop":
        _drop(new, player, _card_of(action))
    elif kind == "done":
        _fields(action, set())
        _done(new, player)
    else:
        _sign(new, player, _target_of(action))
    return new


def _checked_type(action: Any) -> str:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise IllegalAction("An action is a dict with a 'type'.")
    if action["type"] not in HANDLED:
        raise IllegalAction(f"There is no action '{action['type']}' in Sign.")
    return str(action["type"])


def _fields(action: Action, expected: set[str]) -> None:
    extra = set(action) - expected - {"type"}
    if extra:
        raise IllegalAction(f"Unexpected {', '.join(sorted(extra))} in a {action['type']} action.")


def _card_of(action: Action) -> str:
    _fields(action, {"card"})
    card = action.get("card")
    if not isinstance(card, str):
        raise IllegalAction("Name the card (its key).")
    return card


def _target_of(action: Action) -> str:
    _fields(action, {"target"})
    target = action.get("target")
    if not isinstance(target, str):
        raise IllegalAction("Point at a player: name the target.")
    return target


def _ready(state: State, player: str) -> None:
    if player in state["ready"]:
        raise IllegalAction("You have already checked your hand; the others are still checking.")
    state["ready"].append(player)
    log(state, "ready", round=state["round"], player=player)
    if len(state["ready"]) == len(state["players"]):
        state["phase"] = "swapping"
        log(state, "table_opened", round=state["round"], table=list(state["table"]))


def _signal(state: State, player: str) -> None:
    """The team's secret sign: only team-mates can read it (the log keeps it for them alone)."""
    if player in state["signals"]:
        raise IllegalAction("You are already showing your team's sign.")
    state["signals"].append(player)
    log(state, "signal", round=state["round"], player=player, team=team_of(state, player))


def _take(state: State, player: str, card: str) -> None:
    hand: list[str] = state["hands"][player]
    if card not in state["table"]:
        raise IllegalAction("That card is not on the table.")
    if len(hand) > HAND_SIZE:
        raise IllegalAction("You hold six cards: drop one before you take another.")
    state["table"].remove(card)
    hand.append(card)
    _withdraw_done(state, player)
    log(state, "take", round=state["round"], player=player, card=card)


def _drop(state: State, player: str, card: str) -> None:
    hand: list[str] = state["hands"][player]
    if card not in hand:
        raise IllegalAction("That card is not in your hand.")
    if len(hand) < HAND_SIZE:
        raise IllegalAction("You hold four cards: take one before you drop another.")
    hand.remove(card)
    state["table"].append(card)
    _withdraw_done(state, player)
    log(state, "drop", round=state["round"], player=player, card=card)


def _withdraw_done(state: State, player: str) -> None:
    """A take or drop withdraws the player's "done" and stops their sign (the hand changed)."""
    if player in state["done"]:
        state["done"].remove(player)
    if player in state["signals"]:
        state["signals"].remove(player)


def _done(state: State, player: str) -> None:
    if len(state["hands"][player]) != HAND_SIZE:
        raise IllegalAction("You can stop swapping only with exactly five cards in hand.")
    if player in state["done"]:
        raise IllegalAction("You have already said you are done.")
    state["done"].append(player)
    log(state, "done", round=state["round"], player=player)
    if len(state["done"]) == len(state["players"]):
        _refresh(state)


def _refresh(state: State) -> None:
    """Everybody is done: the table goes to the discard pile and new cards come from the deck."""
    size = state["table_size"]
    state["discard"] += state["table"]
    state["table"] = []
    state["done"] = []
    if len(state["deck"]) < size:
        log(state, "refresh", round=state["round"], table=[], deck_ran_out=True)
        _end_round(state, "draw", scoring_teams=[])
        return
    state["table"], state["deck"] = state["deck"][:size], state["deck"][size:]
    log(state, "refresh", round=state["round"], table=list(state["table"]), deck_ran_out=False)


def _sign(state: State, caller: str, target: str) -> None:
    if target not in state["players"]:
        raise IllegalAction(f"{target!r} does not play in this game.")
    if target == caller:
        raise IllegalAction("Point at another player, not at yourself.")
    hand: list[str] = state["hands"][target]
    valid = is_quintet(hand, state["cards"])
    caller_team, target_team = team_of(state, caller), team_of(state, target)
    if valid:
        scoring = [caller_team]
    elif caller_team == target_team:
        scoring = [team for team in range(len(state["teams"])) if team != caller_team]
    else:
        scoring = [target_team]
    log(
        state,
        "sign",
        round=state["round"],
        caller=caller,
        target=target,
        hand=list(hand),
        valid=valid,
        scoring_teams=scoring,
    )
    _end_round(state, "valid" if valid else "invalid", scoring_teams=scoring)


def is_quintet(hand: Sequence[str], cards: dict[str, list[str]]) -> bool:
    """Exactly five cards, one symbol, five different colours."""
    if len(hand) != HAND_SIZE:
        return False
    symbols = {cards[card][0] for card in hand}
    colours = {cards[card][1] for card in hand}
    return len(symbols) == 1 and len(colours) == HAND_SIZE


def team_of(state: State, player: str) -> int:
    for number, team in enumerate(state["teams"]):
        if player in team:
            return number
    raise KeyError(player)


def _end_round(state: State, outcome: str, *, scoring_teams: list[int]) -> None:
    for team in scoring_teams:
        state["team_scores"][team] += 1
    for number, team in enumerate(state["teams"]):
        for player in team:
            state["scores"][player] = state["team_scores"][number]
    log(
        state,
        "round_end",
        round=state["round"],
        outcome=outcome,
        team_scores=list(state["team_scores"]),
    )
    if _game_is_over(state):
        state["phase"] = "over"
        log(state, "game_end", round=state["round"], winners=_winners(state))
        return
    state["dealer"] = next_player(state["players"], state["dealer"])
    _deal(state)


def _game_is_over(state: State) -> bool:
    if state["rounds"] is not None:
        return bool(state["round"] >= state["rounds"])
    return bool(max(state["team_scores"]) >= state["target_points"])


def _winners(state: State) -> list[str]:
    top = max(state["team_scores"])
    winning = {n for n, score in enumerate(state["team_scores"]) if score == top}
    return [player for player in state["players"] if team_of(state, player) in winning]


# --- views and result ----------------------------------------------------------------------


def view(state: State, player: str | None, *, with_log: bool = True) -> dict[str, Any]:
    """Hands only to their owners; the deck order and the discard pile to no one; the table
    cards to no one while they lie face down (phase ``checking``); a team's sign to that team.

    ``with_log=False`` leaves the log out (bots do not read it, and it grows).
    """
    checking = state["phase"] == "checking"
    seen: dict[str, Any] = {
        "game": SLUG,
        "phase": state["phase"],
        "round": state["round"],
        "players": list(state["players"]),
        "teams": [list(team) for team in state["teams"]],
        "team_scores": list(state["team_scores"]),
        "scores": dict(state["scores"]),
        "target_points": state["target_points"],
        "rounds": state["rounds"],
        "dealer": state["dealer"],
        "table": [] if checking else list(state["table"]),
        "table_face_down": len(state["table"]) if checking else 0,
        "deck_count": len(state["deck"]),
        "bottom_card": state["bottom_card"] if state["deck"] else None,
        "discard_count": len(state["discard"]),
        "hand_counts": {p: len(hand) for p, hand in state["hands"].items()},
        "done": list(state["done"]),
        "ready": list(state["ready"]),
        "signals": [],
    }
    faces = [*seen["table"], *([seen["bottom_card"]] if seen["bottom_card"] else [])]
    mates: list[str] = []
    if player is not None and player in state["players"]:
        team = team_of(state, player)
        mates = state["teams"][team]
        seen["you"] = player
        seen["hand"] = list(state["hands"][player])
        seen["team"] = team
        seen["signals"] = [p for p in state["signals"] if p in mates]
        faces += seen["hand"]
    cards = state["cards"]
    seen["faces"] = {card: {"symbol": cards[card][0], "colour": cards[card][1]} for card in faces}
    if with_log:
        seen["log"] = [
            public
            for event in state["log"]
            if (public := _public_event(event, player, mates)) is not None
        ]
    return seen


def _public_event(event: dict[str, Any], player: str | None, mates: list[str]) -> dict[str, Any] | None:
    # Which cards the others took or dropped is for the players to remember (the rulebook's tip).
    if event["type"] in ("take", "drop") and event["player"] != player:
        return {key: value for key, value in event.items() if key != "card"}
    # A team's sign is read by that team only.
    if event["type"] == "signal" and event["player"] not in mates:
        return None
    return dict(event)


def result(state: State) -> dict[str, Any] | None:
    if state["phase"] != "over":
        return None
    return {"scores": dict(state["scores"]), "winners": _winners(state)}


# --- helpers --------------------------------------------------------------------------------


def _copy(state: State) -> State:
    """A copy to change: what a handler changes is new; ``players``, ``teams`` and the SHARED
    keys are never changed in place, and past log events never change."""
    new = dict(state)
    new["hands"] = {player: list(hand) for player, hand in state["hands"].items()}
    for key in ("table", "deck", "discard", "done", "ready", "signals", "team_scores", "log"):
        new[key] = list(state[key])
    new["scores"] = dict(state["scores"])
    return new


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
