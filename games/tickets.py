"""Stream tickets: how a browser's EventSource on another origin opens a seat's event stream.

An EventSource sends no ``Authorization`` header, and the seat cookie belongs to this site, so
a page elsewhere would have to put the seat's token into the stream's URL, where access logs,
proxies and browser histories keep it for the token's whole life. Instead it trades the token
(``POST rooms/CODE/stream-tickets``, Bearer) for a ticket that opens one stream, once, within
``TICKET_SECONDS``: ``GET rooms/CODE/events?ticket=…``.

Tickets are rows in the database, so a ticket made through one server process opens a stream
on any other. Only the ticket's sha256 is kept; redeeming it is one ``UPDATE … WHERE used is
false AND not expired``, which the database lets succeed once however many servers try at the
same moment. Expired tickets are deleted whenever a new one is made and by ``expire_rooms``.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta

from django.utils import timezone

from games.errors import NotASeat
from games.lookup import hash_token, normal_code
from games.models import Room, StreamTicket

TICKET_SECONDS = 30
# What issue() makes (token_urlsafe(24): 32 characters); anything else is refused unread.
_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,128}")


def issue(room: Room, token_hash: str) -> str:
    """A new ticket for the seat whose token has this sha256 (the caller proved it)."""
    now = timezone.now()
    forget_expired(now)
    ticket = secrets.token_urlsafe(24)
    StreamTicket.objects.create(room=room, ticket_hash=hash_token(ticket), token_hash=token_hash,
                                expires_at=now + timedelta(seconds=TICKET_SECONDS))
    return ticket


def redeem(code: str, ticket: str) -> str:
    """The sha256 of the seat token a ticket stands for, marking the ticket used; ``NotASeat``
    (403) for a ticket that is malformed, unknown, used, expired or of another room (one
    message for all: the answer tells a guesser nothing)."""
    refused = NotASeat("This stream ticket is unknown, used, expired or for another room; ask "
                       "for a new one (POST /api/play/rooms/CODE/stream-tickets).")
    if not _SHAPE.fullmatch(ticket):
        raise refused
    row = (StreamTicket.objects.order_by()
           .filter(ticket_hash=hash_token(ticket), room__code=normal_code(code))
           .values_list("pk", "token_hash").first())
    if row is None:
        raise refused
    if not StreamTicket.objects.filter(pk=row[0], used=False,
                                       expires_at__gt=timezone.now()).update(used=True):
        raise refused
    return row[1]


def forget_expired(now: datetime | None = None) -> int:
    """Delete the tickets past their time (used or not)."""
    deleted, _by_model = StreamTicket.objects.filter(expires_at__lt=now or timezone.now()).delete()
    return deleted
