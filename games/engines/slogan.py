"""Slogan: guess the product behind an advertising slogan, climb the career track, win chips.

See docs/engines.md. The questioner asks the next player clockwise and judges the spoken answer;
a wrong answerer chooses a Spießer Alfons card, a tip or to pass; before the question a player
behind the leader may challenge the leader to a duel. The game ends when a piece reaches the goal.

The challenge (rulebook, Challenge): "A player may at any time, when a slogan is to be guessed,
challenge the leader (and only the leader!) to a brainstorming duel. This challenge must be
declared before the questioner has read the slogan aloud." and "If several players are tied at
the top, the challenger may decide whom he challenges." So only a player behind may challenge,
only a leader is challenged, only before the question. The rulebook sets no number; a duel moves
no piece, so duels every turn would keep the table from the goal. The project's limits
(docs/engines.md): a player challenges at most once a lap (not again until every player has been
questioner since), and never in the turn right after a duel (the table gets its question).
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
    plain_copy,
    stacked_pile,
    top_scorers,
)
from games.engines.slogan_track import GOAL, START, career_level, clockwise_from, move_to, spiesser_alfons

SLUG = "slogan"
MIN_PLAYERS = 2
MAX_PLAYERS = 6
STAKES = (1, 2, 3)
OPTION_COUNT = 4
PILES = ("cards", "alfons")
OPTIONS = ("first_player", "stack")
EFFECTS = ("move", "chips", "pay_each", "collect_each", "swap", "overtake", "to_start", "to_level")
SWAP_TARGETS = ("leader", "last", "next")
ACTIONS = ("challenge", "ask", "judge", "alfons", "tip", "pass")

# Never changed in place, so new states share them: the pack's data, the generator's state
# (replaced whole by keep_rng) and the challenge record (replaced whole by a challenge).
# Past log events are never changed either.
SHARED = ("catalogue", "rng", "challenged_on")


# --- setup -------------------------------------------------------------------------------


def setup(
    players: Sequence[str],
    content: dict[str, Any],
    *,
    seed: int | str,
    options: dict[str, Any] | None = None,
) -> State:
    players = check_players(players, MIN_PLAYERS, MAX_PLAYERS)
    options = check_options('Slogan', options, OPTIONS)
    first_player = options.get("first_player", players[0])
    if first_player not in players:
        raise ValueError(f"The first player {first_player!r} is not a player.")
    stack = options.get("stack")
    check_stack(stack, PILES)
    catalogue = _catalogue_of(content)
    if not catalogue["cards"]:
        raise ValueError("The pack has no slogan cards.")
    state: State = {
        "game": SLUG,
        "players": players,
        "positions": {player: START for player in players},
        "scores": {player: 0 for player in players},
        "phase": "question",
        "turn": 1,
        "questioner": first_player,
        "questioned": next_player(players, first_player),
        "pile": [],
        "used": [],
        "card": None,
        "question": None,
        "duel": None,
        "challenged_on": {},  # player -> the turn of their last challenge
        "last_duel": None,  # the turn of the last duel
        "desks": {player: [] for player in players},
        "alfons_discard": [],
        "catalogue": catalogue,
        "rng": new_rng_state(seed),
        "log": [],
    }
    state["pile"] = stacked_pile(state, "cards", sorted(catalogue["cards"]), stack)
    alfons = stacked_pile(state, "alfons", sorted(catalogue["alfons"]), stack)
    # Dealt one at a time in turn from the first player; a desk is used in the order dealt.
    seating = clockwise_from(players, first_player)
    for number, card in enumerate(alfons):
        state["desks"][seating[number % len(seating)]].append(card)
    _start_turn(state)
    return state


def _catalogue_of(content: dict[str, Any]) -> dict[str, Any]:
    """What the engine needs from the pack: every slogan with its options, every Alfons card."""
    if content.get("game", SLUG) != SLUG:
        raise ValueError(f"This is a pack of {content.get('game')!r}, not of Slogan.")
    body = content.get("body", content)
    cards: dict[str, list[dict[str, Any]]] = {}
    for card in body.get("cards", []):
        slogans = card.get("slogans", [])
        if len(slogans) != 2:
            raise ValueError(f"The card {card['key']} must have exactly two slogans.")
        cards[card["key"]] = [_slogan_of(card["key"], slogan) for slogan in slogans]
    alfons: dict[str, dict[str, Any]] = {}
    for card in body.get("alfons", []):
        _check_effect(card["key"], card["effect"])
        alfons[card["key"]] = {"text": card.get("text", ""), "effect": dict(card["effect"])}
    return {"cards": cards, "alfons": alfons}


def _slogan_of(card: str, slogan: dict[str, Any]) -> dict[str, Any]:
    options = slogan.get("options", [])
    correct = [n for n, option in enumerate(options) if option.get("correct")]
    if len(options) != OPTION_COUNT or len(correct) != 1:
        raise ValueError(f"A slogan of card {card} needs four options, exactly one correct.")
    return {
        "key": slogan["key"],
        "text": slogan["text"],
        "options": [option["text"] for option in options],
        "answer": correct[0],
    }


def _check_effect(card: str, effect: dict[str, Any]) -> None:
    kind = effect.get("kind")
    amount: Any = effect.get("amount")
    if kind not in EFFECTS:
        raise ValueError(f"The Alfons card {card} has an unknown effect {kind!r}.")
    if kind in ("move", "chips") and not _is_int(amount):
        raise ValueError(f"The Alfons card {card} needs a whole amount.")
    if kind in ("pay_each", "collect_each") and not (_is_int(amount) and amount >= 1):
        raise ValueError(f"The Alfons card {card} needs an amount of at least 1.")
    if kind == "to_level" and not (_is_int(amount) and 1 <= amount <= 6):
        raise ValueError(f"The Alfons card {card} needs a level from 1 to 6.")
    if kind == "swap" and effect.get("target") not in SWAP_TARGETS:
        raise ValueError(f"The Alfons card {card} needs a target: leader, last or next.")


# --- turns -------------------------------------------------------------------------------


def _start_turn(state: State) -> None:
    """The questioner draws a card; an empty box ends the game."""
    if not state["pile"]:
        _end(state, "cards_exhausted")
        return
    state["card"] = state["pile"].pop(0)
    state["phase"] = "question"
    log(state, "turn", turn=state["turn"], questioner=state["questioner"], questioned=state["questioned"])


def _finish_turn(state: State) -> None:
    if GOAL in state["positions"].values():
        _end(state, "goal")
        return
    state["turn"] += 1
    state["questioner"] = state["questioned"]
    state["questioned"] = next_player(state["players"], state["questioner"])
    _start_turn(state)


def _end(state: State, reason: str) -> None:
    state["phase"] = "over"
    log(state, "game_end", reason=reason, scores=dict(state["scores"]), winners=_winners(state))


def _winners(state: State) -> list[str]:
    return top_scorers(state["scores"])


# --- actions -------------------------------------------------------------------------------


def legal_actions(state: State, player: str) -> list[Action]:
    if player not in state["players"]:
        return []
    phase = state["phase"]
    actions: list[Action] = []
    if phase == "question":
        if player == state["questioner"]:
            actions += [
                {"type": "ask", "slogan": slogan, "stake": stake} for slogan in (0, 1) for stake in STAKES
            ]
        actions += [{"type": "challenge", "target": target} for target in challengeable(state, player)]
    elif phase == "judge" and player == state["questioner"]:
        actions += [{"type": "judge", "correct": correct} for correct in (True, False)]
    elif phase == "second_chance" and player == state["questioned"]:
        if state["desks"][player]:
            actions.append({"type": "alfons"})
        actions += [{"type": "tip", "option": option} for option in range(OPTION_COUNT)]
        actions.append({"type": "pass"})
    elif phase == "duel" and player in state["duel"]["readers"]:
        duelist, slogan = _next_duel_answer(state["duel"])
        actions += [
            {"type": "judge", "player": duelist, "slogan": slogan, "correct": correct}
            for correct in (True, False)
        ]
    return actions


def challengeable(state: State, challenger: str) -> list[str]:
    """The players that challenger may challenge now (empty when none): the leaders.

    Rulebook: "challenge the leader (and only the leader!)", "before the questioner has read the
    slogan aloud"; a leader has nobody to challenge, so the challenger is behind (at 0–0 all
    lead: no duel). A duel needs a reader who is not a duelist: with two players there is none.
    The project's limits (docs/engines.md): once a lap per player, never two duels in a row.
    """
    if challenge_refused(state, challenger) is not None:
        return []
    top = max(state["scores"].values())
    return [p for p in state["players"] if state["scores"][p] == top]


def challenge_refused(state: State, challenger: str) -> str | None:
    """Why challenger may not challenge now, or ``None`` when they may."""
    if state["phase"] != "question":
        return "A challenge must come before the question is read."
    if len(state["players"]) < 3:
        return "A duel needs a third player to read the slogans."
    if state["scores"][challenger] >= max(state["scores"].values()):
        return "Only a player behind the leader may challenge: you have the most chips."
    if state.get("last_duel") == state["turn"] - 1:
        return "The last turn was a duel: this turn's slogan is asked first."
    last = state.get("challenged_on", {}).get(challenger)
    if last is not None and state["turn"] - last < len(state["players"]):
        again = last + len(state["players"])
        return f"You challenged on turn {last}: once a lap, so again from turn {again}."
    return None


def apply(state: State, player: str, action: Action) -> State:
    if player not in state["players"]:
        raise IllegalAction(f"{player!r} does not play in this game.")
    if state["phase"] == "over":
        raise IllegalAction("The game is over.")
    if not isinstance(action, dict) or action.get("type") not in ACTIONS:
        raise IllegalAction(f"There is no such action in Slogan; the actions are: {', '.join(ACTIONS)}.")
    new = _copy(state)
    kind = action["type"]
    if kind == "challenge":
        _challenge(new, player, action)
    elif kind == "ask":
        _ask(new, player, action)
    elif kind == "judge" and new["phase"] == "duel":
        _judge_duel(new, player, action)
    elif kind == "judge":
        _judge(new, player, action)
    else:
        _second_chance(new, player, action)
    return new


def _fields(action: Action, expected: set[str]) -> None:
    extra = set(action) - expected - {"type"}
    missing = expected - set(action)
    if extra:
        raise IllegalAction(f"Unexpected {', '.join(sorted(extra))} in a {action['type']} action.")
    if missing:
        raise IllegalAction(f"A {action['type']} action needs {', '.join(sorted(missing))}.")


def _challenge(state: State, challenger: str, action: Action) -> None:
    _fields(action, {"target"})
    refused = challenge_refused(state, challenger)
    if refused is not None:
        raise IllegalAction(refused)
    target = action["target"]
    if target not in challengeable(state, challenger):
        raise IllegalAction("Only a leader (a player with the most chips) can be challenged.")
    duelists = (target, challenger)
    card = state["card"]
    new_card = state["questioner"] in duelists
    if new_card:
        # The questioner has seen this card: it goes back into the box, and another player
        # reads from a newly drawn card (the rulebook's note).
        readers = [p for p in state["players"] if p not in duelists]
        state["pile"].append(card)
        card = state["pile"].pop(0)
    else:
        # The duel is read from the card the questioner drew for this turn.
        readers = [state["questioner"]]
    state["card"] = None
    state["duel"] = {
        "challenger": challenger,
        "challenged": target,
        "card": card,
        "readers": readers,
        "answers": [],
    }
    state["phase"] = "duel"
    state["challenged_on"] = {**state.get("challenged_on", {}), challenger: state["turn"]}
    state["last_duel"] = state["turn"]
    log(state, "challenge", turn=state["turn"], challenger=challenger, challenged=target, readers=readers,
        new_card=new_card)  # fmt: skip


def _ask(state: State, player: str, action: Action) -> None:
    _fields(action, {"slogan", "stake"})
    if state["phase"] != "question":
        raise IllegalAction("The question has already been asked.")
    if player != state["questioner"]:
        raise IllegalAction(f"{state['questioner']} asks the question this turn.")
    slogan, stake = action["slogan"], action["stake"]
    if slogan not in (0, 1) or not _is_int(slogan):
        raise IllegalAction("Choose one of the card's two slogans: 0 or 1.")
    if stake not in STAKES or not _is_int(stake):
        raise IllegalAction("The stake is 1, 2 or 3 chips.")
    state["question"] = {"slogan": slogan, "stake": stake}
    state["phase"] = "judge"
    log(
        state,
        "ask",
        turn=state["turn"],
        questioner=player,
        questioned=state["questioned"],
        slogan=slogan,
        text=_slogan(state, state["card"], slogan)["text"],
        stake=stake,
    )


def _judge(state: State, player: str, action: Action) -> None:
    _fields(action, {"correct"})
    if state["phase"] != "judge":
        raise IllegalAction("There is no answer to judge now.")
    if player != state["questioner"]:
        raise IllegalAction(f"{state['questioner']} judges the answer.")
    correct = action["correct"]
    if not isinstance(correct, bool):
        raise IllegalAction("Judge with correct: true or false.")
    stake = state["question"]["stake"]
    winner = state["questioned"] if correct else state["questioner"]
    log(state, "judge", turn=state["turn"], correct=correct, winner=winner, stake=stake)
    state["scores"][winner] += stake
    move_to(state, winner, state["positions"][winner] + stake, cause="stake")
    if correct or GOAL in state["positions"].values():
        _close_question(state)
        _finish_turn(state)
    else:
        state["phase"] = "second_chance"


def _second_chance(state: State, player: str, action: Action) -> None:
    kind = action["type"]
    if state["phase"] != "second_chance":
        raise IllegalAction("A second chance comes only after a wrong answer.")
    if player != state["questioned"]:
        raise IllegalAction(f"Only {state['questioned']} has a second chance.")
    if kind == "alfons":
        _fields(action, set())
        desk = state["desks"][player]
        if not desk:
            raise IllegalAction("Your desk is empty: only the tip is left.")
        card = desk.pop(0)
        state["alfons_discard"].append(card)
        spiesser_alfons(state, player, card)
    elif kind == "tip":
        _fields(action, {"option"})
        option = action["option"]
        if not _is_int(option) or not 0 <= option < OPTION_COUNT:
            raise IllegalAction("Point at one of the four options: 0, 1, 2 or 3.")
        question = state["question"]
        correct = option == _slogan(state, state["card"], question["slogan"])["answer"]
        log(state, "tip", turn=state["turn"], player=player, option=option, correct=correct)
        if correct:
            move_to(state, player, state["positions"][player] + 1, cause="tip")
    else:
        _fields(action, set())
        log(state, "pass", turn=state["turn"], player=player)
    _close_question(state)
    _finish_turn(state)


def _close_question(state: State) -> None:
    """The question is settled: its slogan, options and answer become public."""
    card, number = state["card"], state["question"]["slogan"]
    log(state, "solution", turn=state["turn"], card=card, slogan=number, **_slogan(state, card, number))
    state["used"].append(card)
    state["card"] = None
    state["question"] = None


def _judge_duel(state: State, player: str, action: Action) -> None:
    _fields(action, {"player", "slogan", "correct"})
    duel = state["duel"]
    if player not in duel["readers"]:
        readers = " or ".join(duel["readers"])
        raise IllegalAction(f"{readers} reads and judges this duel.")
    duelist, slogan = _next_duel_answer(duel)
    if action["player"] != duelist or action["slogan"] != slogan or not _is_int(action["slogan"]):
        raise IllegalAction(f"Next, {duelist} answers slogan {slogan + 1}.")
    correct = action["correct"]
    if not isinstance(correct, bool):
        raise IllegalAction("Judge with correct: true or false.")
    duel["answers"].append({"player": duelist, "slogan": slogan, "correct": correct})
    log(state, "duel_answer", turn=state["turn"], player=duelist, slogan=slogan, correct=correct)
    if correct:
        state["scores"][duelist] += 1
    if len(duel["answers"]) == 4:
        won = {
            p: sum(a["correct"] for a in duel["answers"] if a["player"] == p)
            for p in (duel["challenged"], duel["challenger"])
        }
        best = max(won.values())
        leaders = [p for p, chips in won.items() if chips == best]
        winner = leaders[0] if len(leaders) == 1 else None
        # Only now the card: its key (or a slogan's) would tell an unjudged slogan's answer.
        for number in (0, 1):
            log(state, "solution", turn=state["turn"], card=duel["card"], slogan=number,
                **_slogan(state, duel["card"], number))  # fmt: skip
        log(state, "duel_end", turn=state["turn"], card=duel["card"], chips=won, winner=winner)
        state["used"].append(duel["card"])
        state["duel"] = None
        _finish_turn(state)


def _next_duel_answer(duel: dict[str, Any]) -> tuple[str, int]:
    """Per slogan, the challenged player answers first, then the challenger."""
    order = [(duel["challenged"], slogan) for slogan in (0, 1)]
    order.insert(1, (duel["challenger"], 0))
    order.append((duel["challenger"], 1))
    return order[len(duel["answers"])]


# --- views and result ----------------------------------------------------------------------


def view(state: State, player: str | None, *, with_log: bool = True) -> dict[str, Any]:
    """Options and answer only to the questioner (and a duel's readers) until judged.

    ``with_log=False`` leaves the log out (bots do not read it, and it grows).
    """
    seen: dict[str, Any] = {
        "game": SLUG,
        "phase": state["phase"],
        "turn": state["turn"],
        "players": list(state["players"]),
        "scores": dict(state["scores"]),
        "positions": dict(state["positions"]),
        "levels": {p: career_level(space) for p, space in state["positions"].items()},
        "questioner": state["questioner"],
        "questioned": state["questioned"],
        "pile_count": len(state["pile"]),
        "desk_counts": {p: len(desk) for p, desk in state["desks"].items()},
        "alfons_discard": list(state["alfons_discard"]),
    }
    if with_log:
        seen["log"] = plain_copy(state["log"])
    if player is not None and player in state["players"]:
        seen["you"] = player
    phase = state["phase"]
    if phase == "question" and player == state["questioner"] and state["card"] is not None:
        seen["card"] = {"key": state["card"], "slogans": plain_copy(_card(state, state["card"]))}
    elif phase in ("judge", "second_chance"):
        seen["question"] = _question_view(state, player)
    elif phase == "duel":
        seen["duel"] = _duel_view(state, player)
    return seen


def _question_view(state: State, player: str | None) -> dict[str, Any]:
    question = state["question"]
    slogan = _slogan(state, state["card"], question["slogan"])
    seen = {"slogan": question["slogan"], "text": slogan["text"], "stake": question["stake"]}
    if player == state["questioner"]:
        seen.update(card=state["card"], key=slogan["key"], options=list(slogan["options"]))
        seen["answer"] = slogan["answer"]
    elif player == state["questioned"] and state["phase"] == "second_chance":
        seen["options"] = list(slogan["options"])
    return seen


def _duel_view(state: State, player: str | None) -> dict[str, Any]:
    duel = state["duel"]
    reader = player in duel["readers"]
    judged = {a["slogan"] for a in duel["answers"] if a["player"] == duel["challenger"]}
    slogans = []
    for number, slogan in enumerate(_card(state, duel["card"])):
        seen = {"slogan": number, "text": slogan["text"]}
        if reader or number in judged:
            seen.update(options=list(slogan["options"]), answer=slogan["answer"])
        if reader:
            seen["key"] = slogan["key"]
        slogans.append(seen)
    duelist, number = _next_duel_answer(duel)
    seen_duel: dict[str, Any] = {
        "challenger": duel["challenger"],
        "challenged": duel["challenged"],
        "readers": list(duel["readers"]),
        "answers": plain_copy(duel["answers"]),
        "next": {"player": duelist, "slogan": number},
        "slogans": slogans,
    }
    if reader:
        seen_duel["card"] = duel["card"]
    return seen_duel


def result(state: State) -> dict[str, Any] | None:
    if state["phase"] != "over":
        return None
    return {"scores": dict(state["scores"]), "winners": _winners(state)}


# --- helpers --------------------------------------------------------------------------------


def _card(state: State, card: str) -> list[dict[str, Any]]:
    slogans: list[dict[str, Any]] = state["catalogue"]["cards"][card]
    return slogans


def _slogan(state: State, card: str, number: int) -> dict[str, Any]:
    return _card(state, card)[number]


def _copy(state: State) -> State:
    """A copy to change: what a handler changes is new; ``players`` and the SHARED keys are
    never changed in place, and past log events never change."""
    new = dict(state)
    for key in ("pile", "used", "alfons_discard", "log"):
        new[key] = list(state[key])
    new["positions"] = dict(state["positions"])
    new["scores"] = dict(state["scores"])
    new["desks"] = {player: list(desk) for player, desk in state["desks"].items()}
    if state["question"] is not None:
        new["question"] = dict(state["question"])
    if state["duel"] is not None:
        duel = state["duel"]
        new["duel"] = {**duel, "readers": list(duel["readers"]), "answers": list(duel["answers"])}
    return new


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
