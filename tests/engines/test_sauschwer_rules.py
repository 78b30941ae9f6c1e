"""Sauschwer: rules no test held before mutation testing showed it (docs/mutation-testing-engines.md).

Each test names the rulebook passage or the docs/engines.md line it encodes.
"""

from __future__ import annotations

import pytest

from games.engines import IllegalAction
from games.engines import sauschwer as engine
from tests.engines.packs import sauschwer_pack, sign_pack
from tests.engines.test_sauschwer import HANDS, PILE, STOP, WEIGHTS, marker, new_game, place, play, revealed


def round_one_with_a_wrong_doubter(**options):
    """Anna puts the cow opposite the feather and sets Helmut right (violet); Ben doubts wrongly.
    Anna, Cleo and Dan score 1 (one wrong marker), Ben loses 1."""
    state = new_game(HANDS, PILE, WEIGHTS, **options)
    return play(
        state,
        ("Anna", place("a-kuh", "violet")),
        ("Ben", STOP),
        ("Anna", marker("violet")),
        ("Ben", marker("red")),
        ("Cleo", marker("violet")),
        ("Dan", marker("violet")),
    )


def test_the_game_ends_when_a_score_reaches_exactly_the_target():
    """Rulebook, Playing the Game: "The game ends after six rounds, or as soon as one of the
    players has reached at least 20 points"; docs/engines.md, sauschwer: "exactly reaching it is
    enough"."""
    state = round_one_with_a_wrong_doubter(target_points=1)
    assert state["scores"] == {"Anna": 1, "Ben": -1, "Cleo": 1, "Dan": 1}
    assert state["phase"] == "over"
    assert engine.result(state)["winners"] == ["Anna", "Cleo", "Dan"]
    assert state["log"][-1] == {"type": "game_ended", "reason": "target_points"}


def test_one_point_below_the_target_the_game_goes_on():
    """Rulebook: "as soon as one of the players has reached at least 20 points"."""
    state = round_one_with_a_wrong_doubter(target_points=2)
    assert engine.result(state) is None and state["round"] == 2


def test_the_doubter_and_the_last_placer_are_not_carried_into_the_next_round():
    """Rulebook, Playing the Game: "A round ends as soon as one of the players doubts" and the
    last placer's and doubter's markers are forced "At the end of the round"; docs/engines.md,
    sauschwer: next round, "the doubter and the last placer are forgotten"."""
    state = round_one_with_a_wrong_doubter()
    assert state["round"] == 2 and state["active"] == "Ben"  # the player after Anna
    assert state["doubter"] is None and state["last_placer"] is None
    assert engine.view(state, None)["doubter"] is None
    for player in HANDS:  # nothing placed this round: nobody may doubt yet
        assert STOP not in engine.legal_actions(state, player)
    with pytest.raises(IllegalAction, match="Nothing has been placed"):
        engine.apply(state, "Cleo", STOP)
    # A round that ends without a doubter: only its last placer's marker is forced.
    state = new_game(HANDS, PILE, WEIGHTS, max_cards=3)
    state = play(state, ("Anna", place("a-kuh", "violet")), ("Ben", STOP))
    state = play(state, *((p, marker("violet" if p != "Ben" else "red")) for p in HANDS))
    state = play(state, ("Ben", place("b-feder", "red")), ("Cleo", place("c-feder", "red")))
    assert state["phase"] == "markers" and state["doubter"] is None and state["last_placer"] == "Cleo"
    assert engine.legal_actions(state, "Ben") == [marker("red"), marker("violet")]
    assert engine.legal_actions(state, "Anna") == [marker("red"), marker("violet")]
    scores = dict(state["scores"])
    state = play(state, ("Ben", marker("red")), ("Anna", marker("red")), ("Cleo", marker("red")))
    state = play(state, ("Dan", marker("violet")))
    gained = {p: state["scores"][p] - scores[p] for p in HANDS}
    # The egg (60 g) opened on red against two feathers: red is heavier; Dan alone is wrong,
    # and Ben gets no doubter's point from round 1.
    assert gained == {"Anna": 1, "Ben": 1, "Cleo": 1, "Dan": 0}


def test_the_weigh_in_adds_up_each_side():
    """Rulebook, Playing the Game: "the heavier side of the scale is determined by calculating
    the total weight of each side separately (see Fig. 5)"."""
    state = new_game(HANDS, PILE, WEIGHTS)
    state = play(
        state,
        ("Anna", place("a-kuh", "violet")),  # to violet (Helmut was on red with the feather)
        ("Ben", place("b-apfel", "violet")),  # to red
        ("Cleo", place("c-feder", "red")),  # to red
        ("Dan", place("d-apfel", "red")),  # to violet
        ("Anna", STOP),
        *((p, marker("red")) for p in ["Dan", "Ben", "Cleo"]),
        ("Anna", marker("violet")),
    )
    event = revealed(state)
    assert event["totals"] == {"red": 5 + 150 + 5, "violet": 650_000 + 150}
    assert event["weights"] == {"feder": 5, "a-kuh": 650_000, "b-apfel": 150, "c-feder": 5, "d-apfel": 150}
    assert event["heavier"] == "violet"


def test_a_player_without_cards_is_skipped_and_the_round_ends_when_nobody_holds_one():
    """Rulebook, Playing the Game: "You play clockwise in turn order"; docs/engines.md,
    sauschwer: "A player without cards is skipped", and the round ends "when nobody holds a
    card after a placement"."""
    hands = {"Anna": ["a1", "a2", "a3"], "Ben": ["b1", "b2", "b3"], "Cleo": ["c1", "c2", "c3"]}
    weights = dict.fromkeys([*hands["Anna"], *hands["Ben"], *hands["Cleo"], "o"], 10)
    state = new_game(hands, ["o"], weights, max_cards=20)
    state["pile"], state["hands"]["Ben"] = [], []  # Ben has placed all his cards; nothing to draw
    state = play(state, ("Anna", place("a1", "red")))
    assert state["active"] == "Cleo"
    assert engine.legal_actions(state, "Ben") == [STOP]
    state = play(
        state, ("Cleo", place("c1", "red")), ("Anna", place("a2", "red")), ("Cleo", place("c2", "red"))
    )
    state = play(state, ("Anna", place("a3", "red")))
    assert state["phase"] == "place" and state["active"] == "Cleo"
    state = play(state, ("Cleo", place("c3", "red")))
    assert state["phase"] == "markers" and len(state["scale"]) == 7
    assert state["log"][-1] == {"type": "reveal_called", "reason": "no_cards", "doubter": None}


def test_a_pack_of_another_game_is_refused():
    """docs/engines.md, contract: ``content`` is "the content pack of that game"; "a pack of
    another game is refused"."""
    with pytest.raises(ValueError, match="pack for 'sign', not 'sauschwer'"):
        engine.setup(["Anna", "Ben"], sign_pack(), seed=0)
    body_only = sauschwer_pack()["body"]  # a bare body (no "game") is taken as this game's
    assert engine.setup(["Anna", "Ben"], body_only, seed=0)["round"] == 1


def test_nobody_is_active_once_the_game_is_over():
    """docs/engines.md, View keys: ``active`` is the player to place; after the end there is none."""
    state = round_one_with_a_wrong_doubter(target_points=1)
    assert state["phase"] == "over"
    assert engine.view(state, None)["active"] is None
    assert all(engine.legal_actions(state, p) == [] for p in HANDS)


def test_the_log_records_the_stop_and_each_marker_without_its_side():
    """Rulebook: "Whoever calls first is the doubter"; markers are held "hidden in their hands,
    then reveal them all at the same time"; docs/engines.md: markers stay hidden until all are in."""
    state = new_game(HANDS, PILE, WEIGHTS)
    state = play(state, ("Anna", place("a-kuh", "violet")), ("Ben", STOP), ("Cleo", marker("violet")))
    assert state["log"][-3:] == [
        {"type": "stopped", "player": "Ben"},
        {"type": "reveal_called", "reason": "stop", "doubter": "Ben"},
        {"type": "marker_in", "player": "Cleo"},
    ]


def test_the_seed_chooses_each_rounds_opening_side_afresh():
    """docs/engines.md, sauschwer: ``opening_side`` default "chosen by the seed each round"."""
    sides_per_game = []
    for seed in range(8):
        state = engine.setup(["Anna", "Ben"], sauschwer_pack([100] * 40), seed=seed, options={"max_cards": 2})
        for _ in range(5):
            state = play(state, (state["active"], place(state["hands"][state["active"]][0], "red")))
            state = play(state, *((p, engine.legal_actions(state, p)[0]) for p in state["players"]))
        sides_per_game.append({e["side"] for e in state["log"] if e["type"] == "round_started"})
    assert {"red", "violet"} in sides_per_game  # both sides within one game


# --- found by the full mutation run (docs/mutation-testing-engines.md) ------------------------


def test_the_log_records_the_deal_and_each_placement():
    """docs/engines.md, sauschwer: "Setup: 3 cards face up to each player"; the active player's
    ``place`` puts the card opposite Helmut, then Helmut moves; the log records the events."""
    state = new_game(HANDS, PILE, WEIGHTS)
    assert state["log"][0] == {"type": "dealt", "hands": HANDS}
    state = play(state, ("Anna", place("a-kuh", "violet")))
    placed = [event for event in state["log"] if event["type"] == "placed"]
    assert placed == [
        {"type": "placed", "player": "Anna", "card": "a-kuh", "side": "violet", "helmut": "violet"}
    ]


def test_nobody_is_active_while_the_markers_are_set():
    """docs/engines.md, sauschwer: the first stop ends the round; then every player sends a marker
    (no turns)."""
    state = play(new_game(HANDS, PILE, WEIGHTS), ("Anna", place("a-kuh", "violet")), ("Ben", STOP))
    assert state["phase"] == "markers"
    assert state["active"] is None and engine.view(state, None)["active"] is None


def test_after_the_last_round_no_marker_is_shown_as_in():
    """docs/engines.md, sauschwer: "Next round: the scale is cleared"; after the game's last
    reveal the markers are in the ``revealed`` event, not left as markers of a round."""
    state = round_one_with_a_wrong_doubter(target_points=1)
    assert state["phase"] == "over"
    assert engine.view(state, None)["markers_in"] == []


def test_the_default_target_is_20_points():
    """Rulebook, Playing the Game: "as soon as one of the players has reached at least 20
    points"; docs/engines.md, sauschwer: ``target_points`` (default 20)."""
    state = new_game(HANDS, PILE, WEIGHTS)
    assert state["target_points"] == 20 and engine.view(state, None)["target_points"] == 20
