"""The play mode's errors: each carries a message a player can read and the HTTP status the
API answers it with (``NoRoom`` 404, ``NotASeat``/``NotAllowed`` 403, ``RoomFull``/
``RoomStarted``/``Stale`` 409, ``Refused`` 400, ``TooManyWrites`` 429)."""

from __future__ import annotations

from typing import Any


class PlayError(Exception):
    """Base of the play mode's errors; ``str(error)`` is for the player, ``status`` for HTTP."""

    status = 400


class NoRoom(PlayError):
    status = 404


class NotASeat(PlayError):
    status = 403


class NotAllowed(PlayError):
    status = 403


class RoomFull(PlayError):
    status = 409


class RoomStarted(PlayError):
    status = 409


class NoRelease(PlayError):
    status = 404


class Refused(PlayError):
    status = 400


class TooManyWrites(PlayError):
    """Over a play write limit (``games.ratelimit``): answered 429 with ``Retry-After``."""

    status = 429


class Stale(PlayError):
    """The action is no longer legal: someone was faster. ``body`` is the fresh snapshot."""

    status = 409

    def __init__(self, message: str, body: dict[str, Any]) -> None:
        super().__init__(message)
        self.body = body
