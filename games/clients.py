"""Which client a seat plays from, so that the card statistics (games/stats.py) count a game
only when its moving seats come from different clients.

A client is two things, each kept on the seat as a keyed hash (HMAC with the SECRET_KEY:
neither the address nor the cookie is stored, and a hash of an IPv4 address cannot be looked
up in a table of all 2³² of them without the key):

- ``address``: the network the request came from: the client's IPv4 address, or the /64
  network of an IPv6 one (one household or one attacker holds a whole /64); the address the
  outermost trusted proxy saw (``common.security.client_ip``), never the forgeable rest.
- ``device``: the browser's device cookie ``kt_device``: a random id, HttpOnly and
  SameSite=Lax, set by every play page for a browser that has none and kept for 400 days. It
  is never shown on a page or sent in an answer; a client of the API without cookies has none.

Two seats come from different clients when their addresses differ (both known) and they do not
share a device cookie. Only the address is hard for one person to change; cookies are the
client's own to clear or to invent, so they can only split a client further, never join two
(docs/play.md says what that means for a household behind one address).

A seat records the client it joined from and, as its moves come in, the client of its latest
move (``Seat.client_hash`` and ``Seat.device_hash``; written only when they change).
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from dataclasses import dataclass

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import patch_cache_control
from django.utils.crypto import salted_hmac

from common.security import client_ip

DEVICE_COOKIE = "kt_device"
DEVICE_AGE = 400 * 24 * 3600  # the longest a browser keeps a cookie
_DEVICE_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


@dataclass(frozen=True)
class PlayClient:
    """The hashes of a request's address (its network) and device cookie ("" when unknown)."""

    address: str = ""
    device: str = ""


NOBODY = PlayClient()


def network(address: str) -> str:
    """The network an address stands for: an IPv4 address itself, an IPv6 address's /64
    (an IPv4-mapped one as IPv4); "" for anything that is not an address."""
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return ""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _hash(kind: str, value: str) -> str:
    if not value:
        return ""
    return salted_hmac(f"kartothek.games.clients.{kind}", value, algorithm="sha256").hexdigest()


def device_id(request: HttpRequest) -> str:
    """The browser's device id, or "" (none, or not one this site could have set)."""
    value = request.COOKIES.get(DEVICE_COOKIE, "")
    return value if _DEVICE_ID.match(value) else ""


def client_of(request: HttpRequest) -> PlayClient:
    return PlayClient(address=_hash("address", network(client_ip(request))),
                      device=_hash("device", device_id(request)))


def give_device(request: HttpRequest, response: HttpResponseBase) -> None:
    """A play page gives a browser without one its device cookie (never in an answer a shared
    cache may keep: it would hand one id to many browsers)."""
    if device_id(request) or DEVICE_COOKIE in response.cookies:
        return
    if "public" in response.get("Cache-Control", ""):
        return
    response.set_cookie(DEVICE_COOKIE, secrets.token_urlsafe(18), max_age=DEVICE_AGE,
                        httponly=True, samesite="Lax", secure=request.is_secure())
    patch_cache_control(response, private=True)


def different(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether two seats' clients, each (address hash, device hash), are different clients:
    known and different addresses, and not one device cookie."""
    (address_a, device_a), (address_b, device_b) = a, b
    if not address_a or not address_b or address_a == address_b:
        return False
    return not (device_a and device_a == device_b)
