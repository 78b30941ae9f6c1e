"""The bots, the bot-game driver and the balance report (``manage.py simulate``)."""

from __future__ import annotations

import json
import sys
import types

import pytest

from games import engines
from games.bots import BotStuck, bot_for, play_game
from games.simulation import rounds_played, simulate
from tests.engines.packs import pack_for

FOUR = ["p1", "p2", "p3", "p4"]


@pytest.fixture(params=engines.ENGINES)
def slug(request):
    pytest.importorskip(f"games.engines.{request.param}")
    pytest.importorskip(f"games.bots.{request.param}")
    return request.param


def test_bots_play_every_game_to_its_end(slug):
    final, steps = play_game(slug, pack_for(slug), FOUR, seed=11)
    assert engines.get(slug).result(final) is not None
    assert steps > 0


def test_a_bot_game_is_the_same_for_the_same_seed(slug):
    assert play_game(slug, pack_for(slug), FOUR, seed=5) == play_game(slug, pack_for(slug), FOUR, seed=5)


def test_the_driver_stops_a_game_that_runs_too_long():
    with pytest.raises(BotStuck, match="no end after 3 actions"):
        play_game("symbols", pack_for("symbols"), FOUR, seed=1, max_steps=3)


def test_bot_for_refuses_an_unknown_game():
    with pytest.raises(KeyError):
        bot_for("skat")


def test_the_sauschwer_bot_judges_weights_from_names():
    guess = bot_for("sauschwer").guess_log_grams
    assert guess("Ein Gummibärchen") < guess("Ein Apfel") < guess("Ein VW Golf") < guess("Der Eiffelturm")
    assert guess("A hen's egg") < guess("An African elephant")


def test_simulate_sums_up_the_games():
    report = simulate("sauschwer", pack_for("sauschwer"), games=6, players=3, seed=1)
    assert report.games == 6
    assert len(report.spreads) == len(report.rounds) == 6
    assert all(spread >= 0 for spread in report.spreads)
    assert 0 <= report.first_player_wins + report.first_player_shares <= 6
    assert report.first_player_shares <= report.shared_wins
    assert "heavier side obvious (≥10×) at reveal" in report.extra
    text = "\n".join(report.lines())
    assert "games/s" in text and "first player wins" in text


def test_rounds_are_counted_from_the_state_or_its_log():
    assert rounds_played({"round": 4, "log": []}) == 4
    assert rounds_played({"log": [{"type": "round_ended"}, {"type": "hint"}, {"type": "round_ended"}]}) == 2


def test_the_simulate_command_reads_a_pack_file(run_command, tmp_path):
    pack = tmp_path / "symbols.json"
    pack.write_text(json.dumps(pack_for("symbols")), encoding="utf-8")
    status, out, err = run_command(
        "simulate", "symbols", "--games", "3", "--players", "5", "--pack", str(pack)
    )
    assert status == 0, err
    assert "symbols: 3 games, 5 players" in out
    assert "games/s" in out
    assert "hints per round" in out
    assert "cards replaced per round" in out


def test_the_simulate_command_loads_the_published_pack_without_a_file(run_command, monkeypatch):
    asked = []

    def load_pack(game, language, *, release=None):
        asked.append((game, language))
        return pack_for(game)

    monkeypatch.setitem(sys.modules, "exports.packs", types.SimpleNamespace(load_pack=load_pack))
    status, out, err = run_command("simulate", "sauschwer", "--games", "2", "--lang", "de")
    assert status == 0, err
    assert asked == [("sauschwer", "de")]
    assert "sauschwer: 2 games, 4 players" in out


def test_the_simulate_command_refuses_a_player_count_the_game_does_not_allow(run_command, tmp_path):
    pack = tmp_path / "symbols.json"
    pack.write_text(json.dumps(pack_for("symbols")), encoding="utf-8")
    status, _out, err = run_command("simulate", "symbols", "--players", "2", "--pack", str(pack))
    assert status != 0
    assert "3 to 6 players" in err


@pytest.mark.slow
@pytest.mark.parametrize("game", ["symbols", "sauschwer"])
def test_a_thousand_bot_games_of_every_size_end(game):
    engine = engines.get(game)
    for count in range(engine.MIN_PLAYERS, engine.MAX_PLAYERS + 1):
        report = simulate(
            game, pack_for(game), games=1000 // (engine.MAX_PLAYERS - engine.MIN_PLAYERS + 1), players=count
        )
        assert report.games > 0


def test_the_report_is_the_same_whatever_the_number_of_processes(slug):
    content = pack_for(slug)
    alone = simulate(slug, content, games=12, players=4, seed=4)
    shared = simulate(slug, content, games=12, players=4, seed=4, jobs=3)
    assert shared.lines()[1:] == alone.lines()[1:]  # the first line is the time taken
    assert shared.games == 12 and shared.actions == alone.actions


def test_the_report_keeps_no_game_state_and_adds_tallies_up(slug):
    # each game is folded into small counts as it ends: two halves add up to the whole
    bot = bot_for(slug)
    finals = [play_game(slug, pack_for(slug), FOUR, seed=n)[0] for n in range(4)]
    halves = bot.tally(finals[0]) + bot.tally(finals[1]), bot.tally(finals[2]) + bot.tally(finals[3])
    assert bot.stats_of(halves[0] + halves[1]) == bot.extra_stats(finals)
    assert all(not isinstance(value, dict | list) for value in (halves[0] + halves[1]).values())


def test_the_simulate_command_refuses_fewer_than_one_process(run_command, tmp_path):
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(pack_for("symbols")), encoding="utf-8")
    status, _, err = run_command("simulate", "symbols", "--pack", str(pack), "--jobs", "0")
    assert status != 0 and "--jobs must be at least 1" in err
