"""Signing keys and their rotation, as the server's ``/api/keys`` lists them.

When the server retires key K1 in favour of K2, K1 signs a statement (v2, the bytes of
:func:`endorsement_statement`) naming its one successor K2, the time of the retirement and, for
each pack ("game/language"), the last release K1 signed. The list carries the statement:
K1's entry has ``retired_at`` and ``last_releases``, K2's entry ``endorsed_by`` (K1's id) and
``endorsement`` (K1's signature). A client holds to these rules:

- it follows a key only through statements from a key it trusts (:func:`endorsed_chain`);
- a key endorses ONE successor: once a client has kept K1's statement, a statement of K1 naming
  another key (a thief's K3) is refused, and so is a list in which K1 names two;
- a retired key is held to its releases: a release it signed is accepted only up to the last
  version its statement lists for that pack (:meth:`Retirement.refusal`);
- meeting the server for the first time, it pins the current key only; the retired keys it keeps
  for the releases they signed, each held to its statement (:func:`first_use`).

No Django: the standard library and ``cryptography``; exports.signing makes the same bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ENDORSEMENT_CONTEXT = "kartothek-signing-key-endorsement-v2"
MAX_KEYS = 64  # a key list longer than this is refused whole (a rotation a year: decades)
_RETIRED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_PACK = re.compile(r"[a-z]+/[A-Za-z-]+")


def key_id_of(public_raw: bytes) -> str:
    return hashlib.sha256(public_raw).hexdigest()[:16]


def endorsement_statement(public_raw: bytes, *, retired_key_id: str, retired_at: str,
                          last_releases: Mapping[str, int]) -> bytes:
    """What a retiring key signs to endorse its successor (the bytes exports.signing makes)."""
    lines = [ENDORSEMENT_CONTEXT, f"retired_key_id={retired_key_id}", f"retired_at={retired_at}",
             f"key_id={key_id_of(public_raw)}",
             f"public_key={base64.b64encode(public_raw).decode('ascii')}"]
    lines += [f"last_release={pack}={last_releases[pack]}" for pack in sorted(last_releases)]
    return ("\n".join(lines) + "\n").encode("ascii")


@dataclass(frozen=True)
class Retirement:
    """What a retired key's statement says: who follows it, when, and its last releases."""

    public_key: str  # base64 of the retired key's raw public key
    successor: str  # the id of the one key it endorsed
    retired_at: str  # "2026-12-05T07:10:00Z"
    last_releases: Mapping[str, int]  # {"game/language": the last version it signed}

    def refusal(self, key_id: str, game: str, language: str, version: int) -> str | None:
        """Why a release signed by this retired key is refused, or None when it may stand."""
        last = self.last_releases.get(f"{game}/{language}")
        if last is not None and version <= last:
            return None
        return (f"Release {version} of {game} ({language}) is signed with key {key_id}, retired "
                f"at {self.retired_at} for key {self.successor}; the last release it signed of "
                f"this pack is {last if last is not None else 'none'}: refused.")

    def as_json(self) -> dict[str, Any]:
        return {"public_key": self.public_key, "successor": self.successor,
                "retired_at": self.retired_at, "last_releases": dict(self.last_releases)}

    @classmethod
    def from_json(cls, found: Any) -> Retirement:
        """A kept retirement (ValueError when it is damaged)."""
        if not isinstance(found, dict):
            raise ValueError("not an object")
        releases = found.get("last_releases")
        if not (isinstance(found.get("public_key"), str) and isinstance(found.get("successor"), str)
                and isinstance(found.get("retired_at"), str) and isinstance(releases, dict)
                and all(type(v) is int for v in releases.values())):
            raise ValueError("not a retirement")
        return cls(found["public_key"], found["successor"], found["retired_at"], dict(releases))


def _public_raw(entry: dict[str, Any]) -> bytes | None:
    """The entry's raw public key when its id is that key's, else None."""
    try:
        raw = base64.b64decode(str(entry.get("public_key")), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 and key_id_of(raw) == entry.get("id") else None


def _facts(entry: dict[str, Any]) -> tuple[str, dict[str, int]] | None:
    """A retired entry's ``retired_at`` and ``last_releases``, if well-formed."""
    moment, releases = entry.get("retired_at"), entry.get("last_releases")
    if not (isinstance(moment, str) and _RETIRED_AT.fullmatch(moment)
            and isinstance(releases, dict) and len(releases) <= 10_000):
        return None
    if not all(isinstance(p, str) and _PACK.fullmatch(p) and type(v) is int and v >= 0
               for p, v in releases.items()):
        return None
    return moment, dict(releases)


def _entries(listed: Any) -> dict[str, dict[str, Any]]:
    """The listed keys by id, each well-formed and under its public key's id; an id listed
    twice is ambiguous and left out. More than MAX_KEYS keys: none."""
    seen: dict[str, list[dict[str, Any]]] = {}
    if not isinstance(listed, list) or len(listed) > MAX_KEYS:
        return {}  # a list no server makes: every key is checked against every other
    for entry in listed:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and _public_raw(entry):
            seen.setdefault(entry["id"], []).append(entry)
    return {key_id: found[0] for key_id, found in seen.items() if len(found) == 1}


def _statement_of(entries: dict[str, dict[str, Any]], endorser_public: str,
                  entry: dict[str, Any]) -> Retirement | None:
    """The endorser's retirement in favour of ``entry``, if its signature verifies."""
    endorser = entries.get(str(entry.get("endorsed_by")))
    facts = _facts(endorser) if endorser is not None else None
    raw = _public_raw(entry)
    if endorser is None or facts is None or raw is None:
        return None
    statement = endorsement_statement(raw, retired_key_id=endorser["id"], retired_at=facts[0],
                                      last_releases=facts[1])
    try:
        Ed25519PublicKey.from_public_bytes(base64.b64decode(endorser_public)).verify(
            base64.b64decode(str(entry.get("endorsement")), validate=True), statement)
    except (InvalidSignature, ValueError, binascii.Error):
        return None
    return Retirement(endorser_public, entry["id"], facts[0], facts[1])


def endorsed_chain(trusted: Mapping[str, str], retired: Mapping[str, Retirement],
                   listed: Any) -> tuple[dict[str, str], dict[str, Retirement]]:
    """The keys of a served key list that a chain of v2 statements links to a key the client
    trusts (``trusted``: {id: base64 public key}; ``retired``: the retirements it kept), and the
    retirements those statements make, also between keys it trusts already: (new keys, new
    retirements). A key that already has a successor endorses no other, and a key naming two
    successors in the list endorses none."""
    entries = _entries(listed)
    known = {**{k: r.public_key for k, r in retired.items()}, **trusted}
    successor_of: dict[str, str | None] = {k: r.successor for k, r in retired.items()}
    keys: dict[str, str] = {}
    retirements: dict[str, Retirement] = {}
    progress = True
    while progress:
        progress = False
        for key_id, entry in entries.items():
            endorser = entry.get("endorsed_by")
            if not isinstance(endorser, str) or endorser not in known or endorser in successor_of:
                continue
            statement = _statement_of(entries, known[endorser], entry)
            if statement is None:
                continue
            rivals = [other for other_id, other in entries.items() if other_id != key_id
                      and other.get("endorsed_by") == endorser
                      and _statement_of(entries, known[endorser], other) is not None]
            successor_of[endorser] = None if rivals else key_id  # two: the key is not followed
            if rivals:
                continue
            retirements[endorser] = statement
            if key_id not in known:
                known[key_id] = keys[key_id] = entry["public_key"]
                progress = True
    return keys, retirements


def first_use(listed: Any) -> tuple[dict[str, str], dict[str, Retirement]]:
    """What a client meeting the server for the first time keeps: the current key (trusted for
    new releases) and each retired key whose own statement names its successor in the list
    (kept for the releases it signed, held to them). A listed key neither current nor retired
    by a valid statement is not kept."""
    entries = _entries(listed)
    retirements: dict[str, Retirement] = {}
    named: dict[str, int] = {}
    for entry in entries.values():
        endorser = entries.get(str(entry.get("endorsed_by")))
        statement = None if endorser is None else _statement_of(
            entries, endorser["public_key"], entry)
        if statement is not None and endorser is not None:
            named[endorser["id"]] = named.get(endorser["id"], 0) + 1
            retirements[endorser["id"]] = statement
    retirements = {k: r for k, r in retirements.items() if named[k] == 1}
    keys = {k: e["public_key"] for k, e in entries.items()
            if e.get("status") == "current" and k not in named}
    return keys, retirements
