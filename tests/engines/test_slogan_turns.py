"""Slogan, scripted: the setup and the order of turns, asking and judging, the second chance."""

import pytest

from games.engines import IllegalAction
from games.engines import slogan as engine
from tests.engines.slogan_script import (
    FOUR,
    PACK,
    THREE,
    alfons_pack,
    answer,
    arrange,
    ask,
    do,
    events,
    game,
    judge,
    wrong_answer,
)

# --- setup and turns --------------------------------------------------------------------------


def test_every_piece_starts_on_the_start_space_with_no_chips():
    state = game()
    assert state["positions"] == dict.fromkeys(FOUR, 0)
    assert state["scores"] == dict.fromkeys(FOUR, 0)


def test_the_alfons_cards_are_dealt_one_at_a_time_in_turn_onto_the_desks():
    keys = sorted(card["key"] for card in PACK["body"]["alfons"])
    state = game(alfons=keys)
    assert state["desks"] == {p: keys[seat::4] for seat, p in enumerate(FOUR)}


def test_the_deal_of_alfons_cards_starts_with_the_first_player():
    keys = sorted(card["key"] for card in PACK["body"]["alfons"])
    state = game(alfons=keys, first_player="cat")
    assert state["desks"]["cat"][0] == keys[0]
    assert state["desks"]["dan"][0] == keys[1]


def test_the_first_player_asks_the_next_player_clockwise():
    state = game(first_player="dan")
    assert (state["questioner"], state["questioned"]) == ("dan", "ann")


def test_the_questioner_draws_a_card_before_asking():
    state = game(cards=["karte-007"])
    assert state["card"] == "karte-007"
    card = engine.view(state, "ann")["card"]
    assert card["key"] == "karte-007"
    assert [slogan["answer"] for slogan in card["slogans"]] == [answer(7, 0), answer(7, 1)]


def test_after_a_turn_the_questioned_player_asks_next_and_the_turns_go_round():
    state = game(THREE)
    order = []
    for _ in range(4):
        order.append((state["questioner"], state["questioned"]))
        state = judge(ask(state), True)
    assert order == [("ann", "ben"), ("ben", "cat"), ("cat", "ann"), ("ann", "ben")]
    assert state["turn"] == 5


# --- asking and judging -----------------------------------------------------------------------


@pytest.mark.parametrize("stake", [1, 2, 3])
def test_a_correct_answer_takes_the_stake_and_moves_as_many_spaces(stake):
    state = judge(ask(game(), stake=stake), True)
    assert state["scores"]["ben"] == stake and state["positions"]["ben"] == stake
    assert state["scores"]["ann"] == 0 and state["positions"]["ann"] == 0


def test_a_correct_answer_gives_no_second_chance():
    state = judge(ask(game()), True)
    assert state["phase"] == "question" and state["questioner"] == "ben"


@pytest.mark.parametrize("stake", [1, 2, 3])
def test_a_wrong_answer_gives_the_stake_to_the_questioner(stake):
    state = wrong_answer(game(), stake=stake)
    assert state["scores"]["ann"] == stake and state["positions"]["ann"] == stake
    assert state["scores"]["ben"] == 0 and state["positions"]["ben"] == 0
    assert state["phase"] == "second_chance"


@pytest.mark.parametrize("stake", [0, 4, "2", True, None, 1.5])
def test_the_stake_is_one_two_or_three_chips(stake):
    with pytest.raises(IllegalAction, match="1, 2 or 3"):
        do(game(), "ann", "ask", slogan=0, stake=stake)


@pytest.mark.parametrize("slogan", [2, -1, "0", False])
def test_the_questioner_chooses_one_of_the_two_slogans(slogan):
    with pytest.raises(IllegalAction, match="0 or 1"):
        do(game(), "ann", "ask", slogan=slogan, stake=1)


def test_only_the_questioner_asks_and_judges():
    state = game()
    with pytest.raises(IllegalAction, match="ann asks"):
        do(state, "ben", "ask", slogan=0, stake=1)
    state = ask(state)
    with pytest.raises(IllegalAction, match="ann judges"):
        do(state, "ben", "judge", correct=True)
    assert engine.legal_actions(state, "ben") == []
    assert engine.legal_actions(state, "ann") == [
        {"type": "judge", "correct": True},
        {"type": "judge", "correct": False},
    ]


def test_the_judgement_is_true_or_false():
    with pytest.raises(IllegalAction, match="true or false"):
        do(ask(game()), "ann", "judge", correct="yes")


def test_the_bank_never_runs_out():
    state = arrange(game(), chips={"ben": 10_000})
    assert judge(ask(state, stake=3), True)["scores"]["ben"] == 10_003


# --- the second chance: Alfons, tip or pass ---------------------------------------------------


def test_a_wrong_answerer_may_choose_alfons_a_tip_or_to_pass():
    state = wrong_answer(game())
    actions = engine.legal_actions(state, "ben")
    assert actions == [
        {"type": "alfons"},
        *[{"type": "tip", "option": n} for n in range(4)],
        {"type": "pass"},
    ]
    assert engine.legal_actions(state, "ann") == []


def test_a_correct_tip_moves_one_space_and_pays_no_chips():
    state = wrong_answer(game(cards=["karte-001"]))
    state = do(state, "ben", "tip", option=answer(1, 0))
    assert state["positions"]["ben"] == 1 and state["scores"]["ben"] == 0
    assert events(state, "tip")[0]["correct"] is True


def test_a_wrong_tip_changes_nothing():
    state = wrong_answer(game(cards=["karte-001"]))
    state = do(state, "ben", "tip", option=(answer(1, 0) + 1) % 4)
    assert state["positions"]["ben"] == 0 and state["scores"]["ben"] == 0


@pytest.mark.parametrize("option", [4, -1, "1", None])
def test_a_tip_points_at_one_of_four_options(option):
    with pytest.raises(IllegalAction, match="four options"):
        do(wrong_answer(game()), "ben", "tip", option=option)


def test_passing_ends_the_turn():
    state = do(wrong_answer(game()), "ben", "pass")
    assert state["questioner"] == "ben" and state["phase"] == "question"
    assert state["positions"]["ben"] == 0 and state["scores"]["ben"] == 0


def test_only_one_second_chance_is_used():
    state = do(wrong_answer(game()), "ben", "pass")
    with pytest.raises(IllegalAction):
        do(state, "ben", "tip", option=0)


def test_only_the_wrong_answerer_has_a_second_chance():
    with pytest.raises(IllegalAction, match="Only ben"):
        do(wrong_answer(game()), "cat", "alfons")


def test_alfons_uses_the_top_card_of_the_own_desk_and_discards_it():
    state = wrong_answer(game())
    top = state["desks"]["ben"][0]
    state = do(state, "ben", "alfons")
    assert top not in state["desks"]["ben"] and state["alfons_discard"] == [top]
    assert events(state, "alfons")[0]["card"] == top


def test_with_an_empty_desk_only_the_tip_is_left():
    state = arrange(wrong_answer(game()), desks={"ben": []})
    assert {"type": "alfons"} not in engine.legal_actions(state, "ben")
    with pytest.raises(IllegalAction, match="desk is empty"):
        do(state, "ben", "alfons")
    assert {"type": "tip", "option": 0} in engine.legal_actions(state, "ben")


def test_a_desk_is_never_refilled():
    state = game(THREE, pack=alfons_pack({"kind": "chips", "amount": 1}))
    assert state["desks"] == {"ann": ["alfons-01-chips"], "ben": [], "cat": []}
    state = do(wrong_answer(state), "ben", "pass")  # ben asks cat
    state = do(wrong_answer(state), "cat", "pass")  # cat asks ann
    state = do(wrong_answer(state), "ann", "alfons")
    assert state["desks"] == {"ann": [], "ben": [], "cat": []}
