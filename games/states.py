"""A room's engine state and pack as this process keeps them: the newest parsed state of each
room in play (a state at a version never changes), the packs by release, and the room's card ids."""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction

from games import cardids
from games.errors import NoRoom
from games.lookup import _ROOM_ATTNAMES
from games.models import Room

# Parsed states and packs by key: a state at a version never changes, nor does a release.
_LRU_LOCK = threading.Lock()


class _Lru(OrderedDict):  # type: ignore[type-arg]
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        with _LRU_LOCK:  # the event streams read rooms in several threads at once
            self[key] = value
            self.move_to_end(key)
            while len(self) > self.size:
                self.popitem(last=False)


class _NewestStates:
    """The newest parsed state of each room this process used in the last ``keep`` seconds, for
    at most ``size`` rooms (the room used least recently goes first).

    A state at a version never changes, and what moves, polls and streams ask for is a room's
    newest; keeping older versions too (a cache of 512 versions did) held three or four states
    of every busy room, each ~5x its JSON in memory, and grew with every game's log. An older
    version asked for again is parsed again.

    Why only for a moment: the state is shared while a move fans out to the room's streams on
    this process (a few milliseconds; each stream's look would otherwise parse it again) and by
    a room's next move when it comes soon. A state kept past that is not reused: a move sent to
    the other server process makes a new version, which is parsed anyway. Kept for every open
    room, the states grew with each game's log (b in bench/play_speed.py: ~1.3 MB a minute of
    the two workers' memory, rooms that merely stayed open holding their whole game); kept for
    ``keep`` seconds after their last use, a process holds the states of the rooms being played
    right now. ``keep`` is read from ``KARTOTHEK_PLAY_STATE_KEEP_MS`` when not given (250 ms: a
    move reaches every seat within ~100 ms, p99, under the bench's 1,020 players; kept for a
    second, the states of a quarter of b's rooms were held at any moment and the workers' live
    objects still grew with the games' logs).
    """

    def __init__(self, size: int, keep: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.size = size
        self._keep = keep
        self._clock = clock
        # room → ((game number, version), state, last used); in order of last use
        self._rooms: OrderedDict[tuple[Any, ...], tuple[tuple[int, int], Any, float]] = OrderedDict()

    @property
    def keep(self) -> float:
        if self._keep is not None:
            return self._keep
        return settings.KARTOTHEK_PLAY_STATE_KEEP_MS / 1000

    @staticmethod
    def _split(key: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[int, int]]:
        pk, code, seed, game_number, version = key
        return (pk, code, seed), (game_number, version)

    def _forget_unused(self, now: float) -> None:
        """Drop the rooms not used for ``keep`` seconds (the oldest uses come first). Under the lock."""
        until = now - self.keep
        rooms = self._rooms
        while rooms:
            oldest = next(iter(rooms))
            if rooms[oldest][2] > until:
                break
            del rooms[oldest]

    def get(self, key: tuple[Any, ...]) -> Any:
        room, at = self._split(key)
        now = self._clock()
        with _LRU_LOCK:
            self._forget_unused(now)
            found = self._rooms.get(room)
            if found is None or found[0] != at:
                return None
            self._rooms[room] = (at, found[1], now)
            self._rooms.move_to_end(room)
            return found[1]

    def put(self, key: tuple[Any, ...], state: Any) -> None:
        room, at = self._split(key)
        now = self._clock()
        with _LRU_LOCK:
            self._forget_unused(now)
            found = self._rooms.get(room)
            if found is not None and found[0] > at:
                return  # a slower reader of an older version: the newer state stays
            self._rooms[room] = (at, state, now)
            self._rooms.move_to_end(room)
            while len(self._rooms) > self.size:
                self._rooms.popitem(last=False)

    def clear(self) -> None:
        with _LRU_LOCK:
            self._rooms.clear()

    def __len__(self) -> int:
        with _LRU_LOCK:
            self._forget_unused(self._clock())
            return len(self._rooms)


_STATES = _NewestStates(512)
_PACKS = _Lru(16)


def _state_key(room: Room) -> tuple[Any, ...]:
    # The code and seed too: a test database (or SQLite after a rollback) may reuse a pk.
    return (room.pk, room.code, room.seed, room.game_number, room.version)


def room_state(room: Room) -> dict[str, Any] | None:
    """The room's engine state (shared: callers must not mutate it)."""
    key = _state_key(room)
    own = room.__dict__.get("_own_state")
    if own is not None and own[0] == key:
        return own[1]  # type: ignore[no-any-return]  # changed in this transaction
    found = _STATES.get(key)
    if found is not None:
        return found  # type: ignore[no-any-return]
    if "state_json" in room.get_deferred_fields():
        _read_state_json(room)
        key = _state_key(room)
    state = room.state
    if state is not None and own is None:
        _STATES.put(key, state)  # as committed: a state at a version never changes
    return state


def _read_state_json(room: Room) -> None:
    """Load a room's deferred state together with the columns it goes with. The room may
    have moved on since it was read (a stream's look, a poll): its state alone would then be
    a newer version's under the older version number, and be cached and sent as that older
    version. If it has moved on, the room object becomes the newer room as a whole."""
    row = Room.objects.order_by().filter(pk=room.pk).values_list(*_ROOM_ATTNAMES, "state_json").first()
    if row is None:
        raise NoRoom("This room has just closed.")
    values = dict(zip(_ROOM_ATTNAMES, row[:-1], strict=True))
    if (values["version"], values["game_number"]) != (room.version, room.game_number):
        if values["release_id"] != room.release_id:
            room.__dict__.pop("_release_sha256", None)  # room_pack reads the new release's
        for name, value in values.items():
            setattr(room, name, value)
    room.state_json = row[-1]


def _set_state(room: Room, state: dict[str, Any]) -> None:
    room.state = state
    key = _state_key(room)
    room.__dict__["_own_state"] = (key, state)
    if "_plan" in room.__dict__:
        return  # a prepared move: shared only once it is stored (_store)
    # Shared with other requests only once committed: a rolled-back version may come again
    # with another state.
    transaction.on_commit(lambda: _STATES.put(key, state))


def room_pack(room: Room) -> dict[str, Any]:
    """The pack the room was opened with (its release, or the pinned draft)."""
    from exports.models import Release

    if room.release_id is not None:
        digest = room.__dict__.get("_release_sha256")  # read with the room (find_seat, find_room)
        if digest is None:
            digest = Release.objects.filter(pk=room.release_id).values_list("sha256", flat=True).get()
        key: Any = ("release", digest)
    else:
        key = ("draft", room.pk, room.code, room.seed)
    found = _PACKS.get(key)
    if found is None:
        data = bytes(room.release.data if room.release_id is not None else room.draft_pack or b"{}")
        found = json.loads(data)
        _PACKS.put(key, found)
    return found  # type: ignore[no-any-return]


def card_maps(room: Room) -> tuple[dict[str, str], dict[str, str], dict[str, Any]]:
    """The room's card ids: (pack key → id, id → pack key, the pack with ids for the pages)."""
    return cardids.maps(room, room_pack(room))
