"""How a server process learns that a room has a new version (DESIGN.md: Pushed updates).

One small interface, so a dedicated pub/sub (Redis, NATS) can replace the database's:

``notify(code, version)``
    called (by a ``post_save`` of ``Room``) inside the transaction that saved the room; the
    news goes out when that transaction commits, never for one that rolls back. A deleted
    room (``post_delete``: the admin, ``expire_rooms``, a lazily closed room) notifies
    ``GONE``, which every stream of the room takes as "look again" and so ends with
    ``event: closed``.
``subscribe(code)``
    an async context manager giving a ``Subscription``; ``await sub.next(timeout)`` is the
    newest version heard of since the last call (``None`` when nothing came in time).

What a subscription hears is a hint to look again, never the body itself: the events view
reads the room's version from the database and sends a body only for a version it has not
sent, so hearing a version twice, or one the room has already passed, does no harm.

Two back-ends, chosen by the database:

- PostgreSQL: ``pg_notify('kartothek_rooms', 'CODE:VERSION')`` in the saving transaction (sent
  at its commit, to every server), and one ``LISTEN`` connection per server process (per event
  loop) that hands each notification to that process's subscriptions. Whenever that connection
  is (re)made every subscription is told to look again, so a notification missed while it was
  down costs at most one extra read.
- SQLite (one file, maybe several processes): commits in this process are handed over at once;
  and one task per process reads the versions of every room someone here is subscribed to, in
  one query, every ``KARTOTHEK_PLAY_EVENTS_CHECK`` seconds (the safety net that makes another
  process's moves arrive); a subscribed room that query no longer finds is ``GONE``.

Database reads here run in the shared thread pool (whose few threads keep their connections),
so a waiting subscription holds neither a thread nor a database connection.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection, transaction

from cards.text import ascii_number

log = logging.getLogger(__name__)

CHANNEL = "kartothek_rooms"
GONE = -1  # the version a deleted room notifies: "look again" (the look finds no room)


def _postgres() -> bool:
    return connection.vendor == "postgresql"


class Subscription:
    """What one stream waits on: the newest version heard of for its room."""

    def __init__(self, code: str, loop: asyncio.AbstractEventLoop) -> None:
        self.code = code
        self.loop = loop
        self._heard: int | None = None
        self._event = asyncio.Event()

    def _hear(self, version: int) -> None:  # on the subscription's loop only
        # "look again" (GONE, -1) outranks any version heard with it: the look must happen
        if self._heard is None or version == GONE or (self._heard != GONE and version > self._heard):
            self._heard = version
        self._event.set()

    async def next(self, timeout: float | None) -> int | None:
        """The newest version heard of since the last call, waiting up to ``timeout`` seconds
        (-1 means "look again": the listener was reconnected); ``None`` after a quiet wait."""
        if not self._event.is_set():
            try:
                await asyncio.wait_for(self._event.wait(), timeout)
            except TimeoutError:
                return None
        self._event.clear()
        heard, self._heard = self._heard, None
        return heard


class _Hub:
    """This process's subscriptions, by room code (one hub per event loop)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.rooms: dict[str, set[Subscription]] = {}
        self.task: asyncio.Task[None] | None = None
        self.known: dict[str, int] = {}

    def deliver(self, code: str, version: int) -> None:
        for sub in list(self.rooms.get(code, ())):
            sub._hear(version)

    def wake_all(self) -> None:
        for subs in list(self.rooms.values()):
            for sub in list(subs):
                sub._hear(-1)

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(_listen(self) if _postgres() else _check(self))


_HUBS: dict[asyncio.AbstractEventLoop, _Hub] = {}


def _hub() -> _Hub:
    loop = asyncio.get_running_loop()
    hub = _HUBS.get(loop)
    if hub is None:
        for old in [lp for lp in _HUBS if lp.is_closed()]:
            del _HUBS[old]
        hub = _HUBS[loop] = _Hub(loop)
    return hub


@asynccontextmanager
async def subscribe(code: str) -> AsyncIterator[Subscription]:
    hub = _hub()
    sub = Subscription(code, hub.loop)
    hub.rooms.setdefault(code, set()).add(sub)
    hub.start()
    try:
        yield sub
    finally:
        subs = hub.rooms.get(code)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del hub.rooms[code]
                hub.known.pop(code, None)


def _deliver_everywhere(code: str, version: int) -> None:
    """Hand a committed version to this process's subscriptions on every loop (thread-safe)."""
    for hub in list(_HUBS.values()):
        if code in hub.rooms and not hub.loop.is_closed():
            with suppress(RuntimeError):  # the loop closed meanwhile
                hub.loop.call_soon_threadsafe(hub.deliver, code, version)


def notify(code: str, version: int) -> None:
    """Tell every server that room ``code`` is at ``version`` once the current transaction
    commits (at once outside a transaction)."""
    if _postgres():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, f"{code}:{version}"])
    transaction.on_commit(lambda: _deliver_everywhere(code, version))


def room_saved(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    """``post_save`` of ``Room``: every save that may carry a new version notifies."""
    if update_fields is not None and "version" not in update_fields:
        return
    notify(instance.code, instance.version)


def room_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    """``post_delete`` of ``Room``: its streams, on every server, look once more and close."""
    notify(instance.code, GONE)


# --- the PostgreSQL listener ------------------------------------------------------------------


def _listen_params() -> dict[str, Any]:
    params = dict(connection.get_connection_params())
    for sync_only in ("cursor_factory", "context"):
        params.pop(sync_only, None)
    return params


async def _listen(hub: _Hub) -> None:
    import psycopg

    params = await sync_to_async(_listen_params, thread_sensitive=False)()
    while hub.rooms:
        try:
            async with await psycopg.AsyncConnection.connect(**params, autocommit=True) as conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                hub.wake_all()  # anything committed before LISTEN took effect
                async for note in conn.notifies():
                    code, _, version = note.payload.rpartition(":")
                    if ascii_number(version) or version == str(GONE):
                        hub.deliver(code, int(version))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("The LISTEN connection failed; trying again in a second.", exc_info=True)
            hub.wake_all()
            await asyncio.sleep(1)


# --- the SQLite safety net --------------------------------------------------------------------


def _versions(codes: list[str]) -> dict[str, int]:
    from games.models import Room

    try:  # the pool thread keeps its connection (opening one costs more than the query)
        return dict(Room.objects.order_by().filter(code__in=codes).values_list("code", "version"))
    except BaseException:
        connection.close()  # it may be broken: the next check opens a new one
        raise


async def _check(hub: _Hub) -> None:
    """Every ``KARTOTHEK_PLAY_EVENTS_CHECK`` seconds, one query for the versions of every room
    subscribed here; a version that grew (another process's commit) is delivered."""
    while hub.rooms:
        await asyncio.sleep(settings.KARTOTHEK_PLAY_EVENTS_CHECK)
        codes = list(hub.rooms)
        if not codes:
            break
        try:
            found = await sync_to_async(_versions, thread_sensitive=False)(codes)
        except Exception:
            log.warning("The version check failed; trying again.", exc_info=True)
            continue
        for code, version in found.items():
            if hub.known.get(code, -1) < version:  # grown, or first seen (a stream looks again)
                hub.known[code] = version
                hub.deliver(code, version)
        for code in codes:
            if code not in found and hub.known.get(code) != GONE:  # deleted by another process
                hub.known[code] = GONE
                hub.deliver(code, GONE)
