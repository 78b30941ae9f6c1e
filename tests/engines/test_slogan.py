"""Slogan, scripted: questions and stakes, second chances, Spießer Alfons, the career, duels."""

import copy
import json

import pytest

from games.engines import IllegalAction
from games.engines import slogan as engine
from tests.engines.packs import slogan_pack

PACK = slogan_pack()  # karte-001..040; one Alfons card of each kind (alfons-01-move … alfons-12-to-level)
FOUR = ["ann", "ben", "cat", "dan"]
THREE = ["ann", "ben", "cat"]


def answer(card, slogan):
    """The correct option of ``karte-<card>``'s slogan 0 or 1 in the test pack."""
    return (card + slogan + 1) % 4


def game(players=FOUR, *, cards=(), alfons=(), pack=PACK, seed=0, **options):
    stack = {}
    if cards:
        stack["cards"] = list(cards)
    if alfons:
        stack["alfons"] = list(alfons)
    return engine.setup(players, pack, seed=seed, options={**options, "stack": stack})


def alfons_pack(*effects):
    """A pack whose Alfons cards are ``alfons-01-…`` with these effects, in order."""
    return slogan_pack(effects=effects)


def arrange(state, *, positions=None, chips=None, desks=None):
    """The same game with pieces, chips or desks set as a test needs them."""
    state = copy.deepcopy(state)
    state["positions"].update(positions or {})
    state["scores"].update(chips or {})
    state["desks"].update(desks or {})
    return state


def do(state, actor, kind, **fields):
    return engine.apply(state, actor, {"type": kind, **fields})


def ask(state, slogan=0, stake=1):
    return do(state, state["questioner"], "ask", slogan=slogan, stake=stake)


def judge(state, correct):
    return do(state, state["questioner"], "judge", correct=correct)


def wrong_answer(state, stake=1):
    """The questioner asks and judges the answer wrong: the questioned player's second chance."""
    return judge(ask(state, stake=stake), False)


def draw_alfons(state, **arrangement):
    """After a wrong answer, with the table arranged, the questioned player draws an Alfons card."""
    state = arrange(wrong_answer(state), **arrangement)
    return do(state, state["questioned"], "alfons")


def events(state, kind):
    return [event for event in state["log"] if event["type"] == kind]


def one_alfons(effect, **arrangement):
    """Ben (questioned by ann) draws a single Alfons card with this effect; ann took 1 chip and
    moved 1 space for the wrong answer before ``arrangement`` sets the table."""
    state = game(pack=alfons_pack(effect))
    state = arrange(state, desks={"ann": [], "ben": ["alfons-01-" + effect["kind"].replace("_", "-")]})
    return draw_alfons(state, **arrangement)


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


# --- Spießer Alfons effects -------------------------------------------------------------------


def test_a_move_card_moves_the_piece():
    state = one_alfons({"kind": "move", "amount": 2})
    assert state["positions"]["ben"] == 2
    assert events(state, "alfons")[0]["void"] is False


def test_a_move_back_on_the_start_space_is_void():
    state = one_alfons({"kind": "move", "amount": -2})
    assert state["positions"]["ben"] == 0
    assert events(state, "alfons")[0]["void"] is True


def test_a_chips_card_pays_from_the_bank():
    assert one_alfons({"kind": "chips", "amount": 3})["scores"]["ben"] == 3


def test_a_chips_card_takes_chips_to_the_bank():
    assert one_alfons({"kind": "chips", "amount": -2}, chips={"ben": 5})["scores"]["ben"] == 3


def test_a_bankrupt_player_pays_what_they_have():
    assert one_alfons({"kind": "chips", "amount": -4}, chips={"ben": 1})["scores"]["ben"] == 0


def test_a_player_with_no_chips_pays_nothing_and_the_card_is_void():
    state = one_alfons({"kind": "chips", "amount": -4})
    assert state["scores"]["ben"] == 0 and events(state, "alfons")[0]["void"] is True


def test_pay_each_pays_every_other_player():
    state = one_alfons({"kind": "pay_each", "amount": 2}, chips={"ann": 1, "ben": 10, "cat": 0, "dan": 0})
    assert state["scores"] == {"ann": 3, "ben": 4, "cat": 2, "dan": 2}


def test_pay_each_when_short_pays_clockwise_while_chips_last():
    state = one_alfons({"kind": "pay_each", "amount": 2}, chips={"ann": 0, "ben": 3, "cat": 0, "dan": 0})
    assert state["scores"] == {"ann": 0, "ben": 0, "cat": 2, "dan": 1}


def test_pay_each_without_chips_is_void():
    state = one_alfons({"kind": "pay_each", "amount": 2}, chips={"ann": 1, "ben": 0})
    assert state["scores"] == {"ann": 1, "ben": 0, "cat": 0, "dan": 0}
    assert events(state, "alfons")[0]["void"] is True


def test_collect_each_takes_from_every_other_player_and_bankrupt_players_pay_what_they_have():
    state = one_alfons({"kind": "collect_each", "amount": 2}, chips={"ann": 5, "ben": 0, "cat": 1, "dan": 0})
    assert state["scores"] == {"ann": 3, "ben": 3, "cat": 0, "dan": 0}


def test_collect_each_from_players_without_chips_is_void():
    state = one_alfons({"kind": "collect_each", "amount": 2}, chips={"ann": 0})
    assert state["scores"]["ben"] == 0 and events(state, "alfons")[0]["void"] is True


def test_swap_with_the_leader():
    state = one_alfons(
        {"kind": "swap", "target": "leader"}, positions={"ann": 20, "ben": 3, "cat": 9, "dan": 1}
    )
    assert state["positions"] == {"ann": 3, "ben": 20, "cat": 9, "dan": 1}
    assert events(state, "swap")[0]["partner"] == "ann"


def test_swap_with_the_leader_pays_the_drawer_a_career_prize():
    state = one_alfons(
        {"kind": "swap", "target": "leader"}, positions={"ann": 20, "ben": 3, "cat": 9, "dan": 1}
    )
    assert state["scores"]["ben"] == 3  # level 4: ann (now 3), cat and dan behind
    assert state["scores"]["ann"] == 1  # the stake only: falling back pays nothing


def test_swap_with_the_leader_is_void_for_the_leader():
    state = one_alfons({"kind": "swap", "target": "leader"}, positions={"ann": 2, "ben": 12, "cat": 12})
    assert state["positions"]["ben"] == 12 and events(state, "alfons")[0]["void"] is True


def test_tied_leaders_are_picked_by_the_seed():
    def partner(seed):
        state = game(seed=seed, pack=alfons_pack({"kind": "swap", "target": "leader"}))
        state = arrange(state, desks={"ann": [], "ben": ["alfons-01-swap"]})
        state = draw_alfons(state, positions={"ann": 10, "ben": 0, "cat": 10, "dan": 4})
        return events(state, "swap")[0]["partner"]

    partners = {seed: partner(seed) for seed in range(12)}
    assert set(partners.values()) == {"ann", "cat"}
    assert all(partner(seed) == chosen for seed, chosen in partners.items())


def test_swap_with_the_last_player_pays_the_lifted_player_a_career_prize():
    state = one_alfons(
        {"kind": "swap", "target": "last"}, positions={"ann": 4, "ben": 20, "cat": 2, "dan": 9}
    )
    assert state["positions"] == {"ann": 4, "ben": 2, "cat": 20, "dan": 9}
    assert state["scores"]["cat"] == 3  # level 4: ann, ben and dan behind


def test_swap_with_the_last_player_is_void_for_the_last_player():
    state = one_alfons({"kind": "swap", "target": "last"}, positions={"ann": 4, "ben": 0, "cat": 2, "dan": 0})
    assert state["positions"]["ben"] == 0 and events(state, "alfons")[0]["void"] is True


def test_swap_with_the_next_player_takes_the_nearest_piece_ahead_or_behind():
    state = one_alfons(
        {"kind": "swap", "target": "next"}, positions={"ann": 14, "ben": 10, "cat": 8, "dan": 20}
    )
    assert state["positions"]["ben"] == 8 and state["positions"]["cat"] == 10


def test_swap_with_the_next_player_ignores_pieces_on_the_same_space():
    state = one_alfons(
        {"kind": "swap", "target": "next"}, positions={"ann": 10, "ben": 10, "cat": 13, "dan": 0}
    )
    assert state["positions"]["ben"] == 13 and state["positions"]["cat"] == 10


def test_swap_with_the_next_player_is_void_when_every_piece_shares_the_space():
    state = one_alfons({"kind": "swap", "target": "next"}, positions=dict.fromkeys(FOUR, 5))
    assert events(state, "alfons")[0]["void"] is True
    assert state["positions"] == dict.fromkeys(FOUR, 5)


def test_equally_near_next_players_are_picked_by_the_seed():
    def partner(seed):
        state = game(seed=seed, pack=alfons_pack({"kind": "swap", "target": "next"}))
        state = arrange(state, desks={"ann": [], "ben": ["alfons-01-swap"]})
        state = draw_alfons(state, positions={"ann": 8, "ben": 10, "cat": 12, "dan": 30})
        return events(state, "swap")[0]["partner"]

    assert {partner(seed) for seed in range(12)} == {"ann", "cat"}


def test_overtake_moves_to_the_space_in_front_of_the_next_player_ahead():
    state = one_alfons({"kind": "overtake"}, positions={"ann": 1, "ben": 3, "cat": 9, "dan": 15})
    assert state["positions"]["ben"] == 10
    assert state["scores"]["ben"] == 2  # level 2: ann (1) and cat (9) are behind


def test_overtake_is_void_when_nobody_is_ahead():
    state = one_alfons({"kind": "overtake"}, positions={"ann": 1, "ben": 30, "cat": 30, "dan": 15})
    assert state["positions"]["ben"] == 30 and events(state, "alfons")[0]["void"] is True


def test_overtaking_a_piece_on_the_last_space_reaches_the_goal_and_ends_the_game():
    state = one_alfons({"kind": "overtake"}, positions={"ann": 1, "ben": 30, "cat": 36, "dan": 15})
    assert state["positions"]["ben"] == 37 and state["phase"] == "over"


def test_to_start_sends_the_piece_back_to_the_start():
    state = one_alfons({"kind": "to_start"}, positions={"ben": 25})
    assert state["positions"]["ben"] == 0


def test_to_start_on_the_start_is_void():
    state = one_alfons({"kind": "to_start"})
    assert events(state, "alfons")[0]["void"] is True


def test_to_level_forward_pays_the_career_prize():
    state = one_alfons({"kind": "to_level", "amount": 3}, positions={"ann": 1, "ben": 2, "cat": 0, "dan": 0})
    assert state["positions"]["ben"] == 13
    assert state["scores"]["ben"] == 3


def test_to_level_backward_pays_nothing():
    state = one_alfons({"kind": "to_level", "amount": 2}, positions={"ann": 1, "ben": 30})
    assert state["positions"]["ben"] == 7 and state["scores"]["ben"] == 0


def test_to_level_on_the_first_space_of_that_level_is_void():
    state = one_alfons({"kind": "to_level", "amount": 2}, positions={"ben": 7})
    assert events(state, "alfons")[0]["void"] is True


def test_an_alfons_move_into_the_goal_ends_the_game():
    state = one_alfons({"kind": "move", "amount": 5}, positions={"ben": 34}, chips={"ben": 0, "ann": 9})
    assert state["positions"]["ben"] == 37
    assert engine.result(state)["winners"] == ["ann"]


# --- the duel ---------------------------------------------------------------------------------


def challenge(state, challenger, target):
    return do(state, challenger, "challenge", target=target)


def duel_judge(state, reader, player, slogan, correct):
    return do(state, reader, "judge", player=player, slogan=slogan, correct=correct)


def test_only_a_player_with_the_most_chips_can_be_challenged():
    state = arrange(game(), chips={"ann": 0, "ben": 3, "cat": 5, "dan": 1})
    assert [a["target"] for a in engine.legal_actions(state, "dan")] == ["cat"]
    with pytest.raises(IllegalAction, match="leader"):
        challenge(state, "dan", "ben")


def test_the_challenger_chooses_among_tied_leaders():
    """Rulebook, Challenge: "If several players are tied at the top, the challenger may decide
    whom he challenges"; a tied leader is not behind, so cannot challenge the other one."""
    state = arrange(game(), chips={"ann": 0, "ben": 5, "cat": 5, "dan": 1})
    assert [a["target"] for a in engine.legal_actions(state, "dan")] == ["ben", "cat"]
    assert [a["type"] for a in engine.legal_actions(state, "ben")] == []
    with pytest.raises(IllegalAction, match="behind the leader"):
        challenge(state, "ben", "cat")


def test_the_leader_cannot_challenge_anyone():
    """Rulebook, Challenge: "challenge the leader (and only the leader!)": the leader has nobody
    to challenge, not even himself."""
    state = arrange(game(), chips={"cat": 5})
    assert engine.legal_actions(state, "cat") == []
    before = json.dumps(state, sort_keys=True)
    for target in ("cat", "dan"):
        with pytest.raises(IllegalAction, match="behind the leader"):
            challenge(state, "cat", target)
    assert json.dumps(state, sort_keys=True) == before


def test_a_challenge_comes_before_the_question():
    state = ask(arrange(game(), chips={"cat": 5}))
    with pytest.raises(IllegalAction, match="before"):
        challenge(state, "dan", "cat")


def test_with_two_players_there_is_no_duel():
    state = game(["ann", "ben"])
    assert engine.legal_actions(state, "ben") == []
    with pytest.raises(IllegalAction, match="third player"):
        challenge(state, "ben", "ann")


def test_a_duel_is_read_from_the_card_the_questioner_drew_for_this_turn():
    """Rulebook, Challenge: "The questioner reads the two slogans of a card aloud";
    docs/engines.md, slogan: "duel: both slogans of the card the questioner drew for this turn"."""
    state = arrange(game(cards=["karte-001", "karte-002"]), chips={"cat": 5})
    assert state["card"] == "karte-001"  # ann, the questioner, has drawn it
    state = challenge(state, "dan", "cat")
    assert state["duel"]["card"] == "karte-001"
    assert state["duel"]["readers"] == ["ann"]
    assert state["pile"][0] == "karte-002" and "karte-001" not in state["pile"]
    assert state["card"] is None
    assert events(state, "challenge")[0]["new_card"] is False


def test_a_questioner_who_duels_puts_the_card_back_and_another_player_reads_a_new_one():
    """Rulebook, Challenge, note: "If the questioner is himself the leader, another player must
    read aloud the slogans from a card that he newly draws from the slogan box. If the original
    questioner had already drawn a card, it is put back into the box in this case."""
    state = arrange(game(cards=["karte-001", "karte-002"]), chips={"ann": 5})
    state = challenge(state, "dan", "ann")
    assert state["duel"]["card"] == "karte-002"
    assert state["pile"][-1] == "karte-001"
    assert state["duel"]["readers"] == ["ben", "cat"]
    assert state["card"] is None
    assert events(state, "challenge")[0]["new_card"] is True


def test_the_challenged_player_answers_first_and_each_correct_answer_takes_a_chip():
    state = arrange(game(cards=["karte-001", "karte-002"]), chips={"cat": 5})
    state = challenge(state, "dan", "cat")
    assert engine.legal_actions(state, "ann") == [
        {"type": "judge", "player": "cat", "slogan": 0, "correct": True},
        {"type": "judge", "player": "cat", "slogan": 0, "correct": False},
    ]
    with pytest.raises(IllegalAction, match="cat answers slogan 1"):
        duel_judge(state, "ann", "dan", 0, True)
    state = duel_judge(state, "ann", "cat", 0, False)
    state = duel_judge(state, "ann", "dan", 0, True)
    state = duel_judge(state, "ann", "cat", 1, True)
    assert state["phase"] == "duel"
    state = duel_judge(state, "ann", "dan", 1, True)
    assert state["scores"] == {"ann": 0, "ben": 0, "cat": 6, "dan": 2}
    assert state["positions"] == dict.fromkeys(FOUR, 0)  # a duel moves no piece
    assert events(state, "duel_end")[0]["chips"] == {"cat": 1, "dan": 2}
    assert events(state, "duel_end")[0]["winner"] == "dan"


def test_the_duel_replaces_the_question_and_the_turn_passes():
    state = arrange(game(), chips={"cat": 5})
    state = challenge(state, "dan", "cat")
    for player, slogan in [("cat", 0), ("dan", 0), ("cat", 1), ("dan", 1)]:
        state = duel_judge(state, "ann", player, slogan, False)
    assert (state["questioner"], state["phase"], state["turn"]) == ("ben", "question", 2)
    assert events(state, "ask") == []


def test_the_questioner_judges_a_duel_and_nobody_else_does():
    state = challenge(arrange(game(), chips={"cat": 5}), "dan", "cat")
    for player in ["ben", "cat", "dan"]:
        assert engine.legal_actions(state, player) == []
        with pytest.raises(IllegalAction, match="ann reads"):
            duel_judge(state, player, "cat", 0, True)


def test_when_the_questioner_is_the_leader_another_player_reads_and_judges():
    state = challenge(arrange(game(), chips={"ann": 5}), "ben", "ann")
    assert state["duel"]["readers"] == ["cat", "dan"]
    assert engine.legal_actions(state, "ann") == [] and engine.legal_actions(state, "ben") == []
    with pytest.raises(IllegalAction, match="cat or dan"):
        duel_judge(state, "ann", "ann", 0, True)
    state = duel_judge(state, "cat", "ann", 0, True)
    state = duel_judge(state, "dan", "ben", 0, True)
    assert state["scores"]["ann"] == 6 and state["scores"]["ben"] == 1


def test_when_the_questioner_challenges_another_player_reads_too():
    state = challenge(arrange(game(THREE), chips={"cat": 5}), "ann", "cat")
    assert state["duel"]["readers"] == ["ben"]


def test_at_the_start_everybody_leads_so_nobody_can_challenge():
    """Rulebook, Challenge: only "the leader" is challenged, by a player behind; at 0–0 nobody is
    behind (docs/engines.md, slogan)."""
    state = game(THREE)
    assert all(engine.legal_actions(state, p) == [] for p in ("ben", "cat"))
    with pytest.raises(IllegalAction, match="behind the leader"):
        challenge(state, "cat", "ann")


def finish_duel(state, reader):
    for player, slogan in ((state["duel"]["challenged"], 0), (state["duel"]["challenger"], 0),
                           (state["duel"]["challenged"], 1), (state["duel"]["challenger"], 1)):  # fmt: skip
        state = duel_judge(state, reader, player, slogan, False)
    return state


def play_question(state):
    """The turn's question, answered right (the turn passes)."""
    return judge(ask(state), True)


def test_the_turn_after_a_duel_is_always_a_question():
    """docs/engines.md, slogan: never two duels in a row (a duel moves no piece: the table gets its
    question first). The turn after that, challenges are open again."""
    state = finish_duel(challenge(arrange(game(), chips={"cat": 5}), "dan", "cat"), "ann")
    assert state["turn"] == 2 and state["phase"] == "question"
    for player in FOUR:
        assert not [a for a in engine.legal_actions(state, player) if a["type"] == "challenge"]
    with pytest.raises(IllegalAction, match="last turn was a duel"):
        challenge(state, "ann", "cat")
    state = play_question(state)
    assert state["turn"] == 3
    assert [a["target"] for a in engine.legal_actions(state, "ann")] == ["cat"]
    challenge(state, "ann", "cat")


def test_a_player_challenges_at_most_once_a_lap():
    """docs/engines.md, slogan: a player challenges again only once every player has been
    questioner since (four turns with four players), so one eager player cannot stall the table."""
    state = finish_duel(challenge(arrange(game(), chips={"cat": 9}), "dan", "cat"), "ann")
    state = play_question(state)  # turn 2: ben asks cat
    assert state["turn"] == 3
    assert not [a for a in engine.legal_actions(state, "dan") if a["type"] == "challenge"]
    with pytest.raises(IllegalAction, match="again from turn 5"):
        challenge(state, "dan", "cat")
    state = play_question(state)  # turn 3
    assert not [a for a in engine.legal_actions(state, "dan") if a["type"] == "challenge"]  # dan asks
    state = play_question(state)  # turn 4
    assert state["turn"] == 5
    assert [a["target"] for a in engine.legal_actions(state, "dan")] == ["cat"]
    state = challenge(state, "dan", "cat")
    assert state["challenged_on"] == {"dan": 5}


def test_another_player_may_challenge_in_the_same_lap():
    """docs/engines.md, slogan: the lap limit is each player's own."""
    state = finish_duel(challenge(arrange(game(), chips={"cat": 9}), "dan", "cat"), "ann")
    state = play_question(state)
    assert [a["target"] for a in engine.legal_actions(state, "ann")] == ["cat"]
    state = challenge(state, "ann", "cat")
    assert state["challenged_on"] == {"dan": 1, "ann": 3} and state["last_duel"] == 3


def test_a_state_saved_before_the_challenge_limits_still_plays():
    """A room's state stored before ``challenged_on`` and ``last_duel`` existed: no duel yet."""
    state = arrange(game(), chips={"cat": 5})
    del state["challenged_on"], state["last_duel"]
    assert [a["target"] for a in engine.legal_actions(state, "dan")] == ["cat"]
    assert challenge(state, "dan", "cat")["challenged_on"] == {"dan": 1}


@pytest.mark.parametrize(
    "action",
    [
        {"type": "judge", "player": "cat", "slogan": 0, "correct": "yes"},
        {"type": "judge", "player": "cat", "slogan": 0},
        {"type": "judge", "correct": True},
        {"type": "judge", "player": "cat", "slogan": True, "correct": True},
    ],
)
def test_malformed_duel_judgements_are_illegal(action):
    state = challenge(arrange(game(), chips={"cat": 5}), "dan", "cat")
    with pytest.raises(IllegalAction):
        engine.apply(state, "ann", action)


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


# --- secrets ----------------------------------------------------------------------------------


def texts_of(card, slogan):
    """The printed texts of ``karte-<card>``'s slogan in the test pack: slogan, then options."""
    side = slogan + 1
    return [f"Slogan {card}/{side} …", *[f"Brand {card}-{side}-{n}" for n in range(4)]]


def shown(state, viewer, texts):
    dump = json.dumps(engine.view(state, viewer), ensure_ascii=False)
    return [text for text in texts if f'"{text}"' in dump]


def test_before_the_question_only_the_questioner_sees_the_card():
    state = game(cards=["karte-003"])
    secret = texts_of(3, 0) + texts_of(3, 1) + ["karte-003", "slogan-003-1", "slogan-003-2"]
    assert shown(state, "ann", secret) == secret
    for viewer in ["ben", "cat", None]:
        assert shown(state, viewer, secret) == []


def test_the_asked_slogan_is_read_aloud_but_options_and_answer_stay_with_the_questioner():
    state = ask(game(cards=["karte-003"]), slogan=1, stake=2)
    slogan_text, *options = texts_of(3, 1)
    assert engine.view(state, "ann")["question"]["answer"] == answer(3, 1)
    for viewer in ["ben", "cat", None]:
        seen = engine.view(state, viewer)
        assert seen["question"] == {"slogan": 1, "text": slogan_text, "stake": 2}
        assert shown(state, viewer, [*options, "karte-003", "slogan-003-2", *texts_of(3, 0)]) == []


def test_in_the_tip_step_the_questioned_player_sees_the_options_but_not_the_answer():
    state = wrong_answer(game(cards=["karte-003"]))
    _, *options = texts_of(3, 0)
    assert engine.view(state, "ben")["question"]["options"] == options
    assert "answer" not in engine.view(state, "ben")["question"]
    for viewer in ["cat", None]:
        assert shown(state, viewer, options) == []


def test_after_the_question_everything_is_public():
    state = do(wrong_answer(game(cards=["karte-003"])), "ben", "pass")
    solution = events(state, "solution")[0]
    assert solution["answer"] == answer(3, 0) and solution["key"] == "slogan-003-1"
    for viewer in [*FOUR, None]:
        assert shown(state, viewer, texts_of(3, 0)) == texts_of(3, 0)
        assert shown(state, viewer, texts_of(3, 1)[1:]) == []  # the slogan not asked stays unread


def test_in_a_duel_only_the_readers_see_options_and_answers_until_each_slogan_is_judged():
    state = challenge(arrange(game(cards=["karte-001", "karte-002"]), chips={"ann": 5}), "ben", "ann")
    options = texts_of(2, 0)[1:] + texts_of(2, 1)[1:]
    for reader in ["cat", "dan"]:
        assert shown(state, reader, options) == options
    for viewer in ["ann", "ben", None]:
        assert shown(state, viewer, options) == []
        assert [s["text"] for s in engine.view(state, viewer)["duel"]["slogans"]] == [
            texts_of(2, 0)[0],
            texts_of(2, 1)[0],
        ]
    state = duel_judge(duel_judge(state, "cat", "ann", 0, True), "cat", "ben", 0, False)
    assert shown(state, "ben", options) == options[:4]


def test_the_alfons_desks_and_the_box_are_seen_by_no_one():
    state = game()
    hidden = [card for desk in state["desks"].values() for card in desk] + state["pile"]
    for viewer in [*FOUR, None]:
        seen = engine.view(state, viewer)
        assert shown(state, viewer, hidden) == []
        assert seen["desk_counts"] == dict.fromkeys(FOUR, 3)
        assert seen["pile_count"] == 39


# --- options, packs, replay -------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"first_player": "zoe"},
        {"stack": {"deck": ["karte-001"]}},
        {"stack": {"cards": ["karte-999"]}},
        {"stack": {"alfons": ["karte-001"]}},
        {"rounds": 3},
    ],
)
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError):
        engine.setup(FOUR, PACK, seed=0, options=options)


def test_a_pack_with_a_broken_slogan_is_refused():
    pack = copy.deepcopy(PACK)
    pack["body"]["cards"][0]["slogans"][0]["options"][0]["correct"] = True
    with pytest.raises(ValueError, match="exactly one correct"):
        engine.setup(FOUR, pack, seed=0)


def test_a_pack_with_an_unknown_alfons_effect_is_refused():
    with pytest.raises(ValueError, match="unknown effect"):
        engine.setup(FOUR, alfons_pack({"kind": "teleport"}), seed=0)


@pytest.mark.parametrize("players", [1, 7])
def test_slogan_is_for_two_to_six_players(players):
    with pytest.raises(ValueError):
        engine.setup([f"p{n}" for n in range(players)], PACK, seed=0)


def test_illegal_actions_change_nothing():
    state = game()
    before = json.dumps(state, sort_keys=True)
    for player, action in [
        ("ann", {"type": "judge", "correct": True}),
        ("ann", {"type": "ask", "slogan": 0}),
        ("ann", {"type": "ask", "slogan": 0, "stake": 1, "extra": 1}),
        ("ann", {"type": "shout"}),
        ("ann", "ask"),
        ("zoe", {"type": "ask", "slogan": 0, "stake": 1}),
        ("ben", {"type": "tip", "option": 1}),
    ]:
        with pytest.raises(IllegalAction):
            engine.apply(state, player, action)
    assert json.dumps(state, sort_keys=True) == before


def test_the_same_seed_options_and_actions_replay_the_same_game():
    def replay():
        state = engine.setup(FOUR, PACK, seed="replay", options={"first_player": "cat"})
        state = do(wrong_answer(state, stake=3), "dan", "alfons")
        state = challenge(state, "ann", "cat")
        for player, slogan in [("cat", 0), ("ann", 0), ("cat", 1), ("ann", 1)]:
            state = duel_judge(state, "dan", player, slogan, slogan == 1)
        return json.loads(json.dumps(judge(ask(state), True)))

    assert replay() == replay()


def test_second_chance_actions_refuse_fields_they_do_not_have():
    """docs/engines.md, contract: an illegal action raises IllegalAction and changes nothing;
    slogan: the wrong answerer picks ``{"type": "alfons"}``, a tip or ``{"type": "pass"}``."""
    state = wrong_answer(game())
    before = json.dumps(state, sort_keys=True)
    for action in ({"type": "alfons", "card": "alfons-01-move"}, {"type": "pass", "option": 1},
                   {"type": "tip", "option": 1, "again": True}):  # fmt: skip
        with pytest.raises(IllegalAction, match="Unexpected"):
            engine.apply(state, "ben", action)
    assert json.dumps(state, sort_keys=True) == before


def test_a_pass_is_logged_and_the_solution_made_public():
    """docs/engines.md, slogan: the wrong answerer may ``pass``; "everything is public after"."""
    state = do(wrong_answer(game(cards=["karte-001"])), "ben", "pass")
    kinds = [event["type"] for event in state["log"]]
    assert {"type": "pass", "turn": 1, "player": "ben"} in state["log"]
    assert kinds.index("pass") < kinds.index("solution")


def test_after_a_duel_both_slogans_and_their_answers_are_public():
    """Rulebook, Challenge: "The questioner reads the two slogans of a card aloud"; docs/engines.md,
    slogan: everything is public after; the card's key only once both slogans are judged."""
    state = arrange(game(cards=["karte-001", "karte-002"]), chips={"cat": 5})
    state = challenge(state, "dan", "cat")
    for player, slogan in (("cat", 0), ("dan", 0), ("cat", 1), ("dan", 1)):
        state = duel_judge(state, "ann", player, slogan, False)
    solutions = [event for event in state["log"] if event["type"] == "solution"]
    assert [(event["card"], event["slogan"]) for event in solutions] == [("karte-001", 0), ("karte-001", 1)]
    for number, event in enumerate(solutions):
        assert event["answer"] == answer(1, number)


@pytest.mark.parametrize(
    ("effect", "message"),
    [
        ({"kind": "move", "amount": 1.5}, "whole amount"),
        ({"kind": "chips"}, "whole amount"),
        ({"kind": "pay_each", "amount": 0}, "at least 1"),
        ({"kind": "collect_each", "amount": 1.5}, "at least 1"),
        ({"kind": "to_level", "amount": 7}, "level from 1 to 6"),
        ({"kind": "to_level", "amount": 0}, "level from 1 to 6"),
        ({"kind": "swap", "target": "first"}, "leader, last or next"),
    ],
)
def test_a_pack_with_an_alfons_card_that_cannot_work_is_refused(effect, message):
    """docs/engines.md, slogan: the Spießer Alfons effects and their amounts (``pay_each`` /
    ``collect_each``: n chips; ``to_level``: first space of level n, levels 1–6)."""
    with pytest.raises(ValueError, match=message):
        engine.setup(FOUR, alfons_pack(effect), seed=0)


def test_a_swap_that_is_carried_out_is_not_void():
    """docs/engines.md, slogan: "An effect that cannot be carried out is void" (and one that is
    carried out is not)."""
    positions = {"ann": 20, "ben": 3, "cat": 9, "dan": 1}
    state = one_alfons({"kind": "swap", "target": "leader"}, positions=positions)
    assert events(state, "alfons")[0]["void"] is False


def test_the_start_is_level_zero_and_the_goal_level_seven():
    """Rulebook / docs/engines.md, slogan: "space 0 is the start, spaces 1–36 are six career
    levels of six spaces ... space 37 is the goal"."""
    assert [engine.career_level(space) for space in (0, 1, 6, 7, 36, 37)] == [0, 1, 1, 2, 6, 7]
    assert engine.view(game(), None)["levels"] == dict.fromkeys(FOUR, 0)


@pytest.mark.parametrize(
    "effect",
    [{"kind": "to_level", "amount": 1}, {"kind": "to_level", "amount": 6}, {"kind": "pay_each", "amount": 1},
     {"kind": "move", "amount": 0}, {"kind": "chips", "amount": -1}],
)  # fmt: skip
def test_an_alfons_card_at_the_edge_of_its_amounts_is_accepted(effect):
    """docs/engines.md, slogan: ``to_level`` levels 1–6, ``pay_each`` n ≥ 1, ``move``/``chips`` ±n."""
    state = engine.setup(FOUR, alfons_pack(effect), seed=0)
    assert state["catalogue"]["alfons"]["alfons-01-" + effect["kind"].replace("_", "-")]["effect"] == effect


def test_a_challenge_refuses_fields_it_does_not_have():
    """docs/engines.md, slogan: ``{"type": "challenge", "target": LEADER}``; an illegal action
    raises IllegalAction and changes nothing."""
    state = arrange(game(), chips={"cat": 5})
    with pytest.raises(IllegalAction, match="Unexpected"):
        engine.apply(state, "dan", {"type": "challenge", "target": "cat", "card": "karte-001"})
    assert state["phase"] == "question"


def test_a_settled_question_leaves_no_question_behind():
    """docs/engines.md, slogan: after the question is settled the turn passes; nothing of it is
    left in the state for the next turn (the card is used up)."""
    state = do(wrong_answer(game(cards=["karte-001", "karte-002"])), "ben", "pass")
    assert state["question"] is None and state["card"] == "karte-002" and state["used"] == ["karte-001"]


# --- found by the full mutation run (docs/mutation-testing-engines.md) ------------------------


def test_the_log_records_each_turn():
    """docs/engines.md, slogan: the questioner draws the turn's card at the start of the turn;
    the log records the events."""
    assert game()["log"][0] == {"type": "turn", "turn": 1, "questioner": "ann", "questioned": "ben"}


def test_a_view_for_someone_not_playing_names_nobody_as_you():
    """docs/engines.md, contract: a player id that is not in the game gets the table view."""
    state = game()
    assert "you" not in engine.view(state, "zoe") and "you" not in engine.view(state, None)
    assert engine.view(state, "zoe") == engine.view(state, None)


def test_a_chips_card_of_nothing_is_void():
    """docs/engines.md, slogan: "a chips or collect card that moves no chip is void"."""
    state = one_alfons({"kind": "chips", "amount": 0})
    assert events(state, "alfons")[0]["void"] is True


@pytest.mark.parametrize(
    ("effect", "chips"),
    [({"kind": "chips", "amount": 1}, {}),
     ({"kind": "chips", "amount": -1}, {"ben": 1}),
     ({"kind": "pay_each", "amount": 1}, {"ben": 1}),
     ({"kind": "collect_each", "amount": 1}, {"ann": 1, "cat": 0, "dan": 0})],
)  # fmt: skip
def test_a_card_that_moves_a_single_chip_is_carried_out(effect, chips):
    """docs/engines.md, slogan: a card is void only if it moves no chip; one chip is enough."""
    state = one_alfons(effect, chips=chips)
    assert events(state, "alfons")[0]["void"] is False
    assert sum(event["amount"] for event in events(state, "chips")) == 1
