"""The signed timestamp (``GET /api/timestamp``): a dated list of the newest release of every
pack, signed with the current signing key, after TUF's timestamp role.

A release's own signature says that its bytes are genuine, not that it is the newest: a mirror
could serve an old genuine release (and an old ``latest``) to a client that holds nothing yet,
and every check on the release would pass. The timestamp closes that: it names, for every game
and edition, the newest release's version and sha256, with the time it was issued and when it
expires, and a client refuses a release older than a timestamp it verified (and a timestamp
older than the one it holds). A mirror can then hold a client back by one timestamp's life at
most (:data:`LIFETIME`, plus the slot it was issued in), never longer.

The signed bytes are the canonical JSON of :func:`timestamp_body`, signed exactly as a release
is (Ed25519 over the exact bytes, the key id of :mod:`exports.signing`). They travel as a JSON
string inside the envelope, so a client verifies the very bytes that were signed. ``issued_at``
is the start of the current 2.4-hour slot (ten a day, from midnight UTC): within a slot and
between two publishes every server answers the same bytes (Ed25519 signatures are
deterministic), so the answer caches like any other; a publish shows in the next answer.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from exports.models import Release
from exports.serialise import canonical
from exports.signing import ALGORITHM, signing_key

TYPE = "kartothek-timestamp-v1"  # the body names what it is: no other signed bytes can pass as one
SLOT = timedelta(hours=2.4)
LIFETIME = timedelta(days=1)


def slot_start(now: datetime) -> datetime:
    """The start of the 2.4-hour slot that holds ``now`` (slots count from the epoch, so ten
    a day, the first at midnight UTC)."""
    seconds = int(now.timestamp())
    step = int(SLOT.total_seconds())
    return datetime.fromtimestamp(seconds - seconds % step, tz=UTC)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def newest_releases() -> list[dict[str, object]]:
    """The newest release of every game and edition that has one, in one query, sorted."""
    newest = Release.objects.filter(game=OuterRef("game"), language=OuterRef("language")).order_by(
        "-version").values("version")[:1]
    rows = (Release.objects.filter(version=Subquery(newest))
            .order_by("game", "language").values_list("game", "language", "version", "sha256"))
    return [{"game": game, "language": language, "version": version, "sha256": digest}
            for game, language, version, digest in rows]


def timestamp_body(now: datetime | None = None) -> bytes:
    """The bytes the timestamp signs: its type, ``issued_at`` (the slot's start), ``expires``
    (a day later) and the newest releases."""
    issued = slot_start(now or timezone.now())
    return canonical({"type": TYPE, "issued_at": _iso(issued), "expires": _iso(issued + LIFETIME),
                      "releases": newest_releases()})


def signed_timestamp(now: datetime | None = None) -> dict[str, str] | None:
    """The envelope ``/api/timestamp`` serves, or None when the server has no signing key."""
    key = signing_key()
    if key is None:
        return None
    body = timestamp_body(now)
    return {"signed": body.decode("utf-8"), "algorithm": ALGORITHM, "key_id": key.key_id,
            "signature": base64.b64encode(key.sign(body)).decode("ascii")}
