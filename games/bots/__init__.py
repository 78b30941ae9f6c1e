"""Bots that play the games through the engine contract, for simulations and playtests.

A bot in a seat plays fair: it decides from what a person in that seat knows, nothing more.
``act(slug, state, player, rng)`` is the one entry point (the play mode's rooms, ``play_game``
and the simulations all call it): it computes ``view(state, player)`` and
``legal_actions(state, player)`` and hands the bot module only those, as
``choose(view, legal, rng)``. The module returns one of the legal actions, or ``None`` to pass
when every action open to it is optional (a Sauschwer "Stop!", a Sag's mit Symbolen card
replacement): the driver then asks another player.

The one stated exception is Slogan's knowledge model (docs/engines.md, "Bots"): a bot stands
for a player who may know a slogan, so ``games.bots.slogan.choose`` also gets ``recall``, a
callable that gives the answer of the question this seat is being asked with the probability
the bot's skill gives, and nothing else of the state.

A module may also offer, for the balance report, ``tally(final_state) -> Counter`` (one
finished game's counts; the tallies of games add up, so a report of 10,000 games keeps no
state) and ``stats_of(counts) -> dict[str, str]`` (the report's lines from the summed tallies).
"""

from __future__ import annotations

import functools
import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from games import engines

__all__ = ["BotStuck", "act", "bot_for", "play_game"]

MAX_STEPS = 20_000


class BotStuck(RuntimeError):
    """A bot game that does not end: nobody acts, or the step cap is reached."""


def bot_for(slug: str) -> ModuleType:
    """The bot module of a game, imported when first asked for."""
    if slug not in engines.ENGINES:
        raise KeyError(f"There is no game '{slug}'; the games are: {', '.join(engines.ENGINES)}.")
    return importlib.import_module(f"games.bots.{slug}")


def act(slug: str, state: Mapping[str, Any], player: str, rng: random.Random) -> dict[str, Any] | None:
    """The action the bot in ``player``'s seat takes now, or ``None`` when it passes.

    The one entry point for anything that seats a bot (the play mode's rooms, simulations):
    what the bot may know is decided here, not by the caller. The bot gets the seat's view
    (without the log: a bot does not read it) and its legal actions, never the state.
    """
    engine, bot = _modules(slug)
    legal: list[dict[str, Any]] = engine.legal_actions(state, player)
    if not legal:
        return None
    seen: dict[str, Any] = engine.view(state, player, with_log=False)
    action: dict[str, Any] | None
    if slug == "slogan":
        action = bot.choose(seen, legal, rng, recall=_slogan_recall(state, player, rng))
    else:
        action = bot.choose(seen, legal, rng)
    return action


@functools.cache
def _modules(slug: str) -> tuple[ModuleType, ModuleType]:
    """The engine and the bot of a game (looked up once: ``act`` runs for every decision)."""
    return engines.get(slug), bot_for(slug)


def _knows_nothing(bonus: float = 0.0) -> int | None:
    return None


def _slogan_recall(
    state: Mapping[str, Any], player: str, rng: random.Random
) -> Callable[[float], int | None]:
    """Slogan's knowledge model, the stated exception: whether this seat's player knows the
    answer to the question they are being asked (a roll with the probability their skill and
    the slogan's difficulty give, raised by ``bonus``); the answer if so, else ``None``.

    Outside a question to this player the callable knows nothing.
    """
    question, card = state.get("question"), state.get("card")
    if question is None or card is None or player != state.get("questioned"):
        return _knows_nothing
    slogan = state["catalogue"]["cards"][card][question["slogan"]]
    key, answer = str(slogan["key"]), int(slogan["answer"])
    knows = _modules("slogan")[1].knows

    def recall(bonus: float = 0.0) -> int | None:
        return answer if knows(player, key, rng, bonus) else None

    return recall


def play_game(
    engine_slug: str,
    content: Mapping[str, Any],
    players: Sequence[str],
    seed: int | str,
    options: Mapping[str, Any] | None = None,
    *,
    max_steps: int = MAX_STEPS,
) -> tuple[dict[str, Any], int]:
    """Play one game with bots to its end; returns the final state and the number of actions.

    Each step the driver picks, with a generator seeded by ``seed``, one of the players who
    have a legal action (in random order, so a passing player makes way for the next one).
    """
    engine = engines.get(engine_slug)
    state = engine.setup(list(players), content, seed=seed, options=options)
    rng = random.Random(f"bots:{seed}")
    order = list(players)
    steps = 0
    while engine.result(state) is None:
        if steps >= max_steps:
            raise BotStuck(f"{engine_slug}: no end after {max_steps} actions (seed {seed!r}).")
        rng.shuffle(order)
        for player in order:
            action = act(engine_slug, state, player, rng)
            if action is not None:
                break
        else:
            raise BotStuck(f"{engine_slug}: every player passes (seed {seed!r}, step {steps}).")
        state = engine.apply(state, player, action)
        steps += 1
    return state, steps


def ending_lines(counts: Mapping[Any, int]) -> dict[str, str]:
    """The report's "games ending by …" lines from summed tallies that count each game
    (``"games"``) and its end (``("ending", reason)``)."""
    reasons = sorted(key[1] for key in counts if isinstance(key, tuple) and key[0] == "ending")
    return {f"games ending by {reason.replace('_', ' ')}": f"{counts['ending', reason] / counts['games']:.1%}"
            for reason in reasons}
