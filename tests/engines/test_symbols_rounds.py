"""Sag's mit Symbolen, scripted: the rulebook's example round, the Scoring Summary row by row, the log."""

from __future__ import annotations

from typing import Any

from games.engines import symbols as engine
from tests.engines.packs import BASE_SYMBOLS, EXAMPLE_BOARD
from tests.engines.symbols_script import (
    NEXT_CARDS,
    concept_on,
    guess,
    hint,
    last_round,
    new_game,
    play,
    remove,
    replace,
)

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
