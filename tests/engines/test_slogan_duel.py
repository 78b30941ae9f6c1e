"""Slogan, scripted: the challenge and the duel: who may challenge whom, who reads and judges, how often."""

import json

import pytest

from games.engines import IllegalAction
from games.engines import slogan as engine
from tests.engines.slogan_script import (
    FOUR,
    THREE,
    answer,
    arrange,
    ask,
    challenge,
    duel_judge,
    events,
    game,
    judge,
)


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


def test_a_challenge_refuses_fields_it_does_not_have():
    """docs/engines.md, slogan: ``{"type": "challenge", "target": LEADER}``; an illegal action
    raises IllegalAction and changes nothing."""
    state = arrange(game(), chips={"cat": 5})
    with pytest.raises(IllegalAction, match="Unexpected"):
        engine.apply(state, "dan", {"type": "challenge", "target": "cat", "card": "karte-001"})
    assert state["phase"] == "question"
