"""Slogan, scripted: refused options, packs and player counts; illegal actions; the log and replay."""

import copy
import json

import pytest

from games.engines import IllegalAction
from games.engines import slogan as engine
from tests.engines.slogan_script import FOUR, PACK, ask, challenge, do, duel_judge, game, judge, wrong_answer

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
