"""Bots that play the games through the engine contract, for simulations and playtests.

Each game has a module ``games.bots.<slug>`` with ``choose(state, player, rng)``: a legal action
for that player, or ``None`` to pass when every action open to them is optional (a Sauschwer
"Stop!", a Sag's mit Symbolen card replacement): the driver then asks another player. A bot
reads hidden information only through the engine's ``view``. A module may also offer
``extra_stats(final_states) -> dict[str, str]`` for the balance report.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping, Sequence
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
    what the bot may know is decided here, not by the caller.
    """
    if not engines.get(slug).legal_actions(state, player):
        return None
    action: dict[str, Any] | None = bot_for(slug).choose(state, player, rng)
    return action


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
    bot = bot_for(engine_slug)
    state = engine.setup(list(players), content, seed=seed, options=options)
    rng = random.Random(f"bots:{seed}")
    order = list(players)
    steps = 0
    while engine.result(state) is None:
        if steps >= max_steps:
            raise BotStuck(f"{engine_slug}: no end after {max_steps} actions (seed {seed!r}).")
        rng.shuffle(order)
        for player in order:
            if not engine.legal_actions(state, player):
                continue
            action = bot.choose(state, player, rng)
            if action is not None:
                break
        else:
            raise BotStuck(f"{engine_slug}: every player passes (seed {seed!r}, step {steps}).")
        state = engine.apply(state, player, action)
        steps += 1
    return state, steps
