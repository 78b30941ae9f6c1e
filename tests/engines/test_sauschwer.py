"""Sauschwer: the rulebook's rules, its figures, and random legal games."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import IllegalAction
from games.engines import sauschwer as engine
from tests.engines import playouts
from tests.engines.packs import sauschwer_pack

FILLER = {f"kiesel-{n:02d}": 50 for n in range(30)}  # unstacked cards: pebbles of 50 g


def new_game(
    hands: dict[str, list[str]],
    pile: list[str],
    weights: dict[str, int],
    *,
    seed: int = 1,
    **options: Any,
) -> dict[str, Any]:
    """Players in the order of ``hands``, each dealt those three cards; ``pile`` on top of the
    rest (the first card opens round 1). The pack: ``weights`` plus 30 pebbles of 50 g."""
    stack = [card for hand in hands.values() for card in hand] + pile
    options = {"opening_side": "red", "stack": {"cards": stack}, **options}
    return engine.setup(list(hands), sauschwer_pack({**FILLER, **weights}), seed=seed, options=options)


def play(state: dict[str, Any], *moves: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    for player, action in moves:
        state = engine.apply(state, player, action)
    return state


def place(card: str, helmut: str) -> dict[str, Any]:
    return {"type": "place", "card": card, "helmut": helmut}


def marker(side: str) -> dict[str, Any]:
    return {"type": "marker", "side": side}


STOP = {"type": "stop"}


def revealed(state: dict[str, Any]) -> dict[str, Any]:
    return [event for event in state["log"] if event["type"] == "revealed"][-1]


# Four players, each with a light, a middling and a heavy object; a feather opens.
HANDS = {
    "Anna": ["a-feder", "a-apfel", "a-kuh"],
    "Ben": ["b-feder", "b-apfel", "b-kuh"],
    "Cleo": ["c-feder", "c-apfel", "c-kuh"],
    "Dan": ["d-feder", "d-apfel", "d-kuh"],
}
WEIGHTS = {
    **{f"{p}-feder": 5 for p in "abcd"},
    **{f"{p}-apfel": 150 for p in "abcd"},
    **{f"{p}-kuh": 650_000 for p in "abcd"},
    "feder": 5,
    "stein": 2_000,
    "ei": 60,
    "kissen": 500,
}
PILE = ["feder", "stein", "ei", "kissen"]


def four() -> dict[str, Any]:
    return new_game(HANDS, PILE, WEIGHTS)


# --- setup ---------------------------------------------------------------------------------


def test_each_player_is_dealt_three_cards_in_seating_order_and_a_card_opens_the_round():
    state = four()
    assert state["hands"] == HANDS
    assert state["scale"] == [{"card": "feder", "side": "red"}]
    assert state["helmut"] == "red"  # Helmut sits with the opening card
    assert state["pile"][:3] == ["stein", "ei", "kissen"]
    assert state["active"] == "Anna"  # "the heaviest player" by default: the first one


def test_the_opening_side_is_chosen_by_the_seed_when_not_given():
    sides = {engine.setup(["Anna", "Ben"], sauschwer_pack(), seed=seed)["helmut"] for seed in range(20)}
    assert sides == {"red", "violet"}


def test_the_first_player_option_chooses_who_begins():
    assert new_game(HANDS, PILE, WEIGHTS, first_player="Cleo")["active"] == "Cleo"


# --- placing -------------------------------------------------------------------------------


def test_a_card_goes_to_the_side_without_helmut_then_helmut_moves_and_the_player_draws():
    state = play(four(), ("Anna", place("a-kuh", "violet")))
    assert state["scale"] == [{"card": "feder", "side": "red"}, {"card": "a-kuh", "side": "violet"}]
    assert state["helmut"] == "violet"
    assert state["hands"]["Anna"] == ["a-feder", "a-apfel", "stein"]
    assert state["active"] == "Ben"  # the turn passes clockwise
    state = play(state, ("Ben", place("b-apfel", "violet")))  # Helmut may stay where he is
    assert state["scale"][-1] == {"card": "b-apfel", "side": "red"}


def test_only_the_active_player_places_one_of_their_own_cards():
    state = four()
    with pytest.raises(IllegalAction, match="Anna's turn"):
        engine.apply(state, "Ben", place("b-kuh", "red"))
    with pytest.raises(IllegalAction, match="your own cards"):
        engine.apply(state, "Anna", place("b-kuh", "red"))
    with pytest.raises(IllegalAction, match="red or the violet"):
        engine.apply(state, "Anna", place("a-kuh", "green"))


def test_a_player_draws_nothing_when_the_pile_is_empty():
    state = new_game(
        {"Anna": ["a1", "a2", "a3"], "Ben": ["b1", "b2", "b3"]},
        ["o"],
        dict.fromkeys(["a1", "a2", "a3", "b1", "b2", "b3", "o"], 10),
    )
    state["pile"] = []
    state = play(state, ("Anna", place("a1", "red")))
    assert state["hands"]["Anna"] == ["a2", "a3"]


# --- ending a round ------------------------------------------------------------------------


def test_anyone_but_the_last_placer_may_stop_after_a_placement():
    state = four()
    assert {"type": "stop"} not in engine.legal_actions(state, "Ben")  # nothing placed yet
    with pytest.raises(IllegalAction, match="Nothing has been placed"):
        engine.apply(state, "Ben", STOP)
    state = play(state, ("Anna", place("a-kuh", "violet")))
    with pytest.raises(IllegalAction, match="your own placement"):
        engine.apply(state, "Anna", STOP)
    assert STOP in engine.legal_actions(state, "Ben")  # the next placer may doubt too
    state = play(state, ("Dan", STOP))
    assert state["phase"] == "markers"
    assert state["doubter"] == "Dan"
    with pytest.raises(IllegalAction, match="already over"):
        engine.apply(state, "Cleo", STOP)  # a later stop is illegal


def test_a_round_ends_when_the_scale_holds_eight_cards():
    state = four()
    for player, card in zip(["Anna", "Ben", "Cleo", "Dan", "Anna", "Ben"], [0, 0, 0, 0, 1, 1], strict=True):
        state = play(state, (player, place(state["hands"][player][card], "red")))
    assert state["phase"] == "place" and len(state["scale"]) == 7
    state = play(state, ("Cleo", place("c-apfel", "red")))
    assert state["phase"] == "markers"
    assert state["doubter"] is None
    assert not any(STOP in engine.legal_actions(state, p) for p in HANDS)


def test_max_cards_changes_when_the_scale_is_full():
    state = play(new_game(HANDS, PILE, WEIGHTS, max_cards=3), ("Anna", place("a-kuh", "violet")))
    assert state["phase"] == "place"
    state = play(state, ("Ben", place("b-feder", "violet")))
    assert state["phase"] == "markers"


# --- markers and scoring -------------------------------------------------------------------


SIX = {name: [f"{name}-{n}" for n in range(3)] for name in ["Anna", "Ben", "Cleo", "Dan", "Eva", "Finn"]}


def six_players_at_the_reveal() -> dict[str, Any]:
    """Anna puts an elephant on violet and leaves Helmut on red; Ben shouts "Stop!"."""
    weights = {card: 100 for hand in SIX.values() for card in hand} | {"Anna-0": 6_000_000, "feder": 5}
    state = new_game(SIX, ["feder"], weights)
    return play(state, ("Anna", place("Anna-0", "red")), ("Ben", STOP))


def test_figure_6_three_wrong_markers_score_three_for_each_right_one_and_four_for_the_doubter():
    state = play(
        six_players_at_the_reveal(),
        ("Anna", marker("red")),  # the last placer: Helmut's side
        ("Ben", marker("violet")),  # the doubter: the other side
        ("Cleo", marker("red")),
        ("Dan", marker("red")),
        ("Eva", marker("violet")),
        ("Finn", marker("violet")),
    )
    assert revealed(state)["heavier"] == "violet"
    assert state["scores"] == {"Anna": 0, "Ben": 4, "Cleo": 0, "Dan": 0, "Eva": 3, "Finn": 3}


def test_the_last_placer_shows_helmuts_side_and_the_doubter_the_other():
    state = six_players_at_the_reveal()
    assert engine.legal_actions(state, "Anna") == [marker("red")]
    assert engine.legal_actions(state, "Ben") == [marker("violet")]
    assert engine.legal_actions(state, "Cleo") == [marker("red"), marker("violet")]
    with pytest.raises(IllegalAction, match="placed the last card: your marker must show red"):
        engine.apply(state, "Anna", marker("violet"))
    with pytest.raises(IllegalAction, match="doubted: your marker must show violet"):
        engine.apply(state, "Ben", marker("red"))


def test_a_doubter_who_doubted_wrongly_loses_a_point():
    state = play(
        four(),
        ("Anna", place("a-kuh", "violet")),  # right: the cow is heavier than the feather
        ("Ben", STOP),
        ("Anna", marker("violet")),
        ("Ben", marker("red")),
        ("Cleo", marker("violet")),
        ("Dan", marker("violet")),
    )
    assert state["scores"] == {"Anna": 1, "Ben": -1, "Cleo": 1, "Dan": 1}


def test_with_equal_weights_nobody_scores_and_the_doubter_neither_gains_nor_loses():
    state = play(
        four(),
        ("Anna", place("a-feder", "red")),  # feather against feather
        ("Ben", STOP),
        ("Anna", marker("red")),
        ("Ben", marker("violet")),
        ("Cleo", marker("red")),
        ("Dan", marker("violet")),
    )
    assert revealed(state)["heavier"] is None
    assert state["scores"] == dict.fromkeys(HANDS, 0)


def test_when_nobody_guessed_wrongly_nobody_scores():
    state = play(four(), ("Anna", place("a-kuh", "violet")), ("Ben", place("b-feder", "violet")))
    state = play(state, ("Cleo", place("c-feder", "violet")), ("Dan", place("d-feder", "violet")))
    state = play(state, ("Anna", place("a-feder", "violet")), ("Ben", place("b-apfel", "violet")))
    state = play(state, ("Cleo", place("c-apfel", "violet")))  # the eighth card: no doubter
    state = play(state, *((p, marker("violet")) for p in HANDS))
    assert state["scores"] == dict.fromkeys(HANDS, 0)


def test_the_next_round_clears_the_scale_and_starts_with_the_player_after_the_last_placer():
    state = play(
        four(),
        ("Anna", place("a-kuh", "violet")),
        ("Ben", place("b-kuh", "red")),
        ("Anna", STOP),
        *((p, marker("red")) for p in ["Ben", "Cleo", "Dan"]),
        ("Anna", marker("violet")),
    )
    assert state["round"] == 2
    assert state["active"] == "Cleo"
    assert state["scale"] == [{"card": "kissen", "side": "red"}]  # after the draws of stein and ei
    assert state["out"] == ["feder", "a-kuh", "b-kuh"]


# --- secrets -------------------------------------------------------------------------------


def test_weights_are_absent_from_every_view_until_the_reveal():
    state = play(four(), ("Anna", place("a-kuh", "violet")), ("Ben", STOP), ("Anna", marker("violet")))
    for who in [*HANDS, None]:
        seen = json.dumps(engine.view(state, who))
        assert "650000" not in seen and "weight" not in seen
    state = play(state, ("Ben", marker("red")), ("Cleo", marker("red")), ("Dan", marker("red")))
    assert revealed(engine.view(state, None))["weights"] == {"feder": 5, "a-kuh": 650_000}


def test_markers_are_hidden_until_all_are_in():
    state = play(four(), ("Anna", place("a-kuh", "violet")), ("Ben", STOP), ("Cleo", marker("violet")))
    assert engine.view(state, "Cleo")["your_marker"] == "violet"
    for who in ["Anna", "Ben", "Dan", None]:
        seen = engine.view(state, who)
        assert "your_marker" not in seen
        assert seen["markers_in"] == ["Cleo"]
        assert "violet" not in json.dumps(seen["log"][-1])


# --- the end of the game -------------------------------------------------------------------


def test_the_game_ends_after_six_rounds():
    state = engine.setup(
        ["Anna", "Ben", "Cleo"], sauschwer_pack([100] * 40), seed=5, options={"max_cards": 2}
    )
    for _ in range(6):
        assert engine.result(state) is None
        state = play(state, (state["active"], place(state["hands"][state["active"]][0], "red")))
        state = play(state, *((p, engine.legal_actions(state, p)[0]) for p in state["players"]))
    assert state["round"] == 6
    assert engine.result(state) == {
        "scores": dict.fromkeys(["Anna", "Ben", "Cleo"], 0),
        "winners": ["Anna", "Ben", "Cleo"],
    }
    assert state["log"][-1] == {"type": "game_ended", "reason": "rounds"}


def test_the_game_ends_as_soon_as_a_score_reaches_20():
    players = [f"p{n}" for n in range(1, 9)]
    hands = {p: [f"{p}-{n}" for n in range(3)] for p in players}
    weights = {card: 1000 for hand in hands.values() for card in hand}
    state = new_game(hands, [], weights, max_cards=2)  # every opening card: a 50 g pebble
    for n, placer in enumerate(players[:3], start=1):
        assert state["active"] == placer  # the player after the last placer begins
        state = play(state, (placer, place(f"{placer}-0", "red")))  # wrong: violet is heavier
        state = play(state, *((p, marker("red")) for p in players[:7]), ("p8", marker("violet")))
        assert state["scores"]["p8"] == 7 * n
    assert engine.result(state)["winners"] == ["p8"]
    assert state["round"] == 3
    assert state["log"][-1] == {"type": "game_ended", "reason": "target_points"}


def test_the_game_ends_when_no_card_is_left_to_open_a_round():
    state = engine.setup(["Anna", "Ben"], sauschwer_pack([10] * 7), seed=1, options={"max_cards": 2})
    assert state["pile"] == []
    active = state["active"]
    state = play(state, (active, place(state["hands"][active][0], "red")))
    state = play(state, *((p, engine.legal_actions(state, p)[0]) for p in state["players"]))
    assert engine.result(state) is not None
    assert state["round"] == 1
    assert state["log"][-1] == {"type": "game_ended", "reason": "cards_exhausted"}


# --- options and piles ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{"stack": {"deck": []}}, {"stack": {"cards": ["nicht-da"]}}, {"opening_side": "green"},
     {"rounds": 0}, {"target_points": "20"}, {"max_cards": 1}, {"first_player": "Zoe"}, {"teams": []}],
)  # fmt: skip
def test_bad_options_and_stacks_are_refused(options):
    with pytest.raises(ValueError):
        engine.setup(["Anna", "Ben"], sauschwer_pack(), seed=1, options=options)


@pytest.mark.parametrize("players", [["Anna"], [f"p{n}" for n in range(9)], ["Anna", "Anna"]])
def test_two_to_eight_distinct_players(players):
    with pytest.raises(ValueError):
        engine.setup(players, sauschwer_pack(), seed=1)


def test_too_few_cards_to_deal_and_open_are_refused():
    with pytest.raises(ValueError, match="at least 7 cards"):
        engine.setup(["Anna", "Ben"], sauschwer_pack([10] * 6), seed=1)


# --- random legal games --------------------------------------------------------------------


def _universe(pack: dict[str, Any]) -> list[Any]:
    cards = [card["key"] for card in pack["body"]["cards"]]
    return [
        *(place(card, side) for card in cards[:12] for side in ("red", "violet", "pink")),
        {"type": "place", "card": cards[0]},
        STOP,
        *(marker(side) for side in ("red", "violet", "pink")),
        *playouts.JUNK_ACTIONS,
    ]


def _expected_scores(state: dict[str, Any], player: str, action: dict[str, Any]) -> dict[str, int]:
    """Scores change only when the last marker comes in: the rulebook's scoring, again."""
    scores = dict(state["scores"])
    markers = {**state["markers"], player: action.get("side")} if action["type"] == "marker" else {}
    if len(markers) < len(state["players"]):
        return scores
    totals = {
        side: sum(state["weights"][c["card"]] for c in state["scale"] if c["side"] == side)
        for side in ("red", "violet")
    }
    if totals["red"] == totals["violet"]:
        return scores
    heavier = max(totals, key=totals.__getitem__)
    wrong = sum(1 for side in markers.values() if side != heavier)
    for p, side in markers.items():
        scores[p] += wrong if side == heavier else 0
    if state["doubter"] is not None:
        scores[state["doubter"]] += 1 if state["helmut"] != heavier else -1
    return scores


def _check_invariants(state: dict[str, Any], all_cards: list[str]) -> None:
    cards = state["pile"] + [c for hand in state["hands"].values() for c in hand]
    cards += [placed["card"] for placed in state["scale"]] + state["out"]
    assert Counter(cards) == Counter(all_cards), "cards created or lost"
    if state["phase"] != "over":
        assert engine.result(state) is None
        assert 1 <= len(state["scale"]) <= state["max_cards"]
        assert all(len(hand) <= engine.HAND_SIZE for hand in state["hands"].values())


def _check_secrets(state: dict[str, Any], who: str | None) -> None:
    """The view does not change with unrevealed weights, the pile's order or other players'
    markers."""
    seen = playouts.dumped(engine.view(state, who))
    weighed = set(state["out"])
    other = dict(state)
    other["weights"] = {k: w if k in weighed else w * 7 + 1 for k, w in state["weights"].items()}
    other["pile"] = state["pile"][::-1]
    other["markers"] = {p: engine.other_side(s) if p != who else s for p, s in state["markers"].items()}
    assert playouts.dumped(engine.view(other, who)) == seen
    outside_the_log = {k: v for k, v in json.loads(seen).items() if k != "log"}
    assert "weight" not in playouts.dumped(outside_the_log)


def play_random_game(
    rng: random.Random, players: list[str], seed: int, options: dict[str, Any], pack: dict[str, Any]
):
    state = engine.setup(players, pack, seed=seed, options=options)
    all_cards = [card["key"] for card in pack["body"]["cards"]]
    universe = _universe(pack)
    moves = []
    for _ in range(2000):
        _check_invariants(state, all_cards)
        for who in (rng.choice(players), None):
            _check_secrets(state, who)
        if engine.result(state) is not None:
            break
        legal = playouts.legal_moves(engine, state)
        assert legal, "nobody can act, but the game is not over"
        player, action = playouts.pick_move(rng, legal)
        refused = [(p, rng.choice(universe)) for p in [*players, "stranger"]]
        playouts.check_rejected(engine, state, [move for move in refused if move not in legal])
        playouts.check_legal_accepted(engine, state, [rng.choice(legal)])
        expected = _expected_scores(state, player, action)
        state = playouts.check_step(engine, state, player, action)
        assert state["scores"] == expected
        moves.append((player, action))
    else:
        pytest.fail("the game did not end in 2000 actions")
    top = max(state["scores"].values())
    assert engine.result(state)["winners"] == [p for p in players if state["scores"][p] == top]
    assert state["round"] <= state["rounds"]
    return state, moves


games = st.fixed_dictionaries(
    {
        "n_players": st.integers(engine.MIN_PLAYERS, engine.MAX_PLAYERS),
        "seed": st.integers(0, 2**32),
        "moves": st.integers(0, 2**32),
        "options": st.fixed_dictionaries(
            {},
            optional={
                "opening_side": st.sampled_from(["red", "violet"]),
                "rounds": st.integers(1, 8),
                "target_points": st.integers(1, 25),
                "max_cards": st.integers(2, 9),
            },
        ),
        "weights": st.sampled_from(["varied", "few", "equal"]),
    }
)


def _run(game: dict[str, Any]) -> None:
    n = game["n_players"]
    weights = {
        "varied": list(range(1, 200, 3)),
        "few": [10, 20, 40, 80, 160] * (n + 1),  # equal sides happen; the pile runs out
        "equal": [100] * (3 * n + 5),
    }[game["weights"]]
    pack = sauschwer_pack(weights)
    play_random_game(
        random.Random(game["moves"]), [f"p{k}" for k in range(n)], game["seed"], game["options"], pack
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_random_legal_games_keep_the_rules(game):
    _run(game)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_thousands_of_random_legal_games_keep_the_rules(game):
    _run(game)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_a_game_replays_from_its_seed_options_and_actions(seed):
    players, options, pack = ["a", "b", "c"], {"rounds": 3}, sauschwer_pack()
    final, moves = play_random_game(random.Random(seed), players, seed, options, pack)
    replayed = engine.setup(players, pack, seed=seed, options=options)
    for player, action in moves:
        replayed = engine.apply(json.loads(json.dumps(replayed)), player, action)
    assert replayed == final
