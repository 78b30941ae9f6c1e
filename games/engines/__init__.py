"""The rules of the four games: pure Python, no Django, no I/O (see docs/engines.md).

``games.engines.get(slug)`` returns the engine module of a game; each engine module has
``SLUG``, ``MIN_PLAYERS``, ``MAX_PLAYERS``, ``setup``, ``legal_actions``, ``apply``, ``view``
and ``result``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from games.engines.base import IllegalAction

__all__ = ["ENGINES", "IllegalAction", "get"]

ENGINES = ("symbols", "sign", "slogan", "sauschwer")


def get(slug: str) -> ModuleType:
    if slug not in ENGINES:
        raise KeyError(f"There is no game '{slug}'; the games are: {', '.join(ENGINES)}.")
    return importlib.import_module(f"games.engines.{slug}")
