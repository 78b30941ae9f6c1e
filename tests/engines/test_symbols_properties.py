"""Sag's mit Symbolen, random legal games: rules, scores and secrets hold; a game replays from its seed."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import symbols as engine
from tests.engines import playouts
from tests.engines.packs import BASE_SYMBOLS, EXTRA_SYMBOLS, symbols_pack
from tests.engines.symbols_script import hint

# --- random legal games --------------------------------------------------------------------


def _universe(pack: dict[str, Any]) -> list[dict[str, Any]]:
    """Every action of the game's shape, legal or not, plus junk."""
    symbols = [tile["key"] for tile in pack["body"]["symbols"]]
    return [
        *(hint(symbol, marker) for symbol in symbols for marker in ("green", "grey", "blue")),
        *({"type": kind, "slot": slot} for kind in ("remove", "guess", "replace") for slot in range(0, 10)),
        *playouts.JUNK_ACTIONS,
    ]


def _expected_scores(state: dict[str, Any], action: dict[str, Any]) -> dict[str, int]:
    """The Scoring Summary, worked out again from the state before the action."""
    candidate, giver, secret = state["candidate"], state["last_hint_giver"], state["secret"]
    others = {p: 3 for p in state["players"] if p not in (candidate, giver)}
    gains: dict[str, int] = {}
    if action["type"] == "remove":
        if action["slot"] == secret:
            gains = others
        else:
            gains = {giver: 1}
            if state["removals"] == 6:
                gains[candidate] = 1
    elif action["type"] == "guess":
        on_board = sum(1 for card in state["board"] if card is not None)
        gains = {candidate: on_board} if action["slot"] == secret else others
    return {p: min(score + gains.get(p, 0), state["goal"]) for p, score in state["scores"].items()}


def _check_invariants(state: dict[str, Any], all_concepts: list[str]) -> None:
    cards = state["concepts"] + [c for c in state["board"] if c] + state["out"] + state["discarded"]
    assert Counter(cards) == Counter(all_concepts), "concept cards created or lost"
    assert all(0 <= score <= state["goal"] for score in state["scores"].values())
    if state["phase"] != "over":
        assert engine.result(state) is None
        assert sum(1 for card in state["board"] if card) == 8 - state["removals"]
        assert len(state["markers"]) <= engine.MAX_MARKERS


def _check_secrets(state: dict[str, Any], who: str | None) -> None:
    """The candidate's and the table's views do not change with the secret or the piles'
    order; the hint givers see the secret."""
    seen = engine.view(state, who)
    if who is not None and who != state["candidate"]:
        assert seen.get("secret") == state["secret"]
        return
    other = dict(state)
    if state["secret"] is not None:
        other["secret"] = state["secret"] % 8 + 1
    other["numbers"] = [*state["numbers"], 3]
    other["concepts"] = state["concepts"][::-1]
    assert playouts.dumped(engine.view(other, who)) == playouts.dumped(seen)
    assert "secret" not in seen


def play_random_game(
    rng: random.Random, n_players: int, seed: int, options: dict[str, Any], pack: dict[str, Any]
):
    players = [f"p{n}" for n in range(n_players)]
    state = engine.setup(players, pack, seed=seed, options=options)
    all_concepts = [card["key"] for card in pack["body"]["concepts"]]
    universe = _universe(pack)
    moves = []
    for _ in range(2000):
        _check_invariants(state, all_concepts)
        for who in (state["candidate"], rng.choice(players), None):
            _check_secrets(state, who)
        if engine.result(state) is not None:
            break
        legal = playouts.legal_moves(engine, state)
        assert legal, "nobody can act, but the game is not over"
        player, action = playouts.pick_move(rng, legal)
        refused = [(p, a) for p in [*players, "stranger"] for a in [rng.choice(universe)]]
        playouts.check_rejected(engine, state, [(p, a) for p, a in refused if (p, a) not in legal])
        playouts.check_legal_accepted(engine, state, [rng.choice(legal)])
        expected = _expected_scores(state, action)
        state = playouts.check_step(engine, state, player, action)
        assert state["scores"] == expected
        moves.append((player, action))
    else:
        pytest.fail("the game did not end in 2000 actions")
    outcome = engine.result(state)
    at_goal = [p for p in players if state["scores"][p] == state["goal"]]
    top = max(state["scores"].values())
    assert outcome["winners"] == (at_goal or [p for p in players if state["scores"][p] == top])
    return state, moves


games = st.fixed_dictionaries(
    {
        "n_players": st.integers(engine.MIN_PLAYERS, engine.MAX_PLAYERS),
        "seed": st.integers(0, 2**32),
        "moves": st.integers(0, 2**32),
        "options": st.fixed_dictionaries(
            {"grey_markers": st.booleans(), "goal": st.sampled_from([5, 12, 35])},
            optional={"symbols": st.just([*EXTRA_SYMBOLS, *BASE_SYMBOLS[4:]])},
        ),
        "n_concepts": st.sampled_from([9, 16, 40]),
    }
)


def _run(game: dict[str, Any]) -> None:
    pack = symbols_pack(game["n_concepts"])
    play_random_game(random.Random(game["moves"]), game["n_players"], game["seed"], game["options"], pack)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_random_legal_games_keep_the_rules(game):
    _run(game)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_thousands_of_random_legal_games_keep_the_rules(game):
    _run(game)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_players=st.integers(engine.MIN_PLAYERS, engine.MAX_PLAYERS), seed=st.integers(0, 2**32))
def test_an_eager_replacer_cannot_drain_the_pile(n_players, seed):
    """Issue 20: one player who replaces a card whenever it is legal (the others play at random)
    still leaves a game of many rounds that ends within a bounded number of actions: at most one
    replacement per player a round, so the pile of 112 loses at most one extra card a round."""
    players = [f"p{n}" for n in range(n_players)]
    rng = random.Random(seed)
    state = engine.setup(players, symbols_pack(112), seed=seed)
    replaced: Counter[int] = Counter()
    for _ in range(3000):
        if engine.result(state) is not None:
            break
        eager = [a for a in engine.legal_actions(state, "p0") if a["type"] == "replace"]
        if eager:
            player, action = "p0", rng.choice(eager)
            replaced[state["round"]] += 1
        else:
            moves = [(p, a) for p, a in playouts.legal_moves(engine, state) if a["type"] != "replace"]
            player, action = playouts.pick_move(rng, moves)
        state = engine.apply(state, player, action)
    else:
        pytest.fail("the game did not end in 3000 actions")
    assert max(replaced.values()) == 1
    assert len(state["discarded"]) <= state["round"]
    ending = [e["reason"] for e in state["log"] if e["type"] == "game_ended"]
    # Not drained in round 1: at most 8 cards leave a round, plus one replaced; 104 in the pile.
    assert ending == ["goal"] or state["round"] >= 104 // 9


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32))
def test_a_game_replays_from_its_seed_options_and_actions(seed):
    options = {"grey_markers": True, "goal": 12}
    pack = symbols_pack(16)
    final, moves = play_random_game(random.Random(seed), 4, seed, options, pack)
    replayed = engine.setup([f"p{n}" for n in range(4)], pack, seed=seed, options=options)
    for player, action in moves:
        replayed = engine.apply(json.loads(json.dumps(replayed)), player, action)
    assert replayed == final
