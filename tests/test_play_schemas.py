"""The games' components in /api/openapi.json (exports/play_schemas.py) are true to the engines:
bot games of all four games, each step's every seat view, the table view, every legal action
and the action the bot sends hold to the published schemas, and those schemas are precise (a
view with a secret the seat may not see, or an action of another game, fails them)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from games import engines
from games.bots import act
from games.engines.sauschwer import HAND_SIZE
from tests.engines.packs import pack_for, sauschwer_pack, sign_pack
from tests.test_openapi import BASE, REGISTRY, SPEC

# (game, player counts, options of some games): the variants with fields of their own
GAMES = [
    ("symbols", (3, 4, 6), [{}, {"grey_markers": True}]),
    ("sign", (4, 9), [{"rounds": 1}, {"target_points": 1}]),
    ("slogan", (2, 3, 6), [{}]),
    ("sauschwer", (2, 5, 8), [{}, {"rounds": 2, "max_cards": 4}]),
]


def _validator(name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"{BASE}#/components/schemas/{name}"}, registry=REGISTRY)


def _problems(validator: Draft202012Validator, value: Any, where: str) -> list[str]:
    return [f"{where}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
            for e in validator.iter_errors(value)][:1]


def _content(game: str, players: int) -> dict[str, Any]:
    return sign_pack(n_symbols=8, n_colours=8) if game == "sign" else pack_for(game)


def _play(game: str, players: int, options: dict[str, Any], seed: int) -> tuple[list[str], bool]:
    """One bot game checked at every step; the problems found and whether it reached its end."""
    engine, title = engines.get(game), game.capitalize()
    seat_view, table_view = _validator(f"{title}SeatView"), _validator(f"{title}TableView")
    actions, any_view = _validator(f"{title}Action"), _validator("GameView")
    ids = [f"p{n}" for n in range(1, players + 1)]
    state = engine.setup(ids, _content(game, players), seed=seed, options=dict(options))
    rng, problems, steps, offered = random.Random(seed), [], 0, set()
    read: dict[str | None, int] = {}

    def view(who: str | None) -> dict[str, Any]:
        """The view with only the log events this viewer had not seen (each event is checked
        once: a whole log at every step would make the test quadratic)."""
        seen = engine.view(state, who)
        start, read[who] = read.get(who, 0), len(seen["log"])
        return {**seen, "log": seen["log"][start:]}

    while not problems:
        where = f"{game} {players} players {options} seed {seed} step {steps}"
        for player in ids:
            problems += _problems(seat_view, view(player), f"{where} view of {player}")
            offered.update(json.dumps(a, sort_keys=True) for a in engine.legal_actions(state, player))
        problems += _problems(table_view, view(None), f"{where} table view")
        if steps % 25 == 0:  # the union a room's body names: exactly one of its views fits
            seen = engine.view(state, ids[0])
            problems += _problems(any_view, {**seen, "log": seen["log"][-3:]}, f"{where} as GameView")
        if engine.result(state) is not None:
            break
        rng.shuffle(ids)
        chosen = next((p, a) for p in ids if (a := act(game, state, p, rng)) is not None)
        problems += _problems(actions, chosen[1], f"{where} the bot's action")
        state = engine.apply(state, *chosen)
        steps += 1
    for legal in sorted(offered):  # each distinct legal action once (a Sign hand offers many)
        problems += _problems(actions, json.loads(legal), f"{game}: the legal action {legal}")
    return problems, engine.result(state) is not None


@pytest.mark.slow  # about 10 s of bot games
@pytest.mark.parametrize(("game", "counts", "variants"), GAMES, ids=[g[0] for g in GAMES])
def test_every_view_and_action_of_bot_games_holds_to_the_published_schemas(game, counts, variants):
    problems, ended = [], []
    for number, players in enumerate(counts):
        for options in variants:
            found, over = _play(game, players, options, seed=number * 7 + len(options))
            problems += found
            ended.append(over)
    assert not problems, "\n".join(problems)
    assert all(ended)  # whole games, their ends included


def test_a_sauschwer_round_that_runs_out_of_cards_holds_to_the_schemas():
    """The rare end of placing that bot games seldom reach: the pile is empty and every hand
    is played out before the scale is full or anyone doubts (reason ``no_cards``)."""
    engine = engines.get("sauschwer")
    players = ["p1", "p2"]
    weights = [100 * n for n in range(1, 2 * HAND_SIZE + 2)]  # the fewest cards two players take
    state = engine.setup(players, sauschwer_pack(weights), seed=3, options={"max_cards": 20})
    while state["phase"] == "place":
        player = state["active"]
        place = next(a for a in engine.legal_actions(state, player) if a["type"] == "place")
        state = engine.apply(state, player, place)
    assert state["log"][-1] == {"type": "reveal_called", "reason": "no_cards", "doubter": None}
    for player in players:
        marker = next(a for a in engine.legal_actions(state, player) if a["type"] == "marker")
        state = engine.apply(state, player, marker)
    problems = _problems(_validator("SauschwerTableView"), engine.view(state, None), "table")
    for player in players:
        problems += _problems(_validator("SauschwerSeatView"), engine.view(state, player), player)
    assert not problems, "\n".join(problems)


def test_the_schemas_refuse_what_the_engines_never_show_or_take():
    """Precise, not merely permissive: a secret in the wrong view, an unknown phase, a field
    the action does not have, or another game's action, each fails."""
    engine = engines.get("symbols")
    state = engine.setup(["p1", "p2", "p3"], pack_for("symbols"), seed=1)
    table = engine.view(state, None)
    hint_giver = next(p for p in state["players"] if p != state["candidate"])
    assert "secret" in engine.view(state, hint_giver)
    cases = [
        ("SymbolsTableView", {**table, "secret": 3}),
        ("SymbolsSeatView", {**table, "you": "p1", "phase": "bidding"}),
        ("SymbolsSeatView", {k: v for k, v in engine.view(state, "p1").items() if k != "board"}),
        ("SymbolsAction", {"type": "guess", "slot": 9}),
        ("SymbolsAction", {"type": "guess", "slot": 2, "card": "x"}),
        ("SymbolsAction", {"type": "place", "card": "ding-01", "helmut": "red"}),
        ("SauschwerAction", {"type": "marker", "side": "blue"}),
        ("Action", {"type": "chess-move"}),
    ]
    wrongly_valid = [(name, value) for name, value in cases if _validator(name).is_valid(value)]
    assert not wrongly_valid
    assert _validator("Action").is_valid({"type": "place", "card": "ding-01", "helmut": "red"})


def test_a_room_body_names_its_views_and_actions_by_these_components():
    room = SPEC["components"]["schemas"]["PlayRoom"]["properties"]
    assert {"$ref": "#/components/schemas/GameView"} in room["view"]["oneOf"]
    assert room["legal_actions"]["items"] == {"$ref": "#/components/schemas/Action"}
    request = SPEC["components"]["schemas"]["ActionRequest"]["properties"]
    assert request["action"] == {"$ref": "#/components/schemas/Action"}
