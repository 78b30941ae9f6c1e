"""Sign, random legal games: invariants that hold at every step of every game."""

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import act, play_game
from games.engines import IllegalAction
from games.engines import sign as engine
from tests.engines.packs import sign_pack

PACKS = {"full": sign_pack(8, 8), "small": sign_pack(6, 6)}
ALL_CARDS = {name: Counter(card["key"] for card in pack["body"]["cards"]) for name, pack in PACKS.items()}

games = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 10**6),
        "players": st.integers(4, 9),
        "pack": st.sampled_from(["full", "small"]),
        "length": st.sampled_from([{}, {"target_points": 1}, {"rounds": 1}, {"rounds": 3}]),
        "sign_rate": st.sampled_from([0.3, 0.03]),
    }
)


def start(game):
    players = [f"p{n}" for n in range(game["players"])]
    pack = "full" if game["players"] > 4 else game["pack"]  # the small pack seats only four
    options = dict(game["length"])
    if game["sign_rate"] < 0.1 and not options.get("rounds"):
        options = {"rounds": 1}  # rare calls: let drawn rounds end the game
    state = engine.setup(players, PACKS[pack], seed=game["seed"], options=options)
    return state, ALL_CARDS[pack]


def pick(state, rng, sign_rate):
    """A random legal action; calls are rarer than swaps, and a done player mostly waits.
    While the players check their hands, one who has not sent ``ready`` sends it."""
    if state["phase"] == "checking":
        return rng.choice([p for p in state["players"] if p not in state["ready"]]), {"type": "ready"}
    waiting = [p for p in state["players"] if p not in state["done"]]
    player = rng.choice(waiting if waiting and rng.random() < 0.9 else state["players"])
    actions = engine.legal_actions(state, player)
    calls = [a for a in actions if a["type"] == "sign"]
    swaps = [a for a in actions if a["type"] != "sign"]
    if rng.random() < sign_rate or not swaps:
        return player, rng.choice(calls)
    if {"type": "done"} in swaps and rng.random() < 0.5:
        return player, {"type": "done"}
    return player, rng.choice(swaps)


def random_game(game, max_steps):
    """(state, player, action, next state) for each step of a random legal game."""
    state, _ = start(game)
    rng = random.Random(game["seed"])
    for _ in range(max_steps):
        if engine.result(state) is not None:
            return
        player, action = pick(state, rng, game["sign_rate"])
        after = engine.apply(state, player, action)
        yield state, player, action, after
        state = after


def cards_in_play(state):
    piles = [*state["hands"].values(), state["table"], state["deck"], state["discard"]]
    return Counter(card for pile in piles for card in pile)


def check_conservation(state, all_cards):
    assert cards_in_play(state) == all_cards
    assert all(4 <= len(hand) <= 6 for hand in state["hands"].values())


def check_scores(before, after):
    gained = [b - a for a, b in zip(before["team_scores"], after["team_scores"], strict=True)]
    calls = [e for e in after["log"][len(before["log"]) :] if e["type"] == "sign"]
    if not calls:
        assert gained == [0] * len(gained)
        return
    (call,) = calls
    assert gained == [int(team in call["scoring_teams"]) for team in range(len(gained))]
    caller, target = engine.team_of(before, call["caller"]), engine.team_of(before, call["target"])
    if call["valid"]:
        assert call["scoring_teams"] == [caller]
    elif caller == target:
        assert sorted(call["scoring_teams"]) == [t for t in range(len(gained)) if t != caller]
    else:
        assert call["scoring_teams"] == [target]
    for number, team in enumerate(after["teams"]):
        assert all(after["scores"][player] == after["team_scores"][number] for player in team)


def secrets_of_others(state, viewer):
    """Cards nobody but their holder could know this round: hands dealt and never on the table,
    the deck below its top (the bottom card is shown), and the table while it lies face down."""
    public = {state["bottom_card"]}
    for event in state["log"]:
        if event.get("round") != state["round"]:
            continue
        if event["type"] in ("table_opened", "refresh"):
            public |= set(event["table"])
        elif event["type"] in ("drop", "take"):
            public.add(event["card"])
        elif event["type"] == "sign":  # the called hand is checked in front of everybody
            public |= set(event["hand"])
    secret = set(state["deck"]) - public
    if state["phase"] == "checking":
        secret |= set(state["table"])
    for player, hand in state["hands"].items():
        if player != viewer:
            secret |= set(hand) - public
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
        this_round = dict(seen, log=[e for e in seen["log"] if e.get("round") == state["round"]])
        json.dumps(seen)
        leaked = secrets_of_others(state, viewer) & strings_in(this_round)
        assert not leaked, (viewer, leaked)
        assert not {"hands", "deck", "discard", "rng"} & set(seen)
        if viewer is not None:
            assert seen["hand"] == state["hands"][viewer]
            mates = state["teams"][engine.team_of(state, viewer)]
            assert seen["signals"] == [p for p in state["signals"] if p in mates]
        signs = [e["player"] for e in seen["log"] if e["type"] == "signal"]
        assert all(viewer is not None and engine.team_of(state, p) == seen["team"] for p in signs)


def candidate_actions(state, player):
    """Legal and illegal actions alike, for checking that apply takes exactly the offered ones."""
    other = next(p for p in state["players"] if p != player)
    cards = [*state["table"][:3], *state["hands"][player][:3], *state["hands"][other][:2], *state["deck"][:1]]
    actions = [{"type": kind, "card": card} for kind in ("take", "drop") for card in cards]
    actions += [{"type": "sign", "target": p} for p in [*state["players"], "nobody"]]
    actions += [{"type": "done"}, {"type": "done", "now": True}, {"type": "pass"}, {"type": "take"}]
    actions += [{"type": "ready"}, {"type": "signal"}, {"type": "ready", "now": True}]
    return actions


def as_json(action):
    return json.dumps(action, sort_keys=True)


def check_actions(state, player):
    legal = engine.legal_actions(state, player)
    offered = {as_json(action) for action in legal}
    before = json.dumps(state, sort_keys=True)
    for action in candidate_actions(state, player) + legal:
        if as_json(action) in offered:
            engine.apply(state, player, action)
        else:
            with pytest.raises(IllegalAction):
                engine.apply(state, player, action)
    assert json.dumps(state, sort_keys=True) == before


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_random_legal_games_keep_every_rule(game):
    state, all_cards = start(game)
    check_conservation(state, all_cards)
    for before, player, _action, after in random_game(game, max_steps=60):
        check_conservation(after, all_cards)
        check_scores(before, after)
        check_actions(before, player)
        check_views(after)
        json.dumps(after)


def play_to_the_end(game, max_steps=20_000):
    state, all_cards = start(game)
    steps = 0
    for _before, _player, _action, after in random_game(game, max_steps):
        state = after
        steps += 1
    assert engine.result(state) is not None, f"no end after {steps} steps"
    check_conservation(state, all_cards)
    result = engine.result(state)
    top = max(state["team_scores"])
    assert set(result["winners"]) == {
        p for p in state["players"] if state["team_scores"][engine.team_of(state, p)] == top
    }
    return state


@settings(max_examples=40, deadline=None)
@given(game=games)
def test_every_random_game_ends(game):
    play_to_the_end(game)


def bot_game(game, max_steps=20_000):
    """Like random_game, with the bots choosing: their games end with valid calls too."""
    state, _ = start(game)
    rng = random.Random(game["seed"])
    for _ in range(max_steps):
        if engine.result(state) is not None:
            return
        order = rng.sample(state["players"], len(state["players"]))
        player, action = next((p, a) for p in order if (a := act("sign", state, p, rng)) is not None)
        after = engine.apply(state, player, action)
        yield state, player, action, after
        state = after
    raise AssertionError("the bots did not finish")


@settings(max_examples=10, deadline=None)
@given(game=games)
def test_bot_games_keep_every_rule(game):
    _, all_cards = start(game)
    outcomes = Counter()
    for before, player, action, after in bot_game(game):
        assert action in engine.legal_actions(before, player)
        check_conservation(after, all_cards)
        check_scores(before, after)
        outcomes.update(e["outcome"] for e in after["log"][len(before["log"]) :] if e["type"] == "round_end")
    assert outcomes


@pytest.mark.parametrize("players", [4, 6, 9])
def test_bot_games_end(players):
    ids = [f"p{n}" for n in range(players)]
    for seed in range(3):
        state, _ = play_game("sign", PACKS["full"], ids, seed)
        assert engine.result(state) is not None


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=games)
def test_thousands_of_random_games_keep_every_rule(game):
    _, all_cards = start(game)
    for before, player, _action, after in random_game(game, max_steps=20_000):
        check_conservation(after, all_cards)
        check_scores(before, after)
        if len(after["log"]) % 7 == 0:  # the expensive checks on a sample of the steps
            check_actions(before, player)
            check_views(after)
    play_to_the_end(game)
