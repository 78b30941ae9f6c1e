"""Every screen renders at every step of whole bot games: seat pages and the table page of the
four games, in English and German (rare moments included: duels, Alfons, reveals, the end)."""

from __future__ import annotations

import random

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from games import bots, engines
from games.screens import present
from tests.engines.packs import PACKS

PLAYERS = {"symbols": 4, "sign": 4, "slogan": 4, "sauschwer": 3}


class FakeRoom:
    code = "ABCDE"
    pass_and_play = False


def snapshot(engine, state, seat, seats):
    return {
        "seats": seats, "you": seat, "version": 1, "status": "playing",
        "view": engine.view(state, seat),
        "legal_actions": engine.legal_actions(state, seat) if seat else [],
        "result": engine.result(state),
    }


def render_all(game, engine, state, pack, seats):
    for seat in [None, *state["players"]]:
        snap = snapshot(engine, state, seat, seats)
        screen = present(game, snap, pack)
        template = f"play/{game}/{'seat' if seat else 'table'}.html"
        html = render_to_string(template, {"screen": screen, "snap": snap, "room": FakeRoom(),
                                           "you": seat, "seats": seats})
        assert "data-version" in html
        check_secrets(game, state, seat, html)


def check_secrets(game, state, seat, html):
    """What the page must not show, whatever the view holds: the pages add no secret."""
    if game == "symbols" and (seat is None or seat == state["candidate"]):
        assert "secret-note" not in html and "slot secret" not in html
    if game == "slogan" and state["phase"] in ("question", "judge", "second_chance") and \
            seat != state["questioner"]:
        slogans = state["catalogue"]["cards"][state["card"]]
        asked = state["question"]["slogan"] if state["question"] else None
        for number, slogan in enumerate(slogans):
            shown = state["phase"] == "second_chance" and seat == state["questioned"] and number == asked
            for option in slogan["options"]:
                if not shown:
                    assert option not in html, (seat, option)
        assert 'class="correct"' not in html
    if game == "sauschwer" and state["phase"] == "place":
        assert "your-marker" not in html


@pytest.mark.parametrize("game", list(PLAYERS))
def test_every_screen_renders_through_whole_bot_games(game):
    engine, pack = engines.get(game), PACKS[game]()
    for number in range(2):
        rng = random.Random(f"{game}:{number}")
        players = [f"p{n}" for n in range(1, PLAYERS[game] + 1)]
        seats = [{"seat": p, "name": f"Player {p}", "host": p == "p1", "bot": False, "away": False}
                 for p in players]
        options = {"target_points": 2} if game == "sign" else {}
        state = engine.setup(players, pack, seed=number, options=options)
        with translation.override("de" if number else "en"):
            for step in range(3000):
                if step % 9 == 0 or engine.result(state):
                    render_all(game, engine, state, pack, seats)
                if engine.result(state):
                    break
                order = players[:]
                rng.shuffle(order)
                for player in order:
                    action = bots.act(game, state, player, rng)
                    if action is not None:
                        state = engine.apply(state, player, action)
                        break
                else:
                    break
            assert engine.result(state) is not None, f"{game} game {number} did not end"
