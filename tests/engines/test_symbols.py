"""Sag's mit Symbolen: the rulebook's rules, its example round, and random legal games."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import IllegalAction
from games.engines import symbols as engine
from tests.engines import playouts
from tests.engines.packs import BASE_SYMBOLS, EXAMPLE_BOARD, EXTRA_SYMBOLS, symbols_pack

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


# --- the rulebook's example ----------------------------------------------------------------


def test_the_rulebooks_example_of_a_round():
    state = new_game()
    assert state["board"] == EXAMPLE_BOARD
    assert state["candidate"] == "Tim"
    state = play(
        state,
        ("Sabine", hint("handy")),
        ("Tim", remove(1)),  # Goethe
        ("Frank", hint("koffer")),
        ("Tim", remove(7)),  # Dschungel
        ("Lisa", hint("sonne")),
        ("Tim", guess(4)),  # "Italien!"
    )
    assert state["scores"] == {"Tim": 6, "Sabine": 1, "Frank": 1, "Lisa": 0}
    assert state["candidate"] == "Sabine"
    assert last_round(state)["solution"] == "italien"
    assert state["out"] == ["goethe", "dschungel", "italien"]


def test_the_next_round_refills_the_empty_slots_in_slot_order():
    state = play(
        new_game(),
        ("Sabine", hint("handy")),
        ("Tim", remove(1)),
        ("Frank", hint("koffer")),
        ("Tim", remove(7)),
        ("Lisa", hint("sonne")),
        ("Tim", guess(4)),
    )
    assert state["round"] == 2
    assert [concept_on(state, slot) for slot in (1, 4, 7)] == NEXT_CARDS
    assert [concept_on(state, slot) for slot in (2, 3, 5, 6, 8)] == [
        "liebe",
        "china",
        "ferien",
        "bauer",
        "oma",
    ]
    assert state["markers"] == []
    assert state["hint_giver"] == "Frank"  # left of the new candidate, Sabine


# --- the Scoring Summary, row by row -------------------------------------------------------


def test_removing_a_card_that_is_not_the_solution_scores_a_point_for_the_hint_giver():
    state = play(new_game(), ("Sabine", hint("handy")), ("Tim", remove(1)))
    assert state["scores"] == {"Tim": 0, "Sabine": 1, "Frank": 0, "Lisa": 0}
    assert state["phase"] == "hint"
    assert state["hint_giver"] == "Frank"  # the next hint giver places a marker
    assert state["round"] == 1


def test_removing_the_solution_scores_three_for_everyone_but_the_candidate_and_the_hint_giver():
    state = play(new_game(), ("Sabine", hint("handy")), ("Tim", remove(4)))
    assert state["scores"] == {"Tim": 0, "Sabine": 0, "Frank": 3, "Lisa": 3}
    assert state["round"] == 2  # the round ends
    assert last_round(state)["outcome"] == "solution_removed"
    assert state["out"] == ["italien"]


def test_naming_the_right_solution_scores_the_cards_still_displayed_including_the_solution():
    state = play(new_game(), ("Sabine", hint("handy")), ("Tim", guess(4)))
    assert state["scores"] == {"Tim": 8, "Sabine": 0, "Frank": 0, "Lisa": 0}
    assert state["round"] == 2


def test_naming_a_wrong_solution_scores_three_for_everyone_but_the_candidate_and_the_last_hint_giver():
    state = play(
        new_game(),
        ("Sabine", hint("handy")),
        ("Tim", remove(1)),
        ("Frank", hint("koffer")),
        ("Tim", guess(2)),
    )
    assert state["scores"] == {"Tim": 0, "Sabine": 1 + 3, "Frank": 0, "Lisa": 3}
    assert state["round"] == 2
    assert last_round(state)["outcome"] == "wrong_solution"


def test_after_a_solution_attempt_the_solution_card_leaves_and_the_other_cards_stay():
    state = play(new_game(), ("Sabine", hint("handy")), ("Tim", guess(2)))
    assert state["out"] == ["italien"]
    assert concept_on(state, 2) == "liebe"  # the wrong guess stays on the board
    assert concept_on(state, 4) == NEXT_CARDS[0]


def test_removed_cards_leave_the_game():
    state = play(new_game(), ("Sabine", hint("handy")), ("Tim", remove(1)))
    assert concept_on(state, 1) is None
    assert "goethe" in state["out"]
    assert "goethe" not in state["concepts"]


def test_after_the_seventh_removal_the_last_card_counts_as_a_solution_worth_one_point():
    state = new_game()
    givers = ["Sabine", "Frank", "Lisa"] * 3
    for giver, symbol, slot in zip(givers, BASE_SYMBOLS, [1, 2, 3, 5, 6, 7, 8], strict=False):
        assert state["hint_giver"] == giver
        state = play(state, (giver, hint(symbol)), ("Tim", remove(slot)))
    assert state["scores"] == {"Tim": 1, "Sabine": 3, "Frank": 2, "Lisa": 2}
    assert last_round(state)["outcome"] == "last_card"
    assert last_round(state)["solution"] == "italien"
    assert state["round"] == 2


def seven_removals(state: dict[str, Any]) -> dict[str, Any]:
    givers = ["Sabine", "Frank", "Lisa"] * 3
    for giver, symbol, slot in zip(givers, BASE_SYMBOLS, [1, 2, 3, 5, 6, 7, 8], strict=False):
        state = play(state, (giver, hint(symbol)), ("Tim", remove(slot)))
    return state  # the seventh removal was Sabine's hint


def test_a_seventh_removal_that_brings_the_hint_giver_to_the_goal_wastes_the_last_cards_point():
    """Rulebook, End of the Game: "the game is finished immediately, further points are
    wasted"; docs/engines.md, symbols: the hint giver's point for the seventh removal is scored
    first; if it ends the game, the last card's point is not scored."""
    state = new_game(goal=3)  # Sabine reaches 3 with her third hint point, on the 7th removal
    state = seven_removals(state)
    assert state["phase"] == "over"
    assert state["scores"] == {"Tim": 0, "Sabine": 3, "Frank": 2, "Lisa": 2}
    assert engine.result(state)["winners"] == ["Sabine"]
    assert last_round(state)["points"] == {"Sabine": 1}


def test_a_seventh_removal_below_the_goal_scores_the_hint_and_the_last_card():
    """docs/engines.md, symbols: "After the seventh removal the last card counts as a correct
    solution worth 1 point, scored after the hint giver's point for that removal"."""
    state = new_game(goal=4)  # Sabine's point brings her to 3: the game goes on
    state = seven_removals(state)
    assert state["scores"] == {"Tim": 1, "Sabine": 3, "Frank": 2, "Lisa": 2}
    assert state["phase"] == "hint" and state["round"] == 2


def test_the_last_cards_point_can_end_the_game_for_the_candidate():
    """Rulebook, End of the Game: the candidate's last-card point reaching the goal ends it."""
    state = new_game(goal=5)
    state = {**state, "scores": {**state["scores"], "Tim": 4}}
    state = seven_removals(state)
    assert state["phase"] == "over"
    assert engine.result(state)["winners"] == ["Tim"]


def test_a_round_has_at_most_seven_markers():
    state = new_game()
    givers = ["Sabine", "Frank", "Lisa"] * 3
    for giver, symbol, slot in zip(givers, BASE_SYMBOLS, [1, 2, 3, 5, 6, 7], strict=False):
        state = play(state, (giver, hint(symbol)), ("Tim", remove(slot)))
    state = play(state, ("Sabine", hint(BASE_SYMBOLS[6])))
    assert len(state["markers"]) == engine.MAX_MARKERS
    assert engine.legal_actions(state, "Tim") == [remove(4), remove(8), guess(4), guess(8)]


# --- turn order ----------------------------------------------------------------------------


def test_hint_givers_go_clockwise_from_the_candidates_left_skipping_the_candidate():
    state = new_game(first_candidate="Frank")
    givers = []
    for symbol, slot in zip(BASE_SYMBOLS, [1, 2, 3, 5], strict=False):
        givers.append(state["hint_giver"])
        state = play(state, (state["hint_giver"], hint(symbol)), ("Frank", remove(slot)))
    assert givers == ["Lisa", "Tim", "Sabine", "Lisa"]


def test_the_candidate_role_moves_clockwise_each_round():
    state = new_game(numbers=[4, 4, 4, 4, 4])
    candidates = []
    for _ in range(5):
        candidates.append(state["candidate"])
        state = play(state, (state["hint_giver"], hint("handy")), (state["candidate"], guess(4)))
    assert candidates == ["Tim", "Sabine", "Frank", "Lisa", "Tim"]


def test_only_the_hint_giver_gives_a_hint_and_only_the_candidate_decides():
    state = new_game()
    with pytest.raises(IllegalAction, match="Sabine's turn"):
        engine.apply(state, "Frank", hint("handy"))
    with pytest.raises(IllegalAction):
        engine.apply(state, "Tim", remove(1))  # no hint yet
    state = play(state, ("Sabine", hint("handy")))
    with pytest.raises(IllegalAction, match="candidate"):
        engine.apply(state, "Sabine", guess(4))
    with pytest.raises(IllegalAction):
        engine.apply(state, "Frank", hint("koffer"))  # the candidate decides first


def test_a_hint_needs_an_unmarked_symbol_on_the_board():
    state = new_game()
    with pytest.raises(IllegalAction, match="no symbol"):
        engine.apply(state, "Sabine", hint("anker"))  # an extra tile, not on the base board
    state = play(state, ("Sabine", hint("handy")), ("Tim", remove(1)))
    with pytest.raises(IllegalAction, match="already has a marker"):
        engine.apply(state, "Frank", hint("handy"))


@pytest.mark.parametrize(
    "action",
    [None, {}, {"type": "shout"}, {"type": "hint"}, {"type": "hint", "symbol": "handy"},
     {"type": "hint", "symbol": "handy", "marker": "red"}, {"type": "hint", "symbol": 3, "marker": "green"},
     {"type": "replace", "slot": 0}],
)  # fmt: skip
def test_a_malformed_hint_is_illegal_and_changes_nothing(action):
    state = new_game()
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalAction):
        engine.apply(state, "Sabine", action)
    assert json.dumps(state, sort_keys=True) == before


@pytest.mark.parametrize(
    "action",
    [{"type": "guess"}, {"type": "guess", "slot": "4"}, {"type": "guess", "slot": 9},
     {"type": "guess", "slot": True}, {"type": "remove", "slot": 4.0}, {"type": "remove", "slot": None}],
)  # fmt: skip
def test_a_malformed_decision_is_illegal_and_changes_nothing(action):
    state = play(new_game(), ("Sabine", hint("sonne")), ("Tim", remove(1)), ("Frank", hint("herz")))
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalAction):
        engine.apply(state, "Tim", action)
    with pytest.raises(IllegalAction, match="no card on slot 1"):
        engine.apply(state, "Tim", guess(1))
    assert json.dumps(state, sort_keys=True) == before


# --- the end of the game -------------------------------------------------------------------


def test_the_goal_is_35_and_27_with_five_or_six_players():
    assert new_game()["goal"] == 35
    assert new_game([*PLAYERS, "Ute"])["goal"] == 27
    assert new_game([*PLAYERS, "Ute", "Jan"])["goal"] == 27
    assert new_game(goal=10)["goal"] == 10


def test_with_five_players_reaching_27_ends_the_game():
    state = new_game([*PLAYERS, "Ute"])
    state["scores"]["Sabine"] = 26
    state = play(state, ("Sabine", hint("handy")), ("Tim", remove(1)))
    assert engine.result(state) == {
        "scores": {"Tim": 0, "Sabine": 27, "Frank": 0, "Lisa": 0, "Ute": 0},
        "winners": ["Sabine"],
    }
    assert engine.legal_actions(state, "Frank") == []
    with pytest.raises(IllegalAction, match="over"):
        engine.apply(state, "Frank", hint("koffer"))


def test_points_beyond_the_goal_are_wasted():
    state = new_game()
    state["scores"]["Tim"] = 30
    state = play(state, ("Sabine", hint("handy")), ("Tim", guess(4)))
    assert state["scores"]["Tim"] == 35
    assert engine.result(state)["winners"] == ["Tim"]


def test_players_who_reach_the_goal_together_all_win():
    state = new_game()
    state["scores"].update({"Frank": 33, "Lisa": 34, "Sabine": 34})
    state = play(state, ("Sabine", hint("handy")), ("Tim", guess(1)))  # wrong: Frank and Lisa +3
    assert engine.result(state) == {
        "scores": {"Tim": 0, "Sabine": 34, "Frank": 35, "Lisa": 35},
        "winners": ["Frank", "Lisa"],
    }


def test_the_game_ends_when_the_concepts_cannot_refill_the_board():
    pack = symbols_pack([*EXAMPLE_BOARD, "apotheke"])  # nine cards: one to spare
    stack = {"concepts": [*EXAMPLE_BOARD, "apotheke"], "numbers": [4, 4]}
    state = engine.setup(PLAYERS, pack, seed=3, options={"stack": stack})
    state = play(state, ("Sabine", hint("handy")), ("Tim", guess(4)))
    assert state["scores"]["Tim"] == 8
    assert state["round"] == 2 and state["concepts"] == []
    assert concept_on(state, 4) == "apotheke"
    state = play(state, ("Frank", hint("handy")), ("Sabine", remove(1)), ("Lisa", hint("sonne")))
    state = play(state, ("Sabine", guess(2)))  # wrong: Tim and Frank +3 …
    assert engine.result(state) == {  # … and the board cannot be refilled
        "scores": {"Tim": 11, "Sabine": 0, "Frank": 1 + 3, "Lisa": 0},
        "winners": ["Tim"],
    }
    assert state["log"][-1] == {"type": "game_ended", "reason": "concepts_exhausted"}
    assert state["out"] == ["italien", "goethe", "apotheke"]


# --- variants and replacements -------------------------------------------------------------


def test_grey_markers_are_played_only_in_the_variant():
    with pytest.raises(IllegalAction, match="green marker"):
        engine.apply(new_game(), "Sabine", hint("handy", "grey"))
    state = play(new_game(grey_markers=True), ("Sabine", hint("handy", "grey")), ("Tim", remove(1)))
    assert state["scores"]["Sabine"] == 1  # a grey hint scores like a green one
    assert state["markers"] == [{"symbol": "handy", "marker": "grey", "player": "Sabine"}]


def test_there_are_two_grey_markers_and_they_count_towards_the_seven():
    state = play(
        new_game(grey_markers=True),
        ("Sabine", hint("handy", "grey")),
        ("Tim", remove(1)),
        ("Frank", hint("koffer", "grey")),
        ("Tim", remove(2)),
    )
    assert {action["marker"] for action in engine.legal_actions(state, "Lisa")} == {"green"}
    with pytest.raises(IllegalAction, match="grey markers"):
        engine.apply(state, "Lisa", hint("sonne", "grey"))
    assert engine.view(state, "Lisa")["markers_left"] == 5


def test_extra_tiles_cover_base_symbols():
    board = [*EXTRA_SYMBOLS[:2], *BASE_SYMBOLS[2:]]
    state = new_game(symbols=board)
    state = play(state, ("Sabine", hint("anker")), ("Tim", remove(1)))
    with pytest.raises(IllegalAction, match="no symbol"):
        engine.apply(state, "Frank", hint("handy"))  # covered by the anchor


@pytest.mark.parametrize(
    "symbols",
    [["nicht-da", *BASE_SYMBOLS[1:]], [*EXTRA_SYMBOLS, *BASE_SYMBOLS], ["handy", "handy", *BASE_SYMBOLS[2:]]],
)
def test_a_board_of_unknown_missing_or_doubled_symbols_is_refused(symbols):
    with pytest.raises(ValueError, match="symbols"):
        new_game(symbols=symbols)


def test_any_player_may_replace_a_card_before_the_first_hint():
    """Rulebook, Game Preparation: "if a concept is drawn which no player can explain, it is
    discarded and a replacement is drawn"; docs/engines.md, symbols: any player, the candidate
    too, before the round's first hint."""
    state = play(new_game(), ("Lisa", replace(2)), ("Tim", replace(4)))
    assert concept_on(state, 2) == NEXT_CARDS[0]
    assert concept_on(state, 4) == NEXT_CARDS[1]  # now the secret concept
    assert state["discarded"] == ["liebe", "italien"]
    state = play(state, ("Sabine", hint("handy")))
    assert not [a for p in PLAYERS for a in engine.legal_actions(state, p) if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="before the round's first hint"):
        engine.apply(state, "Frank", replace(3))
    state = play(state, ("Tim", remove(1)))  # the next hint is due: the cards are in play
    assert state["phase"] == "hint"
    assert not [a for p in PLAYERS for a in engine.legal_actions(state, p) if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="before the round's first hint"):
        engine.apply(state, "Frank", replace(3))


def test_each_player_replaces_at_most_one_card_a_round():
    """docs/engines.md, symbols: each player at most one replacement a round (a concept nobody
    can explain is the exception), so one player cannot drain the pile."""
    state = play(new_game(), ("Lisa", replace(2)))
    assert not [a for a in engine.legal_actions(state, "Lisa") if a["type"] == "replace"]
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalAction, match="replaced a card this round already"):
        engine.apply(state, "Lisa", replace(3))
    assert json.dumps(state, sort_keys=True) == before
    assert [a["slot"] for a in engine.legal_actions(state, "Frank") if a["type"] == "replace"] == [
        1, 3, 4, 5, 6, 7, 8]  # fmt: skip


def test_a_replacement_card_stands():
    """Rulebook: "a replacement is drawn": one; docs/engines.md, symbols: each card drawn for the
    round can be replaced once, the replacement card not again."""
    state = play(new_game(), ("Lisa", replace(2)))
    with pytest.raises(IllegalAction, match="only once"):
        engine.apply(state, "Frank", replace(2))
    assert state["drawn"] == [1, 3, 4, 5, 6, 7, 8]


def test_only_a_card_drawn_for_this_round_can_be_replaced():
    """Rulebook, Game Preparation: the replacement is for "a concept [that] is drawn"; The Next
    Round: "New concept cards are drawn ... until there are eight cards again". docs/engines.md,
    symbols: cards left from an earlier round were played with, so they stay; and every player
    may replace again in the new round."""
    state = play(new_game(), ("Lisa", replace(2)), ("Sabine", hint("sonne")), ("Tim", guess(4)))
    assert state["round"] == 2 and state["candidate"] == "Sabine"
    assert concept_on(state, 4) == NEXT_CARDS[1]  # the only slot refilled
    for player in PLAYERS:
        assert [a for a in engine.legal_actions(state, player) if a["type"] == "replace"] == [replace(4)]
    with pytest.raises(IllegalAction, match="drawn for this round"):
        engine.apply(state, "Tim", replace(1))
    state = play(state, ("Lisa", replace(4)))
    assert concept_on(state, 4) == NEXT_CARDS[2]


def test_replacements_never_take_the_cards_the_next_round_needs():
    """docs/engines.md, symbols: a replacement is offered only while the pile holds more than a
    board of cards (8), so the next round can always be dealt."""
    state = engine.setup(PLAYERS, symbols_pack(17), seed=1)
    assert len(state["concepts"]) == 9
    state = play(state, ("Tim", replace(1)))
    assert len(state["concepts"]) == 8
    assert not [a for p in PLAYERS for a in engine.legal_actions(state, p) if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="keeps its last cards"):
        engine.apply(state, "Lisa", replace(2))


def test_a_card_cannot_be_replaced_when_no_concept_is_left():
    state = engine.setup(PLAYERS, symbols_pack(EXAMPLE_BOARD), seed=1)
    assert not any(action["type"] == "replace" for action in engine.legal_actions(state, "Tim"))
    with pytest.raises(IllegalAction, match="keeps its last cards"):
        engine.apply(state, "Tim", replace(1))


def test_a_state_saved_before_the_replacement_limits_allows_none_until_its_next_round():
    """A room's state stored before ``drawn`` and ``replaced_by`` existed still plays."""
    state = new_game()
    del state["drawn"], state["replaced_by"]
    assert not [a for a in engine.legal_actions(state, "Lisa") if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="drawn for this round"):
        engine.apply(state, "Lisa", replace(2))
    state = play(state, ("Sabine", hint("sonne")), ("Tim", guess(4)))
    assert [a for a in engine.legal_actions(state, "Lisa") if a["type"] == "replace"] == [replace(4)]


# --- piles, options, secrets ---------------------------------------------------------------


def test_stacked_numbers_give_the_secret_of_successive_rounds():
    state = new_game(numbers=[4, 7])
    assert state["secret"] == 4
    state = play(state, ("Sabine", hint("handy")), ("Tim", guess(4)))
    assert state["secret"] == 7


@pytest.mark.parametrize(
    "stack",
    [
        {"deck": []},
        {"concepts": ["nicht-da"]},
        {"concepts": ["oma", "oma"]},
        {"numbers": [9]},
        {"numbers": ["4"]},
    ],
)
def test_an_unknown_pile_or_card_in_the_stack_is_an_error(stack):
    with pytest.raises(ValueError):
        engine.setup(PLAYERS, symbols_pack(), seed=1, options={"stack": stack})


@pytest.mark.parametrize(
    "options",
    [{"first_candidate": "Ute"}, {"goal": 0}, {"grey_markers": "yes"}, {"colour": "green"}],
)
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError):
        engine.setup(PLAYERS, symbols_pack(), seed=1, options=options)


@pytest.mark.parametrize(
    "players", [["Tim", "Sabine"], [*PLAYERS, "Ute", "Jan", "Eva"], ["Tim", "Tim", "Lisa"]]
)
def test_three_to_six_distinct_players(players):
    with pytest.raises(ValueError):
        engine.setup(players, symbols_pack(), seed=1)


def test_the_secret_slot_is_hidden_from_the_candidate_and_the_table():
    state = new_game()
    assert "secret" not in engine.view(state, "Tim")
    assert "secret" not in engine.view(state, None)
    assert engine.view(state, "Sabine")["secret"] == 4
    assert "numbers" not in json.dumps(engine.view(state, None))


def test_the_concept_pile_is_shuffled_by_the_seed():
    one, again, other = (engine.setup(PLAYERS, symbols_pack(), seed=seed) for seed in (1, 1, 2))
    assert one == again
    assert one["board"] + one["concepts"] != other["board"] + other["concepts"]


# --- random legal games --------------------------------------------------------------------


def _universe(pack: dict[str, Any]) -> list[dict[str, Any]]:
    """Every action of the game's shape, legal or not, plus junk."""
    symbols = [tile["key"] for tile in pack["body"]["symbols"]]
    return [
        *(hint(symbol, marker) for symbol in symbols for marker in ("green", "grey", "blue")),
        *({"type": kind, "slot": slot} for kind in ("remove", "guess", "replace") for slot in range(0, 10)),
        *playouts.JUNK_ACTIONS,
    ]


def _expected_scores(state: dict[str, Any], action: dict[str, Any]) -> dict[str, int]:
    """The Scoring Summary, worked out again from the state before the action."""
    candidate, giver, secret = state["candidate"], state["last_hint_giver"], state["secret"]
    others = {p: 3 for p in state["players"] if p not in (candidate, giver)}
    gains: dict[str, int] = {}
    if action["type"] == "remove":
        if action["slot"] == secret:
            gains = others
        else:
            gains = {giver: 1}
            if state["removals"] == 6:
                gains[candidate] = 1
    elif action["type"] == "guess":
        on_board = sum(1 for card in state["board"] if card is not None)
        gains = {candidate: on_board} if action["slot"] == secret else others
    return {p: min(score + gains.get(p, 0), state["goal"]) for p, score in state["scores"].items()}


def _check_invariants(state: dict[str, Any], all_concepts: list[str]) -> None:
    cards = state["concepts"] + [c for c in state["board"] if c] + state["out"] + state["discarded"]
    assert Counter(cards) == Counter(all_concepts), "concept cards created or lost"
    assert all(0 <= score <= state["goal"] for score in state["scores"].values())
    if state["phase"] != "over":
        assert engine.result(state) is None
        assert sum(1 for card in state["board"] if card) == 8 - state["removals"]
        assert len(state["markers"]) <= engine.MAX_MARKERS


def _check_secrets(state: dict[str, Any], who: str | None) -> None:
    """The candidate's and the table's views do not change with the secret or the piles'
    order; the hint givers see the secret."""
    seen = engine.view(state, who)
    if who is not None and who != state["candidate"]:
        assert seen.get("secret") == state["secret"]
        return
    other = dict(state)
    if state["secret"] is not None:
        other["secret"] = state["secret"] % 8 + 1
    other["numbers"] = [*state["numbers"], 3]
    other["concepts"] = state["concepts"][::-1]
    assert playouts.dumped(engine.view(other, who)) == playouts.dumped(seen)
    assert "secret" not in seen


def play_random_game(
    rng: random.Random, n_players: int, seed: int, options: dict[str, Any], pack: dict[str, Any]
):
    players = [f"p{n}" for n in range(n_players)]
    state = engine.setup(players, pack, seed=seed, options=options)
    all_concepts = [card["key"] for card in pack["body"]["concepts"]]
    universe = _universe(pack)
    moves = []
    for _ in range(2000):
        _check_invariants(state, all_concepts)
        for who in (state["candidate"], rng.choice(players), None):
            _check_secrets(state, who)
        if engine.result(state) is not None:
            break
        legal = playouts.legal_moves(engine, state)
        assert legal, "nobody can act, but the game is not over"
        player, action = playouts.pick_move(rng, legal)
        refused = [(p, a) for p in [*players, "stranger"] for a in [rng.choice(universe)]]
        playouts.check_rejected(engine, state, [(p, a) for p, a in refused if (p, a) not in legal])
        playouts.check_legal_accepted(engine, state, [rng.choice(legal)])
        expected = _expected_scores(state, action)
        state = playouts.check_step(engine, state, player, action)
        assert state["scores"] == expected
        moves.append((player, action))
    else:
        pytest.fail("the game did not end in 2000 actions")
    outcome = engine.result(state)
    at_goal = [p for p in players if state["scores"][p] == state["goal"]]
    top = max(state["scores"].values())
    assert outcome["winners"] == (at_goal or [p for p in players if state["scores"][p] == top])
    return state, moves


games = st.fixed_dictionaries(
    {
        "n_players": st.integers(engine.MIN_PLAYERS, engine.MAX_PLAYERS),
        "seed": st.integers(0, 2**32),
        "moves": st.integers(0, 2**32),
        "options": st.fixed_dictionaries(
            {"grey_markers": st.booleans(), "goal": st.sampled_from([5, 12, 35])},
            optional={"symbols": st.just([*EXTRA_SYMBOLS, *BASE_SYMBOLS[4:]])},
        ),
        "n_concepts": st.sampled_from([9, 16, 40]),
    }
)


def _run(game: dict[str, Any]) -> None:
    pack = symbols_pack(game["n_concepts"])
    play_random_game(random.Random(game["moves"]), game["n_players"], game["seed"], game["options"], pack)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_random_legal_games_keep_the_rules(game):
    _run(game)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_thousands_of_random_legal_games_keep_the_rules(game):
    _run(game)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_players=st.integers(engine.MIN_PLAYERS, engine.MAX_PLAYERS), seed=st.integers(0, 2**32))
def test_an_eager_replacer_cannot_drain_the_pile(n_players, seed):
    """Issue 20: one player who replaces a card whenever it is legal (the others play at random)
    still leaves a game of many rounds that ends within a bounded number of actions: at most one
    replacement per player a round, so the pile of 112 loses at most one extra card a round."""
    players = [f"p{n}" for n in range(n_players)]
    rng = random.Random(seed)
    state = engine.setup(players, symbols_pack(112), seed=seed)
    replaced: Counter[int] = Counter()
    for _ in range(3000):
        if engine.result(state) is not None:
            break
        eager = [a for a in engine.legal_actions(state, "p0") if a["type"] == "replace"]
        if eager:
            player, action = "p0", rng.choice(eager)
            replaced[state["round"]] += 1
        else:
            moves = [(p, a) for p, a in playouts.legal_moves(engine, state) if a["type"] != "replace"]
            player, action = playouts.pick_move(rng, moves)
        state = engine.apply(state, player, action)
    else:
        pytest.fail("the game did not end in 3000 actions")
    assert max(replaced.values()) == 1
    assert len(state["discarded"]) <= state["round"]
    ending = [e["reason"] for e in state["log"] if e["type"] == "game_ended"]
    # Not drained in round 1: at most 8 cards leave a round, plus one replaced; 104 in the pile.
    assert ending == ["goal"] or state["round"] >= 104 // 9


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_a_game_replays_from_its_seed_options_and_actions(seed):
    options = {"grey_markers": True, "goal": 12}
    pack = symbols_pack(16)
    final, moves = play_random_game(random.Random(seed), 4, seed, options, pack)
    replayed = engine.setup([f"p{n}" for n in range(4)], pack, seed=seed, options=options)
    for player, action in moves:
        replayed = engine.apply(json.loads(json.dumps(replayed)), player, action)
    assert replayed == final


def test_the_log_records_each_removal_and_the_hint_givers_point():
    """Rulebook, Example of a Round: "Because Goethe is not the solution, Sabine gets a point for
    her hint"; docs/engines.md: a state's log records the events."""
    state = play(new_game(), ("Sabine", hint("handy")), ("Tim", remove(1)))
    assert state["log"][-2:] == [
        {"type": "removed", "player": "Tim", "slot": 1, "card": "goethe"},
        {"type": "scored", "points": {"Sabine": 1}},
    ]


def test_the_log_names_the_guessed_card_and_each_replacement():
    """Rulebook, Example of a Round: Tim "ventures a solution: 'Italy!'"; docs/engines.md,
    symbols: ``replace`` discards the card and draws a new one."""
    state = play(new_game(), ("Lisa", replace(2)))
    assert state["log"][-1] == {"type": "replaced", "player": "Lisa", "slot": 2, "card": "liebe",
                                "new": NEXT_CARDS[0]}  # fmt: skip
    state = play(state, ("Sabine", hint("sonne")), ("Tim", guess(4)))
    guessed = [event for event in state["log"] if event["type"] == "guessed"]
    assert guessed == [{"type": "guessed", "player": "Tim", "slot": 4, "card": "italien"}]


# --- found by the full mutation run (docs/mutation-testing-engines.md) ------------------------


def test_the_log_records_each_round_start_and_each_hint():
    """docs/engines.md, symbols: a round that ends starts the next one at once (the log records
    the end, and the start); the hint giver places a marker."""
    state = new_game()
    assert state["log"][0] == {"type": "round_started", "round": 1, "candidate": "Tim"}
    state = play(state, ("Sabine", hint("handy", "green")))
    assert state["log"][-1] == {"type": "hint", "player": "Sabine", "symbol": "handy", "marker": "green"}


def test_a_new_round_has_no_last_hint_giver_yet():
    """docs/engines.md, symbols: each round starts afresh; the scoring's "last hint giver" is
    of this round only."""
    state = play(new_game(), ("Sabine", hint("sonne")), ("Tim", guess(4)))
    assert state["round"] == 2
    assert state["last_hint_giver"] is None and engine.view(state, None)["last_hint_giver"] is None


def test_once_the_game_is_over_no_view_holds_a_secret():
    """docs/engines.md, symbols: the secret is the hint givers' "during a round"; after the end
    there is no round."""
    state = play(new_game(goal=6), ("Sabine", hint("sonne")), ("Tim", guess(4)))
    assert state["phase"] == "over"
    for who in [*PLAYERS, None]:
        assert "secret" not in engine.view(state, who)


def test_number_cards_one_and_eight_can_be_stacked():
    """Rulebook, Game Components: "8 number cards"; docs/engines.md: the integers 1 to 8."""
    assert new_game(numbers=[1])["secret"] == 1
    assert new_game(numbers=[8])["secret"] == 8


def test_a_goal_of_one_point_is_accepted():
    """docs/engines.md, symbols: ``goal`` is a positive whole number."""
    state = play(new_game(goal=1), ("Sabine", hint("handy")), ("Tim", remove(1)))
    assert state["phase"] == "over" and engine.result(state)["winners"] == ["Sabine"]


def test_a_board_of_exactly_seven_symbols_is_enough():
    """docs/engines.md, symbols: "a board needs at least 7 symbols, one per marker of a round"."""
    state = engine.setup(PLAYERS, symbols_pack(symbols=BASE_SYMBOLS[:7]), seed=1)
    assert len(state["symbols"]) == 7
    with pytest.raises(ValueError, match="at least 7"):
        engine.setup(PLAYERS, symbols_pack(symbols=BASE_SYMBOLS[:6]), seed=1)


@pytest.mark.parametrize("symbols", [5, "handy"])
def test_a_symbols_option_that_is_not_a_list_is_refused(symbols):
    """docs/engines.md, symbols: ``symbols`` lists the keys of the board's symbols."""
    with pytest.raises(ValueError, match="list of symbol keys"):
        new_game(symbols=symbols)
