"""Slogan, scripted: the Spießer Alfons cards: every effect, when it is void, which cards a pack may hold."""

import pytest

from games.engines import slogan as engine
from tests.engines.slogan_script import FOUR, alfons_pack, arrange, draw_alfons, events, game, one_alfons

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


def test_a_pack_with_an_unknown_alfons_effect_is_refused():
    with pytest.raises(ValueError, match="unknown effect"):
        engine.setup(FOUR, alfons_pack({"kind": "teleport"}), seed=0)


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


@pytest.mark.parametrize(
    "effect",
    [{"kind": "to_level", "amount": 1}, {"kind": "to_level", "amount": 6}, {"kind": "pay_each", "amount": 1},
     {"kind": "move", "amount": 0}, {"kind": "chips", "amount": -1}],
)  # fmt: skip
def test_an_alfons_card_at_the_edge_of_its_amounts_is_accepted(effect):
    """docs/engines.md, slogan: ``to_level`` levels 1–6, ``pay_each`` n ≥ 1, ``move``/``chips`` ±n."""
    state = engine.setup(FOUR, alfons_pack(effect), seed=0)
    assert state["catalogue"]["alfons"]["alfons-01-" + effect["kind"].replace("_", "-")]["effect"] == effect


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
