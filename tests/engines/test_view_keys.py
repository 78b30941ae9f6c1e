"""The view keys the play pages read: docs/engines.md, "View keys" (part of the contract).

Keys may be added (then here and in the docs), never renamed or dropped unless a rule demands
it: the play mode reads them.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games import engines
from games.bots import act
from tests.engines.packs import pack_for

# game -> (keys every view has, keys a player's view adds, keys some views have)
VIEW_KEYS: dict[str, tuple[set[str], set[str], set[str]]] = {
    "symbols": (
        {"game", "players", "scores", "goal", "phase", "round", "candidate", "hint_giver", "last_hint_giver",
         "board", "symbols", "markers", "markers_left", "grey_markers", "grey_markers_left", "concepts_left",
         "out", "discarded", "result", "you"},
        set(),
        {"secret"},
    ),
    "sign": (
        {"game", "phase", "round", "players", "teams", "team_scores", "scores", "target_points", "rounds",
         "dealer", "table", "table_face_down", "deck_count", "bottom_card", "discard_count", "hand_counts",
         "done", "ready", "signals", "faces"},
        {"you", "hand", "team"},
        set(),
    ),
    "slogan": (
        {"game", "phase", "turn", "players", "scores", "positions", "levels", "questioner", "questioned",
         "pile_count", "desk_counts", "alfons_discard"},
        {"you"},
        {"card", "question", "duel"},
    ),
    "sauschwer": (
        {"game", "players", "scores", "phase", "round", "rounds", "target_points", "max_cards", "hands",
         "scale", "helmut", "active", "last_placer", "doubter", "markers_in", "pile", "result", "you"},
        set(),
        {"your_marker"},
    ),
}  # fmt: skip

NESTED = {
    ("slogan", "question"): {"slogan", "text", "stake", "card", "key", "options", "answer"},
    ("slogan", "duel"): {"challenger", "challenged", "readers", "answers", "next", "slogans", "card"},
    ("slogan", "card"): {"key", "slogans"},
}


def states(slug: str, seeds: int = 3) -> list[dict[str, Any]]:
    """Every state of a few four-player bot games, and for Slogan a duel."""
    engine = engines.get(slug)
    found = []
    for seed in range(seeds):
        state = engine.setup(["p1", "p2", "p3", "p4"], pack_for(slug), seed=seed)
        rng = random.Random(seed)
        while True:
            found.append(state)
            if engine.result(state) is not None:
                break
            player, action = next(
                (p, a) for p in rng.sample(state["players"], 4) if (a := act(slug, state, p, rng)) is not None
            )
            state = engine.apply(state, player, action)
    if slug == "slogan":
        state = engine.setup(["p1", "p2", "p3", "p4"], pack_for(slug), seed=0)
        state["scores"]["p3"] = 1  # a player behind challenges the leader
        found.append(engine.apply(state, "p2", {"type": "challenge", "target": "p3"}))
    return found


@pytest.mark.parametrize("slug", engines.ENGINES)
def test_every_view_has_the_documented_keys(slug):
    """docs/engines.md, "View keys": the keys of each game's view, for a player and the table."""
    always, for_players, sometimes = VIEW_KEYS[slug]
    seen_sometimes: set[str] = set()
    seen_nested: dict[str, set[str]] = {}
    for state in states(slug):
        for viewer in [*state["players"], None]:
            seen = engines.get(slug).view(state, viewer)
            keys = set(seen) - {"log"}
            assert "log" in seen
            expected = always | (for_players if viewer is not None else set())
            assert expected <= keys, (viewer, expected - keys)
            assert keys <= expected | sometimes, (viewer, keys - expected - sometimes)
            seen_sometimes |= keys & sometimes
            for key in keys & {name for game, name in NESTED if game == slug}:
                seen_nested.setdefault(key, set()).update(seen[key])
    assert seen_sometimes == sometimes
    for (game, key), names in NESTED.items():
        if game == slug:
            assert seen_nested[key] == names, key


@pytest.mark.parametrize("slug", engines.ENGINES)
def test_a_view_without_the_log_is_the_view_less_its_log(slug):
    """docs/engines.md, contract: ``with_log=False`` leaves out ``log`` (what bots get)."""
    engine = engines.get(slug)
    state = states(slug, seeds=1)[5]
    for viewer in [*state["players"], None]:
        full = engine.view(state, viewer)
        del full["log"]
        assert engine.view(state, viewer, with_log=False) == full
