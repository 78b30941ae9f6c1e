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
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

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


def parse_private_key(text: str) -> Ed25519PrivateKey:
    """A private key from base64 of a raw 32-byte seed, or from a PEM private key."""
    text = text.strip()
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


def public_keys() -> list[dict[str, str]]:
    """The keys a client may verify with (the current one; a rotated-out key would stay)."""
    key = signing_key()
    if key is None:
        return []
    return [{
        "id": key.key_id, "algorithm": ALGORITHM,
        "public_key": base64.b64encode(key.public_raw).decode("ascii"),
        "pem": key.public_pem,
    }]


def verify(public_key_b64: str, data: bytes, signature_b64: str) -> bool:
    """Whether signature_b64 is a valid Ed25519 signature of data under the public key."""
    from cryptography.exceptions import InvalidSignature

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
