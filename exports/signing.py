"""Ed25519 signatures of releases, so a client can check a pack it got from a mirror or CDN.

The private key comes from ``KARTOTHEK_SIGNING_KEY`` (environment or settings): the base64
of a raw 32-byte seed, or a PEM (PKCS#8) private key. With DEBUG on, or when the settings
say ``KARTOTHEK_SIGNING_KEY_GENERATE = True`` (the test settings), a missing key is generated
once into ``var/signing-key.pem`` (mode 0600) and reused. With DEBUG off and no key, releases
are still published, without a signature, and the system check ``exports.W001`` warns.

A signature covers the exact bytes of the release file (what ``/api/packs/G/L/N.json``
serves uncompressed). It is written once at publish into ``ReleaseSignature`` and never
changed; ``manage.py sign_releases`` signs releases published before a key existed.
The key id is the first 16 hex digits of the sha256 of the raw 32-byte public key.

Rotation: a client that pinned a key accepts a new one only when a key it trusts endorsed
it, i.e. signed :func:`endorsement_statement` (v2): the one successor of the retired key, the
time of the retirement and, for each pack (game/language), the last release the retired key
signed. A retired key is held to those releases: clients accept a release it signed only up to
that version, and refuse a second statement of the same key naming another successor (a leaked
key cannot endorse a key of the thief's). ``manage.py rotate_signing_key`` makes a new key and
the statement by the current one; the server is then configured with ``KARTOTHEK_SIGNING_KEY``
(the new private key) and ``KARTOTHEK_PREVIOUS_SIGNING_KEYS``: the retired keys, oldest first,
comma- or whitespace-separated, each as ``PUBLIC:ENDORSEMENT:RETIRED_AT:LAST_RELEASES``:

- ``PUBLIC``: base64 of the retired key's raw 32-byte public key;
- ``ENDORSEMENT``: base64 of its 64-byte signature of the statement naming the key after it
  in the chain (the next retired key, or for the last one the current key);
- ``RETIRED_AT``: the retirement time, UTC, ISO 8601 basic format ``20261205T071000Z``;
- ``LAST_RELEASES``: ``GAME/LANGUAGE=VERSION`` joined by ``+`` (``slogan/de=3+sauschwer/de=7``),
  or ``-`` when the key signed no release.

An entry in the v1 format ``PUBLIC:ENDORSEMENT`` is refused by the system check
``exports.E002`` (``manage.py rotate_signing_key --restate`` makes the v2 line).
``/api/keys`` lists the whole chain, so releases signed by a retired key (up to its last
releases) still verify and a client can walk from any key it pinned to the current one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from django.conf import settings
from django.core import checks

ALGORITHM = "ed25519"
KEY_FILE_NAME = "signing-key.pem"


class SigningKeyError(Exception):
    """The configured signing key cannot be read; the message says why."""


@dataclass(frozen=True)
class SigningKey:
    private: Ed25519PrivateKey
    source: str  # "environment", "settings" or the generated file's path

    @property
    def public_raw(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @property
    def key_id(self) -> str:
        return key_id_of(self.public_raw)

    @property
    def public_pem(self) -> str:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode("ascii")

    def sign(self, data: bytes) -> bytes:
        return self.private.sign(data)


def key_id_of(public_raw: bytes) -> str:
    return hashlib.sha256(public_raw).hexdigest()[:16]


ENDORSEMENT_CONTEXT = "kartothek-signing-key-endorsement-v2"
PACK = re.compile(r"[a-z]+/[A-Za-z-]+")


def endorsement_statement(public_raw: bytes, *, retired_key_id: str, retired_at: str,
                          last_releases: Mapping[str, int]) -> bytes:
    """The exact bytes a retiring key signs to endorse its one successor: a fixed context (so
    no other signature of the old key can serve as one), the retired key's id, the retirement
    time (``2026-12-05T07:10:00Z``), the successor's id and public key, then one line per pack
    (sorted) with the last release the retired key signed. kartothek_client makes the same."""
    lines = [ENDORSEMENT_CONTEXT, f"retired_key_id={retired_key_id}", f"retired_at={retired_at}",
             f"key_id={key_id_of(public_raw)}",
             f"public_key={base64.b64encode(public_raw).decode('ascii')}"]
    lines += [f"last_release={pack}={last_releases[pack]}" for pack in sorted(last_releases)]
    return ("\n".join(lines) + "\n").encode("ascii")


def parse_private_key(text: str) -> Ed25519PrivateKey:
    """A private key from base64 of a raw 32-byte seed, or from a PEM private key."""
    text = text.strip()
    if text.lower().startswith("change-me"):
        raise SigningKeyError("KARTOTHEK_SIGNING_KEY is still the placeholder from "
                              "deploy/production.env.example: make a key of your own "
                              "('python manage.py rotate_signing_key --first').")
    if text.startswith("-----BEGIN"):
        try:
            key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
        except (ValueError, TypeError) as exc:
            raise SigningKeyError(f"KARTOTHEK_SIGNING_KEY is not a readable PEM key ({exc}).") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise SigningKeyError("KARTOTHEK_SIGNING_KEY is a PEM key, but not an Ed25519 one.")
        return key
    try:
        seed = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise SigningKeyError("KARTOTHEK_SIGNING_KEY is neither PEM nor base64.") from None
    if len(seed) != 32:
        raise SigningKeyError(
            f"KARTOTHEK_SIGNING_KEY decodes to {len(seed)} bytes; an Ed25519 seed has 32.")
    return Ed25519PrivateKey.from_private_bytes(seed)


def _generated_key() -> SigningKey:
    path = Path(settings.VAR_DIR) / KEY_FILE_NAME
    if path.exists():
        return SigningKey(parse_private_key(path.read_text(encoding="ascii")), str(path))
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_EXCL: two processes starting together keep one key, the loser reads the winner's
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return SigningKey(parse_private_key(path.read_text(encoding="ascii")), str(path))
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    return SigningKey(private, str(path))


@cache
def signing_key() -> SigningKey | None:
    """The key releases are signed with, or None (DEBUG off and none configured)."""
    configured = os.environ.get("KARTOTHEK_SIGNING_KEY", "")
    source = "environment"
    if not configured:
        configured = getattr(settings, "KARTOTHEK_SIGNING_KEY", "") or ""
        source = "settings"
    if configured:
        return SigningKey(parse_private_key(configured), source)
    if settings.DEBUG or getattr(settings, "KARTOTHEK_SIGNING_KEY_GENERATE", False):
        return _generated_key()
    return None


class OldFormatError(SigningKeyError):
    """A KARTOTHEK_PREVIOUS_SIGNING_KEYS entry in the v1 format, which clients now refuse."""


@dataclass(frozen=True)
class RetiredKey:
    public_raw: bytes
    endorsement: bytes  # this key's signature of the statement naming the next key in the chain
    retired_at: str  # "2026-12-05T07:10:00Z"
    last_releases: tuple[tuple[str, int], ...]  # ("game/language", version), sorted

    @property
    def key_id(self) -> str:
        return key_id_of(self.public_raw)

    def statement(self, successor_raw: bytes) -> bytes:
        return endorsement_statement(successor_raw, retired_key_id=self.key_id,
                                     retired_at=self.retired_at,
                                     last_releases=dict(self.last_releases))

    def setting(self) -> str:
        """This key's ``KARTOTHEK_PREVIOUS_SIGNING_KEYS`` entry."""
        releases = "+".join(f"{pack}={version}" for pack, version in self.last_releases) or "-"
        return (f"{base64.b64encode(self.public_raw).decode()}:"
                f"{base64.b64encode(self.endorsement).decode()}:"
                f"{self.retired_at.replace('-', '').replace(':', '')}:{releases}")


def format_retired_at(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def previous_entries(text: str) -> list[str]:
    return text.replace(",", " ").split()


def parse_previous_keys(text: str) -> list[RetiredKey]:
    """``KARTOTHEK_PREVIOUS_SIGNING_KEYS``: ``PUBLIC:ENDORSEMENT:RETIRED_AT:LAST_RELEASES``
    entries, oldest first (the module's docstring gives the encoding)."""
    retired = []
    for number, entry in enumerate(previous_entries(text), start=1):
        parts = entry.split(":")
        if len(parts) == 2:
            raise OldFormatError(
                f"KARTOTHEK_PREVIOUS_SIGNING_KEYS entry {number} is in the old format "
                "PUBLIC:ENDORSEMENT (a v1 endorsement, which clients now refuse: it does not "
                "say when the key retired nor which releases it signed). Make the new line "
                "with 'python manage.py rotate_signing_key --restate OLD_KEY_FILE…' (the "
                "retired keys' private keys; a retired key whose private key is gone must be "
                "dropped from the list).")
        if len(parts) != 4:
            raise SigningKeyError(f"KARTOTHEK_PREVIOUS_SIGNING_KEYS entry {number} is not "
                                  "PUBLIC:ENDORSEMENT:RETIRED_AT:LAST_RELEASES.")
        public_b64, endorsement_b64, moment, releases = parts
        try:
            public_raw = base64.b64decode(public_b64, validate=True)
            endorsement = base64.b64decode(endorsement_b64, validate=True)
            retired_at = format_retired_at(datetime.strptime(moment, "%Y%m%dT%H%M%SZ").replace(
                tzinfo=UTC))
        except (binascii.Error, ValueError):
            raise SigningKeyError(f"KARTOTHEK_PREVIOUS_SIGNING_KEYS entry {number} is not "
                                  "PUBLIC:ENDORSEMENT:RETIRED_AT:LAST_RELEASES (base64, "
                                  "base64, 20261205T071000Z).") from None
        if len(public_raw) != 32 or len(endorsement) != 64:
            raise SigningKeyError(f"KARTOTHEK_PREVIOUS_SIGNING_KEYS entry {number}: a public "
                                  "key has 32 bytes and an endorsement 64.")
        last: dict[str, int] = {}
        for item in ([] if releases == "-" else releases.split("+")):
            pack, _, version = item.partition("=")
            if not PACK.fullmatch(pack) or not version.isdigit() or pack in last:
                raise SigningKeyError(
                    f"KARTOTHEK_PREVIOUS_SIGNING_KEYS entry {number}: '{item}' is not "
                    "GAME/LANGUAGE=VERSION (LAST_RELEASES joins them with '+', '-' for none).")
            last[pack] = int(version)
        retired.append(RetiredKey(public_raw, endorsement, retired_at, tuple(sorted(last.items()))))
    return retired


def configured_previous_keys() -> str:
    return (os.environ.get("KARTOTHEK_PREVIOUS_SIGNING_KEYS", "")
            or getattr(settings, "KARTOTHEK_PREVIOUS_SIGNING_KEYS", "") or "")


def previous_keys() -> tuple[RetiredKey, ...]:
    """The retired keys, oldest first, each endorsing the next (checked: a broken chain is an
    error, so the server never serves a list clients would refuse)."""
    retired = parse_previous_keys(configured_previous_keys())
    if not retired:
        return ()
    if len(retired) >= 64:  # kartothek_client.keys.MAX_KEYS: clients refuse a longer list
        raise SigningKeyError("KARTOTHEK_PREVIOUS_SIGNING_KEYS lists 64 keys or more; clients "
                              "refuse a key list that long: drop the oldest.")
    current = signing_key()
    if current is None:
        raise SigningKeyError("KARTOTHEK_PREVIOUS_SIGNING_KEYS is set but KARTOTHEK_SIGNING_KEY "
                              "is not: the chain must end at the current key.")
    following = [r.public_raw for r in retired[1:]] + [current.public_raw]
    if len({r.public_raw for r in retired} | {current.public_raw}) != len(retired) + 1:
        raise SigningKeyError("KARTOTHEK_PREVIOUS_SIGNING_KEYS names a key twice (or the "
                              "current key): each key retires once, for one successor.")
    for number, (old, new) in enumerate(zip(retired, following, strict=True), start=1):
        try:
            Ed25519PublicKey.from_public_bytes(old.public_raw).verify(
                old.endorsement, old.statement(new))
        except (InvalidSignature, ValueError):
            raise SigningKeyError(
                f"KARTOTHEK_PREVIOUS_SIGNING_KEYS entry {number} (key {old.key_id}): its "
                f"endorsement does not verify for key {key_id_of(new)}, the next in the chain; "
                "clients would refuse the new key.") from None
    return tuple(retired)


def _pem_of(public_raw: bytes) -> str:
    return Ed25519PublicKey.from_public_bytes(public_raw).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def public_keys() -> list[dict[str, object]]:
    """The signed key list, oldest first: every retired key (releases they signed up to its
    ``last_releases`` still verify) and the current one last. A retired key carries
    ``retired_at`` and ``last_releases`` ({"game/language": version}); the key after it
    carries ``endorsed_by`` (the retired key's id) and ``endorsement``: the retired key's
    Ed25519 signature of :func:`endorsement_statement` of this key with those two facts, so a
    client walks from a key it pinned and holds each retired key to its releases."""
    key = signing_key()
    if key is None:
        return []
    retired = previous_keys()  # not cached: a few signatures, and /api/keys is cached 1 h
    chain = [r.public_raw for r in retired] + [key.public_raw]
    listed: list[dict[str, object]] = []
    for index, public_raw in enumerate(chain):
        entry: dict[str, object] = {
            "id": key_id_of(public_raw), "algorithm": ALGORITHM,
            "public_key": base64.b64encode(public_raw).decode("ascii"), "pem": _pem_of(public_raw),
            "status": "current" if index == len(chain) - 1 else "retired"}
        if index > 0:
            before = retired[index - 1]
            entry["endorsed_by"] = before.key_id
            entry["endorsement"] = base64.b64encode(before.endorsement).decode("ascii")
        if index < len(retired):
            entry["retired_at"] = retired[index].retired_at
            entry["last_releases"] = dict(retired[index].last_releases)
        listed.append(entry)
    return listed


def verify(public_key_b64: str, data: bytes, signature_b64: str) -> bool:
    """Whether signature_b64 is a valid Ed25519 signature of data under the public key."""
    try:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key_b64))
        public.verify(base64.b64decode(signature_b64), data)
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True


def sign_release(release) -> object | None:  # type: ignore[no-untyped-def]
    """Store the signature of a release unless it has one; the ReleaseSignature or None."""
    from exports.models import ReleaseSignature

    key = signing_key()
    if key is None:
        return None
    existing = ReleaseSignature.objects.filter(release=release).first()
    if existing is not None:
        return existing
    signature = base64.b64encode(key.sign(bytes(release.data))).decode("ascii")
    return ReleaseSignature.objects.create(release=release, key_id=key.key_id,
                                           signature=signature)


@checks.register(checks.Tags.security, deploy=False)
def check_signing_key(app_configs, **kwargs):  # type: ignore[no-untyped-def]
    try:
        key = signing_key()
        previous_keys()
    except OldFormatError as exc:
        return [checks.Error(str(exc), id="exports.E002")]
    except SigningKeyError as exc:
        return [checks.Error(str(exc), id="exports.E001")]
    if key is None:
        return [checks.Warning(
            "No KARTOTHEK_SIGNING_KEY is set: releases are published without signatures.",
            hint="Set KARTOTHEK_SIGNING_KEY to the base64 of a 32-byte Ed25519 seed or a PEM "
                 "private key, then run 'manage.py sign_releases' for the releases published "
                 "without one.",
            id="exports.W001")]
    return []
