"""Bots play fair: a bot in a seat decides from that seat's view and legal actions only.

docs/engines.md, "Bots": "A bot that takes a seat decides from ``view(state, seat)`` and
``legal_actions(state, seat)`` only, as a person in that seat would ... The one stated exception
is Slogan's knowledge model". Each test plays bot games through ``games.bots.act`` and, at every
step, for every seat, replaces what that seat cannot see (other hands, piles, weights, the
secret slot, markers, answers, the generator) with decoys: the seat's view must stay the same
and the bot's decision must not change, except where Slogan's knowledge model applies.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from games import engines
from games.bots import act
from games.engines.base import new_rng_state
from tests.engines.packs import pack_for, sauschwer_pack, sign_pack, slogan_pack, symbols_pack

State = dict[str, Any]


def _shuffled(rng: random.Random, items: list[Any]) -> list[Any]:
    items = list(items)
    rng.shuffle(items)
    return items


def decoy_symbols(state: State, seat: str, rng: random.Random) -> State:
    new = copy.deepcopy(state)
    new["concepts"] = _shuffled(rng, new["concepts"])
    new["numbers"] = _shuffled(rng, new["numbers"])
    sees_secret = seat != state["candidate"]
    if not sees_secret and state["secret"] is not None:
        slots = [n for n, card in enumerate(state["board"], 1) if card is not None and n != state["secret"]]
        if slots:
            new["secret"] = rng.choice(slots)
    return new


def decoy_sign(state: State, seat: str, rng: random.Random) -> State:
    new = copy.deepcopy(state)
    others = [p for p in state["players"] if p != seat]
    hidden = [card for p in others for card in state["hands"][p]] + state["deck"][:-1] + state["discard"]
    if state["phase"] == "checking":
        hidden += state["table"]
    hidden = _shuffled(rng, hidden)
    for player in others:
        size = len(state["hands"][player])
        new["hands"][player], hidden = hidden[:size], hidden[size:]
    if state["phase"] == "checking":
        size = len(state["table"])
        new["table"], hidden = hidden[:size], hidden[size:]
    bottom = state["deck"][-1:]
    new["deck"], hidden = (
        hidden[: len(state["deck"]) - len(bottom)] + bottom,
        hidden[len(state["deck"]) - len(bottom) :],
    )
    new["discard"] = hidden
    mates = state["teams"][engines.get("sign").team_of(state, seat)]
    new["signals"] = [p for p in state["signals"] if p in mates] + [p for p in others if p not in mates]
    return new


def decoy_slogan(state: State, seat: str, rng: random.Random) -> State:
    new = copy.deepcopy(state)
    new["pile"] = _shuffled(rng, new["pile"])
    desks = [card for desk in state["desks"].values() for card in desk]
    desks = _shuffled(rng, desks)
    for player, desk in state["desks"].items():
        new["desks"][player], desks = desks[: len(desk)], desks[len(desk) :]
    catalogue = new["catalogue"]
    if state["phase"] == "question" and seat != state["questioner"] and new["pile"]:
        new["pile"][0], new["card"] = new["card"], new["pile"][0]
    elif state["phase"] in ("judge", "second_chance") and seat != state["questioner"]:
        slogan = catalogue["cards"][state["card"]][state["question"]["slogan"]]
        slogan["answer"] = (slogan["answer"] + 1) % 4  # the options stay; which one is right changes
    elif state["phase"] == "duel" and seat not in state["duel"]["readers"]:
        judged = {a["slogan"] for a in state["duel"]["answers"] if a["player"] == state["duel"]["challenger"]}
        for number, slogan in enumerate(catalogue["cards"][state["duel"]["card"]]):
            if number not in judged:
                slogan["answer"] = (slogan["answer"] + 1) % 4
    return new


def decoy_sauschwer(state: State, seat: str, rng: random.Random) -> State:
    new = copy.deepcopy(state)
    if state["phase"] != "over":
        new["weights"] = {card: rng.choice([1, 10, 1000, 10**6]) for card in state["weights"]}
    new["pile"] = _shuffled(rng, new["pile"])
    new["markers"] = {
        p: (side if p == seat else ("violet" if side == "red" else "red"))
        for p, side in state["markers"].items()
    }
    return new


DECOYS = {"symbols": decoy_symbols, "sign": decoy_sign, "slogan": decoy_slogan, "sauschwer": decoy_sauschwer}


def the_exception_applies(slug: str, state: State, seat: str) -> bool:
    """Slogan's knowledge model: a wrong answerer may recall the answer to their question."""
    return slug == "slogan" and state["phase"] == "second_chance" and seat == state["questioned"]


def check_fair_play(
    slug: str, content: dict[str, Any], players: list[str], seed: int, steps: int
) -> dict[str, int]:
    engine = engines.get(slug)
    state = engine.setup(players, content, seed=seed)
    driver = random.Random(seed)
    counts = {"decisions": 0, "exceptions": 0, "changed": 0}
    for step in range(steps):
        if engine.result(state) is not None:
            break
        for seat in players:
            decoy = DECOYS[slug](state, seat, random.Random(f"{seed}:{step}:{seat}"))
            decoy["rng"] = new_rng_state(f"decoy:{seed}:{step}")
            assert engine.view(decoy, seat, with_log=False) == engine.view(state, seat, with_log=False), seat
            assert engine.legal_actions(decoy, seat) == engine.legal_actions(state, seat)
            if json.dumps(decoy, sort_keys=True) != json.dumps(state, sort_keys=True):
                counts["changed"] += 1
            real = act(slug, state, seat, random.Random(step))
            fake = act(slug, decoy, seat, random.Random(step))
            counts["decisions"] += real is not None
            if the_exception_applies(slug, state, seat):
                counts["exceptions"] += 1
                continue
            assert real == fake, (slug, seed, step, seat, real, fake)
        order = driver.sample(players, len(players))
        player, action = next((p, a) for p in order if (a := act(slug, state, p, driver)) is not None)
        state = engine.apply(state, player, action)
    return counts


@pytest.mark.parametrize(
    ("slug", "content", "players"),
    [
        ("symbols", symbols_pack(), ["p1", "p2", "p3", "p4"]),
        ("symbols", symbols_pack(), ["p1", "p2", "p3", "p4", "p5", "p6"]),
        ("sign", sign_pack(8, 8), ["p1", "p2", "p3", "p4"]),
        ("sign", sign_pack(8, 8), [f"p{n}" for n in range(1, 10)]),
        ("slogan", slogan_pack(n_cards=40), ["p1", "p2", "p3", "p4"]),
        ("slogan", slogan_pack(n_cards=40), ["p1", "p2", "p3"]),
        ("sauschwer", sauschwer_pack(), ["p1", "p2", "p3", "p4"]),
        ("sauschwer", sauschwer_pack(), ["p1", "p2"]),
    ],
    ids=["symbols-4", "symbols-6", "sign-4", "sign-9", "slogan-4", "slogan-3", "sauschwer-4", "sauschwer-2"],
)
def test_a_bots_decisions_do_not_change_when_the_secrets_are_decoys(slug, content, players):
    """docs/engines.md, "Bots": a bot decides from ``view`` and ``legal_actions`` only."""
    totals = {"decisions": 0, "exceptions": 0, "changed": 0}
    for seed in range(2):
        for key, value in check_fair_play(slug, content, players, seed, steps=80).items():
            totals[key] += value
    assert totals["decisions"] > 40 and totals["changed"] > 40  # the check had something to check


def test_the_slogan_knowledge_model_is_the_one_exception_and_uses_only_the_answer():
    """docs/engines.md, "Bots": Slogan's knowledge model "may use the answer with the probability
    its skill level gives". With the answer moved, a bot that recalls it tips the new answer."""
    engine = engines.get("slogan")
    recalled = 0
    for seed in range(40):
        state = engine.setup(["p1", "p2", "p3"], slogan_pack(n_cards=40), seed=seed)
        state = engine.apply(state, "p1", {"type": "ask", "slogan": 0, "stake": 1})
        state = engine.apply(state, "p1", {"type": "judge", "correct": False})
        decoy = decoy_slogan(state, "p2", random.Random(seed))
        answer = state["catalogue"]["cards"][state["card"]][0]["answer"]
        moved = decoy["catalogue"]["cards"][decoy["card"]][0]["answer"]
        real, fake = (
            act("slogan", state, "p2", random.Random(seed)),
            act("slogan", decoy, "p2", random.Random(seed)),
        )
        if real != fake:  # only a recalled answer may differ: the answer, then the decoy's
            assert real == {"type": "tip", "option": answer}
            assert fake == {"type": "tip", "option": moved}
            recalled += 1
    assert 0 < recalled < 40


def test_act_passes_for_a_seat_without_a_legal_action():
    """docs/engines.md, "Bots": ``act`` returns ``None`` when the seat has nothing to do."""
    state = engines.get("slogan").setup(["p1", "p2", "p3"], pack_for("slogan"), seed=0)
    assert act("slogan", state, "p3", random.Random(0)) is None
    assert act("slogan", state, "nobody", random.Random(0)) is None
