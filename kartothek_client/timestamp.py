"""The server's signed timestamp (``/api/timestamp``): which release of every pack is the newest.

A release's signature says its bytes are genuine, not that it is the newest one: without more, a
mirror could hand a client that holds nothing yet an old genuine release (and an old ``latest``).
The timestamp, after TUF's timestamp role, is a dated list of the newest release of every game
and edition, signed by the server's current key. A client accepts one only if

- its signature verifies under a key the client trusts (pinned, passed in, or endorsed by one);
- it is the timestamp (its ``type``), well formed, every release named once;
- it has not expired, was issued at most :data:`MAX_AGE` ago whatever it says of its expiry,
  and not in the future (beyond :data:`SKEW` of clock difference);
- it is not older than the timestamp the client kept from its last update (``issued_at``), and
  names no pack at an older release than that one did (a replayed timestamp is refused).

The client then refuses a release older than the one the timestamp lists, and keeps the
timestamp (the envelope as served) as ``timestamp.json`` in its cache folder.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from kartothek_client.errors import VerificationError

TYPE = "kartothek-timestamp-v1"
TIMESTAMP_FILE = "timestamp.json"
MAX_AGE = timedelta(days=7)  # a hard maximum, whatever the timestamp says of its expiry
SKEW = timedelta(minutes=5)  # how far the client's clock may be behind the server's
MAX_BYTES = 4 * 1024 * 1024  # a timestamp lists one line per pack: far below this

# (key id) -> base64 public key if the client trusts that key, else None
KeyLookup = Callable[[str], str | None]


class TimestampError(VerificationError):
    """The timestamp is forged, damaged, expired or older than the one the client holds."""


@dataclass(frozen=True)
class Timestamp:
    issued_at: datetime
    expires: datetime
    key_id: str
    releases: dict[tuple[str, str], tuple[int, str]]  # (game, edition) -> (version, sha256)
    envelope: bytes  # as served: what the cache keeps

    def newest(self, game: str, language: str) -> tuple[int, str] | None:
        """(version, sha256) of the newest release of the pack, or None: none published."""
        return self.releases.get((game, language))


def _moment(value: Any, name: str) -> datetime:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", value):
        raise TimestampError(f"The timestamp's {name} is not a UTC time (YYYY-MM-DDTHH:MM:SSZ).")
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise TimestampError(f"The timestamp's {name} {value!r} is no date.") from None


def _releases(value: Any) -> dict[tuple[str, str], tuple[int, str]]:
    if not isinstance(value, list):
        raise TimestampError("The timestamp lists no releases.")
    found: dict[tuple[str, str], tuple[int, str]] = {}
    for entry in value:
        if not isinstance(entry, dict):
            raise TimestampError("A release in the timestamp is not an object.")
        game, language = entry.get("game"), entry.get("language")
        version, digest = entry.get("version"), entry.get("sha256")
        if (not isinstance(game, str) or not isinstance(language, str)
                or not isinstance(version, int) or isinstance(version, bool) or version < 1
                or not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest)):
            raise TimestampError(f"A release in the timestamp is malformed: {str(entry)[:200]}")
        if (game, language) in found:
            raise TimestampError(f"The timestamp names {game} ({language}) twice.")
        found[game, language] = (version, digest)
    return found


def parse_timestamp(envelope: bytes, key_for: KeyLookup) -> Timestamp:
    """The timestamp in an envelope whose signature verifies under a trusted key; its dates
    are not checked here (see :func:`verify_timestamp`)."""
    if len(envelope) > MAX_BYTES:
        raise TimestampError(f"The timestamp has {len(envelope)} bytes, more than {MAX_BYTES}.")
    try:
        outer = json.loads(envelope)
    except (ValueError, RecursionError):
        raise TimestampError("The timestamp is not JSON.") from None
    if not isinstance(outer, dict) or not all(
            isinstance(outer.get(name), str) for name in ("signed", "key_id", "signature")):
        raise TimestampError("The timestamp is not a signed envelope (signed, key_id, signature).")
    if outer.get("algorithm", "ed25519") != "ed25519":
        raise TimestampError(f"The timestamp is signed with {str(outer['algorithm'])[:40]!r}, "
                             "not ed25519.")
    key_id = outer["key_id"]
    try:
        signed = outer["signed"].encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (\ud800) is no signed text
        raise TimestampError("The signed timestamp is not UTF-8 text.") from None
    public = key_for(key_id)
    if public is None:
        raise TimestampError(f"The timestamp is signed with key {key_id[:40]}, which this client "
                             "does not trust, and no key it trusts endorsed it.")
    try:
        Ed25519PublicKey.from_public_bytes(base64.b64decode(public)).verify(
            base64.b64decode(outer["signature"], validate=True), signed)
    except (InvalidSignature, ValueError, binascii.Error):
        raise TimestampError(f"The timestamp's signature does not verify under key {key_id}: "
                             "it is forged or damaged.") from None
    try:
        body = json.loads(signed)
    except (ValueError, RecursionError):
        raise TimestampError("The signed timestamp is not JSON.") from None
    if not isinstance(body, dict) or body.get("type") != TYPE:
        raise TimestampError(f"The signed bytes are not a timestamp (type is not {TYPE}).")
    issued, expires = _moment(body.get("issued_at"), "issued_at"), _moment(body.get("expires"),
                                                                           "expires")
    if expires <= issued:
        raise TimestampError("The timestamp expires before it was issued.")
    return Timestamp(issued, expires, key_id, _releases(body.get("releases")), envelope)


def verify_timestamp(envelope: bytes, key_for: KeyLookup, now: datetime | None = None) -> Timestamp:
    """A timestamp as served, checked: signature, form, and fresh at ``now``."""
    stamp = parse_timestamp(envelope, key_for)
    now = now or datetime.now(UTC)
    if stamp.issued_at > now + SKEW:
        raise TimestampError(f"The timestamp was issued at {stamp.issued_at:%Y-%m-%d %H:%M} UTC, "
                             "in the future: the client's or the server's clock is wrong.")
    if now > stamp.expires:
        raise TimestampError(f"The timestamp expired at {stamp.expires:%Y-%m-%d %H:%M} UTC: a "
                             "mirror may be holding back newer releases.")
    if now - stamp.issued_at > MAX_AGE:
        raise TimestampError(f"The timestamp was issued at {stamp.issued_at:%Y-%m-%d %H:%M} UTC, "
                             f"more than {MAX_AGE.days} days ago.")
    return stamp


def check_not_older(new: Timestamp, held: Timestamp | None) -> None:
    """A timestamp older than the one the client holds, or one that names a pack at an older
    release than it did, is a replay: refused."""
    if held is None:
        return
    if new.issued_at < held.issued_at:
        raise TimestampError(f"The timestamp was issued at {new.issued_at:%Y-%m-%d %H:%M} UTC, "
                             f"before the one this client holds ({held.issued_at:%Y-%m-%d %H:%M}"
                             " UTC): a replayed older timestamp is refused.")
    for (game, language), (version, _) in sorted(held.releases.items()):
        listed = new.newest(game, language)
        if listed is None or listed[0] < version:
            raise TimestampError(
                f"The timestamp names {game} ({language}) at release "
                f"{'none' if listed is None else listed[0]}, but the one this client holds "
                f"named release {version}: a replayed older timestamp is refused.")


def read_cached(path: Path, key_for: KeyLookup) -> Timestamp | None:
    """The timestamp the client kept, if it is there and its signature still verifies (its
    dates are not checked: it is only the mark a new one must not fall behind)."""
    try:
        envelope = path.read_bytes()
    except OSError:
        return None
    try:
        return parse_timestamp(envelope, key_for)
    except TimestampError:
        return None  # damaged on disk: the next verified timestamp replaces it
