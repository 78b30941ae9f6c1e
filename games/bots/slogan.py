"""A Slogan bot with a knowledge model: each bot knows each slogan with its own probability.

How well known a slogan is (its difficulty) and how much a bot knows (its skill) are derived
from the slogan key and the player id, so they are the same in every game. Whether a bot knows
a slogan this time is a roll of the driver's dice.

It plays fair, with one stated exception (docs/engines.md, "Bots"). It decides from its seat's
view and legal actions (see ``games.bots``); the questioner's view holds the slogan's key, so a
questioner or duel reader simulates the spoken answer of the player it judges by rolling that
player's knowledge (the spoken answer is not in the engine). The exception: a wrong answerer
choosing a tip stands for a player who may know the slogan after all, so ``choose`` gets
``recall(bonus)``, a callable that returns the correct option with the probability this bot's
skill and the slogan's difficulty give (raised by ``bonus``), else ``None``. That callable is
the only thing of the hidden state a bot can reach, and only for the question it is asked.

The questioner asks the harder slogan of the card and stakes by its difficulty; a wrong
answerer tips when the options jog its memory, and otherwise mostly draws a Spießer Alfons.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import Callable
from typing import Any

from games.bots import ending_lines

CHALLENGE = 0.05  # chance to challenge a leader who is at most CHALLENGE_GAP chips ahead
CHALLENGE_GAP = 4
OPTIONS_HELP = 0.25  # seeing four options makes a slogan this much likelier to be known
ALFONS = 0.7  # a bot that cannot place the slogan draws an Alfons card this often
LISTED = 5  # hardest and easiest slogans named in the report


def _unit(text: str) -> float:
    """A number in [0, 1) fixed by the text."""
    return zlib.crc32(text.encode()) / 2**32


def difficulty(slogan_key: str) -> float:
    """How little known a slogan is: 0 (everybody knows it) to 1."""
    return _unit(f"slogan:{slogan_key}")


def skill(player: str) -> float:
    """How many slogans a bot knows: 0.4 to 0.9."""
    return 0.4 + 0.5 * _unit(f"skill:{player}")


def know_probability(player: str, slogan_key: str) -> float:
    return min(0.98, max(0.02, skill(player) + 0.25 - 0.6 * difficulty(slogan_key)))


def knows(player: str, slogan_key: str, rng: random.Random, bonus: float = 0.0) -> bool:
    return rng.random() < know_probability(player, slogan_key) + bonus


def choose(
    seen: dict[str, Any],
    legal: list[dict[str, Any]],
    rng: random.Random,
    recall: Callable[[float], int | None] = lambda bonus: None,
) -> dict[str, Any] | None:
    phase = seen["phase"]
    player = seen["you"]
    if phase == "question":
        challenge = _challenge(seen, legal, player, rng)
        if challenge is not None or player != seen["questioner"]:
            return challenge
        return _ask(seen)
    if phase == "judge" and player == seen["questioner"]:
        question = seen["question"]
        return {"type": "judge", "correct": knows(seen["questioned"], question["key"], rng)}
    if phase == "second_chance" and player == seen["questioned"]:
        return _second_chance(seen, player, rng, recall)
    if phase == "duel" and player in seen["duel"]["readers"]:
        duel = seen["duel"]
        answer = duel["next"]
        key = duel["slogans"][answer["slogan"]]["key"]
        return {"type": "judge", **answer, "correct": knows(answer["player"], key, rng)}
    return None


def _challenge(
    seen: dict[str, Any], legal: list[dict[str, Any]], player: str, rng: random.Random
) -> dict[str, Any] | None:
    leaders = [action["target"] for action in legal if action["type"] == "challenge"]
    if not leaders:
        return None
    gap = seen["scores"][leaders[0]] - seen["scores"][player]
    if 0 < gap <= CHALLENGE_GAP and rng.random() < CHALLENGE:
        return {"type": "challenge", "target": rng.choice(leaders)}
    return None


def _ask(seen: dict[str, Any]) -> dict[str, Any]:
    """The less known slogan (the stake goes to the questioner on a wrong answer), staked by
    how little known it is."""
    slogans = seen["card"]["slogans"]
    number = max((0, 1), key=lambda n: difficulty(slogans[n]["key"]))
    hardness = difficulty(slogans[number]["key"])
    stake = 1 if hardness < 0.3 else 3 if hardness > 0.65 else 2
    return {"type": "ask", "slogan": number, "stake": stake}


def _second_chance(
    seen: dict[str, Any], player: str, rng: random.Random, recall: Callable[[float], int | None]
) -> dict[str, Any]:
    answer = recall(OPTIONS_HELP)  # the knowledge model: the one stated exception
    if answer is not None:
        return {"type": "tip", "option": answer}
    if seen["desk_counts"][player] and rng.random() < ALFONS:
        return {"type": "alfons"}
    return {"type": "tip", "option": rng.randrange(len(seen["question"]["options"]))}


def tally(final: dict[str, Any]) -> Counter[Any]:
    """One finished game's counts for the balance report; tallies of games add up (the
    slogans asked and answered right are counted by key)."""
    counts: Counter[Any] = Counter(games=1, turns=final["turn"])
    answers: dict[int, list[bool]] = {}  # slogan 0 or 1 -> judgements not yet attributed
    asked_slogan = 0
    for event in final["log"]:
        kind = event["type"]
        if kind == "ask":
            asked_slogan = event["slogan"]
        elif kind == "judge":
            answers.setdefault(asked_slogan, []).append(event["correct"])
        elif kind == "duel_answer":
            answers.setdefault(event["slogan"], []).append(event["correct"])
        elif kind == "solution":
            judged = answers.pop(event["slogan"], [])
            if judged:
                counts["asked", event["key"]] += len(judged)
                counts["right", event["key"]] += sum(judged)
        elif kind == "challenge":
            counts["duels"] += 1
            counts["new_cards"] += event["new_card"]
        elif kind == "alfons":
            counts["alfons"] += 1
            counts["void"] += event["void"]
        elif kind == "game_end":
            counts["ending", event["reason"]] += 1
    return counts


def stats_of(counts: Counter[Any]) -> dict[str, str]:
    """Which slogans were answered right how often; how games ended; duels and Alfons cards."""
    asked = {key[1]: n for key, n in counts.items() if isinstance(key, tuple) and key[0] == "asked"}
    right = {key: counts["right", key] for key in asked}
    total = sum(asked.values())
    if not total:
        return {}
    games, duels, new_cards, alfons = counts["games"], counts["duels"], counts["new_cards"], counts["alfons"]
    stats = {
        "turns per game": f"{counts['turns'] / games:.1f}",
        "answers right": f"{sum(right.values()) / total:.1%} of {total}",
        "slogans asked": f"{len(asked)} (never answered right: {sum(1 for k in asked if not right[k])})",
        "duels per game": f"{duels / games:.2f}",
        "duels": f"{duels} ({duels - new_cards} read from the turn's card, "
        f"{new_cards} from a new card because the questioner duelled)",
        "Spießer Alfons cards per game": f"{alfons / games:.2f} ({counts['void'] / alfons:.1%} void)"
        if alfons
        else "0",
    }
    stats.update(ending_lines(counts))
    by_rate = sorted(asked, key=lambda k: (right[k] / asked[k], -asked[k], k))
    stats["hardest slogans"] = ", ".join(f"{k} {right[k]}/{asked[k]}" for k in by_rate[:LISTED])
    stats["easiest slogans"] = ", ".join(f"{k} {right[k]}/{asked[k]}" for k in reversed(by_rate[-LISTED:]))
    return stats


def extra_stats(final_states: list[dict[str, Any]]) -> dict[str, str]:
    return stats_of(sum((tally(state) for state in final_states), Counter()))
