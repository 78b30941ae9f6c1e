"""How many event streams one client holds open at once, counted across every app server.

Each open stream (``GET /api/play/rooms/CODE/events``) holds one of its client's numbered
slots, a ``StreamSlot`` row (client key, number, opened and heartbeat times); a client holds
at most ``KARTOTHEK_PLAY_STREAMS_PER_CLIENT`` of them (``0``: no cap). The unique (key,
number) pair lets the database decide, so two servers opening a client's last slot at the
same moment cannot both get it. Over the cap the stream is refused before it starts: a 429
with ``Retry-After`` and a JSON message (the page then polls and tries its stream again
later).

A slot is deleted when its stream ends (the client left, the room closed). While it is open
its server refreshes ``beat_at`` every ``REFRESH_SECONDS`` (one ``UPDATE`` per server process
for all the slots it holds); a slot not refreshed for ``STALE_SECONDS`` — its server died or
stopped without a word — no longer counts and is deleted by the client's next stream and by
``expire_rooms``.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from datetime import datetime, timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from games.models import StreamSlot
from games.ratelimit import client_key, too_many

log = logging.getLogger(__name__)

REFRESH_SECONDS = 30.0  # how often a server refreshes the slots of its open streams
STALE_SECONDS = 90.0  # a slot not refreshed for this long is free (three refreshes missed)
RETRY_AFTER = 30  # the 429's Retry-After: the page's longest wait (play-link.js STREAM_RETRY_MS)


def key_of(request: HttpRequest) -> str:
    return f"streams:{client_key(request)}"[:100]


def _stale_before(now: datetime) -> datetime:
    return now - timedelta(seconds=STALE_SECONDS)


class StreamsFull(Exception):
    """The client already holds its cap of open streams (a 429: ``refused()``)."""


def take(key: str) -> int:
    """``claim()``, raising ``StreamsFull`` when the client holds its cap."""
    slot = claim(key)
    if slot is None:
        raise StreamsFull(key)
    return slot


def claim(key: str) -> int | None:
    """A slot for a new stream of client ``key``: its id (``0`` when there is no cap), or
    ``None`` when the client already holds ``KARTOTHEK_PLAY_STREAMS_PER_CLIENT`` live ones."""
    limit = settings.KARTOTHEK_PLAY_STREAMS_PER_CLIENT
    if not limit:
        return 0
    now = timezone.now()
    StreamSlot.objects.filter(key=key, beat_at__lt=_stale_before(now)).delete()
    taken = set(StreamSlot.objects.filter(key=key).values_list("number", flat=True))
    for number in range(limit):
        if number in taken:
            continue
        try:
            with transaction.atomic():
                return StreamSlot.objects.create(key=key, number=number, opened_at=now, beat_at=now).pk
        except IntegrityError:  # another server took this number at the same moment
            continue
    return None


def release(slot: int) -> None:
    """Free a slot (its stream ended); nothing for ``0`` (no cap) or a slot already gone."""
    if slot:
        StreamSlot.objects.filter(pk=slot).delete()


def refused() -> HttpResponse:
    """The 429 for a client that already holds its cap of streams."""
    message = _("Too many live updates are open from here (%(limit)s at once): close this game "
                "in another tab or device, or wait; the page keeps up by asking every few "
                "seconds meanwhile.") % {"limit": settings.KARTOTHEK_PLAY_STREAMS_PER_CLIENT}
    return too_many(message, json=True, seconds=RETRY_AFTER)


def forget_stale(now: datetime | None = None) -> int:
    """Delete the slots no server has refreshed for ``STALE_SECONDS`` (``expire_rooms``)."""
    deleted, _by_model = StreamSlot.objects.filter(
        beat_at__lt=_stale_before(now or timezone.now())).delete()
    return deleted


# --- the slots held by this process's open streams (one keeper task per event loop) ----------

_HELD: dict[asyncio.AbstractEventLoop, set[int]] = {}
_KEEPERS: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}


def hold(slot: int) -> None:
    """A stream started: keep its slot refreshed while it is open (call on its event loop)."""
    if not slot:
        return
    loop = asyncio.get_running_loop()
    for old in [lp for lp in _HELD if lp.is_closed()]:
        _HELD.pop(old, None)
        _KEEPERS.pop(old, None)
    _HELD.setdefault(loop, set()).add(slot)
    keeper = _KEEPERS.get(loop)
    if keeper is None or keeper.done():
        _KEEPERS[loop] = loop.create_task(_keep(loop))


def let_go(slot: int) -> None:
    """A stream ended (or was cancelled): free its slot now, without waiting for the deletion
    (it runs on a pool thread; a failure leaves the slot to go stale)."""
    if not slot:
        return
    for held in list(_HELD.values()):  # whichever loop holds it: never refreshed again
        held.discard(slot)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # finalized outside any event loop: this thread may query
        _release_quietly(slot)
        return
    with suppress(RuntimeError):  # the loop is closing: the slot goes stale
        loop.run_in_executor(None, _release_quietly, slot)


def _release_quietly(slot: int) -> None:
    try:
        release(slot)
    except Exception:
        log.warning("Could not free stream slot %s; it is free once stale.", slot, exc_info=True)
        connection.close()


def _refresh(slots: list[int]) -> None:
    try:
        now = timezone.now()
        for start in range(0, len(slots), 500):
            StreamSlot.objects.filter(pk__in=slots[start:start + 500]).update(beat_at=now)
    except BaseException:
        connection.close()  # it may be broken: the next refresh opens a new one
        raise


async def _keep(loop: asyncio.AbstractEventLoop) -> None:
    """Every ``REFRESH_SECONDS``, one ``UPDATE`` refreshes the slots of this loop's streams."""
    while _HELD.get(loop):
        await asyncio.sleep(REFRESH_SECONDS)
        slots = sorted(_HELD.get(loop, ()))
        if not slots:
            break
        try:
            await sync_to_async(_refresh, thread_sensitive=False)(slots)
        except Exception:
            log.warning("Could not refresh the stream slots; trying again.", exc_info=True)
