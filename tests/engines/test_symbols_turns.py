"""Sag's mit Symbolen, scripted: whose turn it is, which moves are refused, how the game ends."""

from __future__ import annotations

import json

import pytest

from games.engines import IllegalAction
from games.engines import symbols as engine
from tests.engines.packs import BASE_SYMBOLS, EXAMPLE_BOARD, symbols_pack
from tests.engines.symbols_script import PLAYERS, concept_on, guess, hint, new_game, play, remove

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


def test_a_goal_of_one_point_is_accepted():
    """docs/engines.md, symbols: ``goal`` is a positive whole number."""
    state = play(new_game(goal=1), ("Sabine", hint("handy")), ("Tim", remove(1)))
    assert state["phase"] == "over" and engine.result(state)["winners"] == ["Sabine"]
