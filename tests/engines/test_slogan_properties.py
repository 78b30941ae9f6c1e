"""Slogan, random legal games: invariants that hold at every step of every game."""

import json
import random
from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import act, play_game
from games.bots import slogan as bot
from games.engines import IllegalAction
from games.engines import slogan as engine
from tests.engines.packs import slogan_pack

PACKS = {n: slogan_pack(n_cards=n) for n in (6, 40, 120)}

games = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10**6),
        "players": st.integers(2, 6),
        "cards": st.sampled_from(sorted(PACKS)),
        "first": st.integers(0, 5),
        "challenge_rate": st.sampled_from([0.3, 0.03]),
    }
)


def start(game):
    players = [f"p{n}" for n in range(game["players"])]
    options = {"first_player": players[game["first"] % len(players)]}
    return engine.setup(players, PACKS[game["cards"]], seed=game["seed"], options=options)


def pick(state, rng, challenge_rate):
    """A random legal action of a random player; challenges only now and then."""
    moves = [(p, a) for p in state["players"] for a in engine.legal_actions(state, p)]
    challenges = [(p, a) for p, a in moves if a["type"] == "challenge"]
    others = [(p, a) for p, a in moves if a["type"] != "challenge"]
    if challenges and (not others or rng.random() < challenge_rate):
        return rng.choice(challenges)
    return rng.choice(others)


def random_game(game, max_steps, chooser=None):
    """(state, player, action, next state) for each step of a random legal game."""
    state = start(game)
    rng = random.Random(game["seed"])
    for _ in range(max_steps):
        if engine.result(state) is not None:
            return
        if chooser is None:
            player, action = pick(state, rng, game["challenge_rate"])
        else:
            player, action = chooser(state, rng)
        after = engine.apply(state, player, action)
        yield state, player, action, after
        state = after


def bot_chooser(state, rng):
    order = rng.sample(state["players"], len(state["players"]))
    return next((p, a) for p in order if (a := act("slogan", state, p, rng)) is not None)


# --- invariants -------------------------------------------------------------------------------


def check_conservation(state):
    cards = [*state["pile"], *state["used"]]
    cards += [state["card"]] if state["card"] else []
    cards += [state["duel"]["card"]] if state["duel"] else []
    assert Counter(cards) == Counter(list(state["catalogue"]["cards"]))
    alfons = [card for desk in state["desks"].values() for card in desk] + state["alfons_discard"]
    assert Counter(alfons) == Counter(list(state["catalogue"]["alfons"]))
    assert all(engine.START <= space <= engine.GOAL for space in state["positions"].values())
    assert all(chips >= 0 for chips in state["scores"].values())


def check_step(before, after):
    """Chips and pieces change only through the logged events, and every event by the rules:
    stakes of 1–3, a career prize exactly on entering a higher level (one chip per player
    strictly behind), payments never beyond what the payer has."""
    chips, positions = dict(before["scores"]), dict(before["positions"])
    new_events = after["log"][len(before["log"]) :]
    owed = []  # (player, level) prizes due after a move
    for event in new_events:
        kind = event["type"]
        if kind == "judge":
            assert event["stake"] in (1, 2, 3)
            assert event["winner"] == (before["questioned"] if event["correct"] else before["questioner"])
            chips[event["winner"]] += event["stake"]
        elif kind == "duel_answer":
            chips[event["player"]] += event["correct"]
        elif kind == "chips":
            assert event["amount"] > 0
            if event["payer"] is not None:
                assert chips[event["payer"]] >= event["amount"]
                chips[event["payer"]] -= event["amount"]
            if event["payee"] is not None:
                chips[event["payee"]] += event["amount"]
        elif kind in ("move", "swap"):
            assert not owed, owed
            pairs = [(event["player"], event["start"], event["end"])]
            if kind == "swap":
                pairs.append((event["partner"], event["end"], event["start"]))
            for player, start, end in pairs:
                assert positions[player] == start
                positions[player] = end
            for player, start, end in pairs:
                level = engine.career_level(end)
                if level > engine.career_level(start) and level >= 2:
                    owed.append((player, level))
        elif kind == "career_prize":
            assert owed and owed.pop(0) == (event["player"], event["level"])
            mine = positions[event["player"]]
            assert event["chips"] == sum(1 for p, space in positions.items() if space < mine)
            chips[event["player"]] += event["chips"]
    assert not owed, owed
    assert chips == after["scores"]
    assert positions == after["positions"]


def secret_texts(state, viewer):
    """Texts and keys a viewer may not see now."""
    secret = [*state["pile"]]
    secret += [card for desk in state["desks"].values() for card in desk]
    cards = state["catalogue"]["cards"]
    phase = state["phase"]
    if phase in ("question", "judge", "second_chance") and viewer != state["questioner"]:
        asked = state["question"]["slogan"] if state["question"] else None
        secret.append(state["card"])
        for number, slogan in enumerate(cards[state["card"]]):
            secret.append(slogan["key"])
            if number != asked:
                secret.append(slogan["text"])
            if number != asked or not (phase == "second_chance" and viewer == state["questioned"]):
                secret += slogan["options"]
    if phase == "duel" and viewer not in state["duel"]["readers"]:
        duel = state["duel"]
        judged = {a["slogan"] for a in duel["answers"] if a["player"] == duel["challenger"]}
        secret.append(duel["card"])
        for number, slogan in enumerate(cards[duel["card"]]):
            secret.append(slogan["key"])  # a key would tell the other slogan's answer too
            if number not in judged:
                secret += slogan["options"]
    return secret


def strings_in(value):
    """Every string in JSON data, keys included."""
    if isinstance(value, dict):
        return set(value) | {s for item in value.values() for s in strings_in(item)}
    if isinstance(value, list):
        return {s for item in value for s in strings_in(item)}
    return {value} if isinstance(value, str) else set()


def check_views(state):
    for viewer in [*state["players"], None]:
        seen = engine.view(state, viewer)
        json.dumps(seen)
        leaked = set(secret_texts(state, viewer)) & strings_in(seen)
        assert not leaked, (viewer, state["phase"], leaked)
        if viewer != state["questioner"] and "question" in seen:
            assert "answer" not in seen["question"]
        assert not {"pile", "desks", "catalogue", "rng"} & set(seen)


def candidate_actions(state):
    """Legal and illegal actions alike, for checking that apply takes exactly the offered ones."""
    players = [*state["players"], "nobody"]
    actions = [{"type": "ask", "slogan": s, "stake": k} for s in (0, 1, 2) for k in (0, 1, 3, 4)]
    actions += [{"type": "judge", "correct": c} for c in (True, False)] + [{"type": "judge", "correct": 1}]
    actions += [
        {"type": "judge", "player": p, "slogan": s, "correct": True}
        for p in state["players"][:3]
        for s in (0, 1)
    ]
    actions += [{"type": "challenge", "target": p} for p in players]
    actions += [{"type": "alfons"}, {"type": "pass"}, {"type": "pass", "now": 1}]
    actions += [{"type": "tip", "option": n} for n in (0, 3, 4)] + [{"type": "guess"}, {"type": "tip"}]
    return actions


def as_json(action):
    return json.dumps(action, sort_keys=True)


def fingerprint(state):
    """The state as JSON, without the pack's data (checked once per game: it never changes)."""
    return json.dumps({key: value for key, value in state.items() if key != "catalogue"}, sort_keys=True)


def check_actions(state, players):
    before = fingerprint(state)
    candidates = candidate_actions(state)
    for player in players:
        legal = engine.legal_actions(state, player)
        offered = {as_json(action) for action in legal}  # JSON tells true from 1
        for action in candidates + legal:
            if as_json(action) in offered:
                engine.apply(state, player, action)
            else:
                with pytest.raises(IllegalAction):
                    engine.apply(state, player, action)
    assert fingerprint(state) == before


# --- the tests --------------------------------------------------------------------------------


def max_steps(game):
    # Each turn uses up one card and takes at most six actions (challenge and four judgements).
    return 6 * game["cards"] + 10


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_random_legal_games_keep_every_rule(game):
    state = start(game)
    check_conservation(state)
    check_views(state)
    for before, player, _action, after in random_game(game, max_steps=50):
        check_conservation(after)
        check_step(before, after)
        check_actions(before, [player, before["questioned"]])
        check_views(after)
    assert state["catalogue"] == start(game)["catalogue"]


@settings(max_examples=40, deadline=None)
@given(game=games)
def test_every_random_game_ends_within_the_box_of_cards(game):
    state = start(game)
    for _before, _player, _action, after in random_game(game, max_steps=max_steps(game)):
        state = after
    result = engine.result(state)
    assert result is not None
    top = max(state["scores"].values())
    assert result["winners"] == [p for p in state["players"] if state["scores"][p] == top]
    reason = state["log"][-1]["reason"]
    assert (reason == "goal") == (engine.GOAL in state["positions"].values())


@settings(max_examples=10, deadline=None)
@given(game=games)
def test_bot_games_keep_every_rule(game):
    for before, player, action, after in random_game(game, max_steps=max_steps(game), chooser=bot_chooser):
        assert action in engine.legal_actions(before, player)
        check_conservation(after)
        check_step(before, after)
    assert engine.result(after) is not None


@pytest.mark.parametrize("players", [2, 4, 6])
def test_bot_games_end(players):
    ids = [f"p{n}" for n in range(players)]
    for seed in range(3):
        state, _ = play_game("slogan", PACKS[40], ids, seed)
        assert engine.result(state) is not None


def test_bot_extra_stats_count_the_answers():
    finals = [play_game("slogan", PACKS[40], ["a", "b", "c"], seed)[0] for seed in range(5)]
    stats = bot.extra_stats(finals)
    assert stats["answers right"].endswith(
        str(sum(1 for s in finals for e in s["log"] if e["type"] in ("judge", "duel_answer")))
    )
    assert "hardest slogans" in stats


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_thousands_of_random_games_keep_every_rule(game):
    state = start(game)
    for before, player, _action, state in random_game(game, max_steps=max_steps(game)):
        check_conservation(state)
        check_step(before, state)
        if len(state["log"]) % 40 == 0:  # the expensive checks on a sample of the steps
            check_actions(before, [player])
            check_views(state)
    assert engine.result(state) is not None


def eager_chooser(eager):
    """Players in ``eager`` challenge whenever they may; otherwise a random legal action."""

    def choose(state, rng):
        for player in eager:
            challenges = [a for a in engine.legal_actions(state, player) if a["type"] == "challenge"]
            if challenges:
                return player, rng.choice(challenges)
        return pick(state, rng, 0.0)

    return choose


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.integers(3, 6), all_eager=st.booleans())
def test_eager_challengers_cannot_stall_the_table(seed, players, all_eager):
    """Issue 20: a player who challenges whenever it is legal (or every player doing so) still
    lets the game end within the box of cards, and most turns stay questions: a player challenges
    at most once a lap (docs/engines.md, slogan), never two duels in a row, only from behind."""
    game = {"seed": seed, "players": players, "cards": 120, "first": 0, "challenge_rate": 0.0}
    eager = [f"p{n}" for n in range(players)] if all_eager else ["p0"]
    challenges = []
    state = start(game)
    for before, player, action, after in random_game(game, max_steps(game), eager_chooser(eager)):
        if action["type"] == "challenge":
            assert before["scores"][player] < max(before["scores"].values())
            challenges.append((before["turn"], player))
        state = after
    assert engine.result(state) is not None
    turns = [turn for turn, _ in challenges]
    assert all(later - earlier >= 2 for earlier, later in pairwise(turns))  # never in a row
    for challenger in eager:
        own = [turn for turn, p in challenges if p == challenger]
        assert all(later - earlier >= players for earlier, later in pairwise(own))
    assert len(challenges) <= (state["turn"] + 1) // 2
    if not all_eager:
        assert len(challenges) <= state["turn"] // players + 1
