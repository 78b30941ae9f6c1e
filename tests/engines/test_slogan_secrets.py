"""Slogan, scripted: who sees what: the card, the asked slogan, options and answer, desks and box."""

import json

from games.engines import slogan as engine
from tests.engines.slogan_script import (
    FOUR,
    answer,
    arrange,
    ask,
    challenge,
    do,
    duel_judge,
    events,
    game,
    wrong_answer,
)

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


def test_a_pass_is_logged_and_the_solution_made_public():
    """docs/engines.md, slogan: the wrong answerer may ``pass``; "everything is public after"."""
    state = do(wrong_answer(game(cards=["karte-001"])), "ben", "pass")
    kinds = [event["type"] for event in state["log"]]
    assert {"type": "pass", "turn": 1, "player": "ben"} in state["log"]
    assert kinds.index("pass") < kinds.index("solution")


def test_a_view_for_someone_not_playing_names_nobody_as_you():
    """docs/engines.md, contract: a player id that is not in the game gets the table view."""
    state = game()
    assert "you" not in engine.view(state, "zoe") and "you" not in engine.view(state, None)
    assert engine.view(state, "zoe") == engine.view(state, None)
