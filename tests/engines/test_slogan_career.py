"""Slogan, scripted: the career levels and their prizes, the goal and the end of the game."""

import pytest

from games.engines import IllegalAction
from games.engines import slogan as engine
from tests.engines.packs import slogan_pack
from tests.engines.slogan_script import (
    FOUR,
    THREE,
    alfons_pack,
    answer,
    arrange,
    ask,
    do,
    events,
    game,
    judge,
    one_alfons,
    wrong_answer,
)

# --- career -----------------------------------------------------------------------------------


def test_entering_a_higher_level_pays_a_chip_per_player_strictly_behind():
    state = arrange(game(), positions={"ann": 0, "ben": 5, "cat": 3, "dan": 7})
    state = judge(ask(state, stake=2), True)  # ben 5 -> 7: level 2; ann and cat behind, dan level
    assert state["positions"]["ben"] == 7
    assert state["scores"]["ben"] == 2 + 2
    assert events(state, "career_prize") == [
        {"type": "career_prize", "turn": 1, "player": "ben", "level": 2, "chips": 2}
    ]


def test_entering_the_first_level_pays_nothing():
    state = judge(ask(game(), stake=3), True)
    assert state["scores"]["ben"] == 3 and events(state, "career_prize") == []


def test_moving_within_a_level_pays_nothing():
    state = arrange(game(), positions={"ben": 8})
    state = judge(ask(state, stake=3), True)
    assert state["positions"]["ben"] == 11 and state["scores"]["ben"] == 3


def test_a_jump_over_several_levels_pays_only_the_highest():
    state = one_alfons({"kind": "move", "amount": 14}, positions={"ann": 0, "ben": 5, "cat": 9, "dan": 13})
    assert state["positions"]["ben"] == 19  # level 1 -> level 4
    assert events(state, "career_prize") == [
        {"type": "career_prize", "turn": 1, "player": "ben", "level": 4, "chips": 3}
    ]
    assert state["scores"]["ben"] == 3


def test_falling_back_pays_nothing():
    state = one_alfons({"kind": "move", "amount": -3}, positions={"ben": 8}, chips={"ben": 4})
    assert state["positions"]["ben"] == 5
    assert state["scores"]["ben"] == 4 and events(state, "career_prize") == []


def test_climbing_again_after_a_setback_pays_again():
    state = game(THREE, pack=alfons_pack({"kind": "move", "amount": -3}))
    state = arrange(state, positions={"ben": 5}, desks={"ann": [], "ben": ["alfons-01-move"]})
    state = judge(ask(state, stake=2), True)  # ann asks ben: 5 -> 7, level 2, two behind
    assert state["scores"]["ben"] == 2 + 2
    state = judge(ask(state), True)  # ben asks cat
    state = judge(ask(state), True)  # cat asks ann
    state = do(wrong_answer(state), "ben", "alfons")  # ann asks ben: back 7 -> 4, a career setback
    assert state["positions"]["ben"] == 4 and state["scores"]["ben"] == 4
    state = judge(ask(state), True)  # ben asks cat
    state = judge(ask(state), True)  # cat asks ann
    state = judge(ask(state, stake=3), True)  # ann asks ben: 4 -> 7, level 2 again
    assert state["scores"]["ben"] == 4 + 3 + 2
    assert [(e["player"], e["level"]) for e in events(state, "career_prize")] == [("ben", 2), ("ben", 2)]


def test_reaching_the_goal_pays_a_prize_and_ends_the_game():
    state = arrange(game(), positions={"ann": 30, "ben": 35, "cat": 36, "dan": 10}, chips={"cat": 20})
    state = judge(ask(state, stake=3), True)
    assert state["positions"]["ben"] == 37  # moves stop at the goal
    assert events(state, "career_prize")[-1] == {
        "type": "career_prize", "turn": 1, "player": "ben", "level": 7, "chips": 3,
    }  # fmt: skip
    assert state["scores"]["ben"] == 6
    assert state["phase"] == "over"
    assert engine.result(state) == {"scores": {"ann": 0, "ben": 6, "cat": 20, "dan": 0}, "winners": ["cat"]}


def test_a_correct_tip_into_a_new_level_pays_the_career_prize():
    state = wrong_answer(arrange(game(cards=["karte-002"]), positions={"ben": 6}))
    state = do(state, "ben", "tip", option=answer(2, 0))
    assert state["positions"]["ben"] == 7
    assert state["scores"]["ben"] == 3  # ann (1), cat and dan (0) are behind


def test_moves_stop_at_the_start():
    state = one_alfons({"kind": "move", "amount": -5}, positions={"ben": 2})
    assert state["positions"]["ben"] == 0


# --- the end ----------------------------------------------------------------------------------


def test_the_winner_has_the_most_chips_not_the_first_piece_home():
    state = arrange(game(), positions={"ben": 36}, chips={"dan": 30})
    state = judge(ask(state), True)
    assert engine.result(state) == {"scores": {"ann": 0, "ben": 4, "cat": 0, "dan": 30}, "winners": ["dan"]}


def test_equal_chips_share_the_win():
    state = arrange(game(), positions={"ben": 36}, chips={"ann": 4, "ben": 0})
    state = judge(ask(state), True)  # ben: 1 stake + 3 goal prize
    assert engine.result(state)["winners"] == ["ann", "ben"]


def test_a_questioner_reaching_the_goal_on_a_wrong_answer_ends_the_game_at_once():
    state = wrong_answer(arrange(game(), positions={"ann": 36}))
    assert state["phase"] == "over"
    assert engine.legal_actions(state, "ben") == []
    assert events(state, "solution")  # the question is settled and shown


def test_the_game_ends_when_the_box_of_slogans_is_empty():
    state = game(pack=slogan_pack(n_cards=2))
    state = judge(ask(state), True)
    assert state["phase"] == "question"
    state = judge(ask(state), True)
    assert state["phase"] == "over"
    assert state["log"][-1]["reason"] == "cards_exhausted"
    assert engine.result(state)["winners"] == ["ben", "cat"]


def test_after_the_end_nothing_can_be_done():
    state = judge(ask(arrange(game(), positions={"ben": 36})), True)
    assert all(engine.legal_actions(state, p) == [] for p in FOUR)
    with pytest.raises(IllegalAction, match="over"):
        ask(state)


def test_the_start_is_level_zero_and_the_goal_level_seven():
    """Rulebook / docs/engines.md, slogan: "space 0 is the start, spaces 1–36 are six career
    levels of six spaces ... space 37 is the goal"."""
    assert [engine.career_level(space) for space in (0, 1, 6, 7, 36, 37)] == [0, 1, 1, 2, 6, 7]
    assert engine.view(game(), None)["levels"] == dict.fromkeys(FOUR, 0)
