"""A client for the Kartothek pack API: stdlib urllib + ``cryptography``, no Django.

``Client(base_url, cache_dir).update(game, language)`` brings the cached pack up to the newest
release: nothing when it is current, a delta when the server has one, else the full release.
Whatever it keeps has passed these checks: its sha256 is the release's (the delta's
``to_sha256`` or the release's ETag); its Ed25519 signature verifies under a key the client
trusts; the signed pack says it is the game, language and release version asked for; and it
is newer than the pack already cached (a cached release is never replaced by an older one); and
it is not older than the newest release the server's signed timestamp lists (``/api/timestamp``,
checked in kartothek_client/timestamp.py: trusted key, not expired, not older than the one kept).

Trusted keys are the keys passed in, or else the current key ``/api/keys`` gave on first use,
which is then pinned in the cache folder (trust on first use, like SSH). Once keys are pinned or
given, a server cannot add one: a pack signed by an unknown key is refused, unless
``/api/keys`` shows a chain of rotation statements from a trusted key to it, which is how the
server rotates its key. The client then pins the endorsed keys and the retirements
(``retired.json``; in memory only, when the keys were passed in): a retired key endorses one
successor only and is held to the releases its statement lists (kartothek_client/keys.py).

Every answer is read through ``kartothek_client.wire``: bounded in bytes (read and inflated)
and in time (an overall deadline per request), and checked field by field, so whatever a
server or a mirror sends, the client returns a checked pack or raises ``KartothekError``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from kartothek_client import wire
from kartothek_client.delta import DeltaError, apply_delta, edition_of
from kartothek_client.errors import KartothekError, VerificationError
from kartothek_client.keys import (  # noqa: F401  (the names this module always offered)
    ENDORSEMENT_CONTEXT,
    Retirement,
    endorsed_chain,
    endorsement_statement,
    first_use,
    key_id_of,
)
from kartothek_client.timestamp import (
    TIMESTAMP_FILE,
    Timestamp,
    check_not_older,
    read_cached,
    verify_timestamp,
)
from kartothek_client.wire import Answer as _Answer

__all__ = ["Client", "KartothekError", "Pack", "VerificationError", "endorsed_keys",
           "endorsement_statement", "key_id_of"]


@dataclass(frozen=True)
class Pack:
    game: str
    language: str
    version: int
    data: bytes  # the release's exact bytes
    sha256: str
    key_id: str  # the key whose signature was checked
    how: str  # "cached", "delta" or "full"

    @property
    def content(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.data)
        return parsed


def endorsed_keys(trusted: dict[str, str], listed: list[dict[str, Any]]) -> dict[str, str]:
    """The keys of a served key list that a chain of valid rotation statements links to a
    trusted key (trusted ones excluded): {key id: base64 public key}
    (:func:`kartothek_client.keys.endorsed_chain` without the retirements)."""
    return endorsed_chain(trusted, {}, listed)[0]


class Client:
    def __init__(self, base_url: str, cache_dir: str | Path, *,
                 public_keys: dict[str, str] | None = None, timeout: float = 30.0,
                 deadline: float = 60.0, max_json_bytes: int = wire.Limits.max_json_bytes,
                 max_pack_bytes: int = wire.Limits.max_pack_bytes) -> None:
        """``public_keys``: {key id: base64 raw public key}; None trusts /api/keys on first use.

        Each request may take ``timeout`` seconds per socket operation and ``deadline``
        seconds in all; a release or a delta at most ``max_pack_bytes`` (read, and again
        inflated), any other answer at most ``max_json_bytes``. Past them: KartothekError."""
        self.base_url = base_url.rstrip("/")
        self.cache_dir = Path(cache_dir).expanduser()
        self.limits = wire.Limits(timeout=timeout, deadline=deadline,
                                  max_json_bytes=max_json_bytes, max_pack_bytes=max_pack_bytes)
        self.timeout = timeout
        self._given_keys = dict(public_keys) if public_keys is not None else None
        self._given_retired: dict[str, Retirement] = {}
        self.requests: list[str] = []  # paths asked for, in order (for tests and logs)

    # --- HTTP -------------------------------------------------------------------------------

    def _get(self, path: str, *, pack: bool = False) -> _Answer:
        """One GET, bounded (wire.fetch): a release or a delta (``pack``) may be larger."""
        self.requests.append(path)
        limit = self.limits.max_pack_bytes if pack else self.limits.max_json_bytes
        return wire.fetch(self.base_url + path, limit=limit, limits=self.limits)

    def _json(self, path: str) -> dict[str, Any]:
        """A 200 answer's JSON object; anything else is a KartothekError."""
        answer = self._get(path)
        if answer.status != 200:
            raise KartothekError(f"{path}: {answer.status} {answer.body[:200]!r}")
        return wire.obj(wire.parse_json(answer.body, path), path)

    # --- keys and signatures ---------------------------------------------------------------

    def _keys_file(self) -> Path:
        return self.cache_dir / "keys.json"

    def _pinned(self) -> dict[str, str]:
        if not self._keys_file().exists():
            return {}
        pinned: dict[str, str] = json.loads(self._keys_file().read_text(encoding="utf-8"))
        return pinned

    def _retired_file(self) -> Path:
        return self.cache_dir / "retired.json"

    def retired_keys(self) -> dict[str, Retirement]:
        """The retirements this client kept: {retired key id: its statement's facts}."""
        if self._given_keys is not None:
            return self._given_retired
        try:
            kept = json.loads(self._retired_file().read_text(encoding="utf-8"))
            return {str(k): Retirement.from_json(v) for k, v in kept.items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, AttributeError) as exc:
            raise KartothekError(f"{self._retired_file()} is damaged ({exc}).") from None

    def _pin(self, keys: dict[str, str], retired: dict[str, Retirement]) -> None:
        _write_atomic(self._retired_file(), json.dumps(
            {k: r.as_json() for k, r in retired.items()}, sort_keys=True).encode())
        _write_atomic(self._keys_file(), json.dumps(keys, sort_keys=True).encode())

    def _listed_keys(self) -> Any:
        """The key entries of /api/keys, each an object (checked by wire; keys.py checks them)."""
        return self._served_keys()

    def trusted_keys(self) -> dict[str, str]:
        """The keys passed in, else the pinned ones; with neither, the current key of
        /api/keys (then pinned, with the retired keys held to their releases)."""
        if self._given_keys is not None:
            return self._given_keys
        pinned = self._pinned()
        if not pinned:
            pinned, retired = first_use(self._listed_keys())
            self._pin(pinned, retired)
        elif not self._retired_file().exists():  # pinned before rotation statements: once,
            # the statements from the pinned keys (a retired key pinned beside its successor)
            new, retired = endorsed_chain(pinned, {}, self._listed_keys())
            pinned = {**new, **pinned}
            self._pin(pinned, retired)
        return pinned

    def _learn_endorsed(self, key_id: str, keys: dict[str, str]) -> dict[str, str]:
        """A key not trusted yet: trusted only if /api/keys endorses it by a chain from a
        trusted key; then pinned with the keys and retirements on that chain."""
        retired = self.retired_keys()
        new, retirements = endorsed_chain(keys, retired, self._listed_keys())
        if key_id not in new:
            return keys
        if self._given_keys is not None:
            self._given_keys.update(new)
            self._given_retired.update({**retirements, **retired})
            return self._given_keys
        pinned = {**new, **self._pinned()}  # a key once pinned is never replaced
        self._pin(pinned, {**retirements, **retired})  # nor a retirement once kept
        return pinned

    def _key_for(self, key_id: str) -> str | None:
        """The trusted public key of that id (learned through endorsements if need be), or None."""
        keys = self.trusted_keys()
        if key_id not in keys:
            keys = self._learn_endorsed(key_id, keys)
        return keys.get(key_id)

    def timestamp(self) -> Timestamp:
        """The server's signed list of the newest releases (kartothek_client/timestamp.py),
        verified, not older than the one kept in the cache folder, which it then replaces."""
        path = self.cache_dir / TIMESTAMP_FILE
        held = read_cached(path, self._key_for)
        answer = self._get("/api/timestamp")
        if answer.status != 200:
            raise KartothekError(f"/api/timestamp: {answer.status} {answer.body[:200]!r}")
        stamp = verify_timestamp(answer.body, self._key_for)
        check_not_older(stamp, held)
        if held is None or held.envelope != stamp.envelope:
            _write_atomic(path, stamp.envelope)
        return stamp

    def _served_keys(self) -> list[dict[str, Any]]:
        """The key entries of /api/keys (objects; what is in them is checked by the reader)."""
        listed = wire.array(wire.member(self._json("/api/keys"), "keys", "/api/keys"),
                            "/api/keys: keys")
        return [wire.obj(entry, "/api/keys: a key") for entry in listed]

    def _verify_signature(self, game: str, language: str, version: int, data: bytes,
                          header: str | None) -> str:
        if header and (found := re.fullmatch(r"keyid=([0-9a-f]+), ed25519=(\S+)", header)):
            key_id, signature = found.groups()
        else:
            path = f"/api/packs/{game}/{language}/{version}.json.sig"
            sig = self._json(path)
            key_id = wire.string(wire.member(sig, "key_id", path), f"{path}: key_id")
            signature = wire.string(wire.member(sig, "signature", path), f"{path}: signature")
        keys = self.trusted_keys()
        if key_id not in keys and key_id not in self.retired_keys():
            keys = self._learn_endorsed(key_id, keys)  # a rotated key, endorsed by a trusted one
        retirement = self.retired_keys().get(key_id)
        public = keys.get(key_id) or (retirement.public_key if retirement else None)
        if public is None:
            raise VerificationError(f"Release {version} is signed with key {key_id}, which "
                                    "this client does not trust, and no key it trusts "
                                    "endorsed it.")
        try:
            Ed25519PublicKey.from_public_bytes(base64.b64decode(public)).verify(
                base64.b64decode(signature), data)
        except (InvalidSignature, ValueError) as exc:  # binascii.Error is a ValueError
            raise VerificationError(f"Release {version} of {game} ({language}): the signature "
                                    f"does not verify ({exc.__class__.__name__}).") from None
        _check_identity(data, game, language, version)
        if retirement is not None and (why := retirement.refusal(key_id, game, language,
                                                                 version)):
            raise VerificationError(why)  # a retired key signs nothing after its last release
        return key_id

    # --- the cache ---------------------------------------------------------------------------

    def _folder(self, game: str, language: str) -> Path:
        if not re.fullmatch(r"[a-z]+", game) or not re.fullmatch(r"[A-Za-z-]+", language):
            raise KartothekError(f"'{game}'/'{language}' is not a game and language name.")
        return self.cache_dir / game / language

    def cached(self, game: str, language: str) -> Pack | None:
        """The pack on disk, if its bytes still match the sha256 kept beside them."""
        folder = self._folder(game, language)
        try:
            meta = wire.obj(json.loads((folder / "meta.json").read_text(encoding="utf-8")), "")
            data = (folder / "pack.json").read_bytes()
            version = wire.integer(meta.get("version"), "")
            key_id = wire.string(meta.get("key_id"), "")
        except (OSError, ValueError, RecursionError, KartothekError):
            return None
        if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            return None  # damaged on disk: fetched again in full
        return Pack(game, language, version, data, meta["sha256"], key_id, "cached")

    def _keep(self, pack: Pack) -> Pack:
        """Keep the pack unless a newer one is cached already (another process may have
        updated meanwhile): the cache never goes backwards. The pack now cached."""
        have = self.cached(pack.game, pack.language)
        if have is not None and have.version >= pack.version:
            return have
        folder = self._folder(pack.game, pack.language)
        _write_atomic(folder / "pack.json", pack.data)
        _write_atomic(folder / "meta.json", json.dumps(
            {"version": pack.version, "sha256": pack.sha256, "key_id": pack.key_id}).encode())
        return pack

    # --- updating --------------------------------------------------------------------------

    def latest_version(self, game: str, language: str) -> int:
        answer = self._get(f"/api/packs/{game}/{language}/latest")
        location = answer.headers.get("Location", "") if answer.status == 302 else ""
        found = re.search(r"/([0-9]{1,15})\.json$", str(location))
        if not found:
            raise KartothekError(f"No release of {game} ({language}): {answer.status} "
                                 f"{answer.body[:200]!r}")
        return int(found.group(1))

    def update(self, game: str, language: str) -> Pack:
        """The newest release, verified and cached; by delta when one is worth having.

        A "latest" older than the cached pack is ignored and the cached pack returned: a
        CDN or mirror may lag behind (``latest`` is cacheable for 60 s) and an older release
        is never newer content, so going back is refused without making a healthy loop fail.
        The signed timestamp says which release is the newest: a "latest" older than the one
        it lists is overruled (that release is fetched, or the update fails), so a mirror
        cannot hand even an empty cache an old genuine release.
        """
        have = self.cached(game, language)
        listed = self.timestamp().newest(game, language)
        version = max(self.latest_version(game, language), listed[0] if listed else 0)
        if have is not None and have.version >= version:
            return have
        pack = self._by_delta(have, version) if have is not None else None
        pack = pack or self._full(game, language, version)
        if listed is not None and version == listed[0] and pack.sha256 != listed[1]:
            raise VerificationError(f"Release {version} of {game} ({language}) is not the one "
                                    "the signed timestamp lists (another sha256): not kept.")
        return self._keep(pack)

    def _by_delta(self, have: Pack, version: int) -> Pack | None:
        path = f"/api/packs/{have.game}/{have.language}/{have.version}..{version}.delta.json"
        answer = self._get(path, pack=True)
        if answer.status == 303:
            return None  # too far behind, or the delta is no smaller: take the full release
        if answer.status != 200:
            raise KartothekError(f"Delta {have.version}..{version}: {answer.status}")
        delta = wire.obj(wire.parse_json(answer.body, path), path)
        if (delta.get("game"), delta.get("language"), delta.get("to_version")) != (
                have.game, have.language, version):
            raise VerificationError(f"Asked for the delta {have.version}..{version} of {have.game} "
                                    f"({have.language}), got one to release "
                                    f"{wire.short(delta.get('to_version'))} of "
                                    f"{wire.short(delta.get('game'))} "
                                    f"({wire.short(delta.get('language'))}).")
        if delta.get("from_sha256") != have.sha256:
            raise VerificationError("The delta is not from the release this client holds.")
        try:
            data = apply_delta(have.content, delta)  # checks its shape and to_sha256
        except DeltaError as exc:
            raise VerificationError(f"Delta {have.version}..{version} did not apply: {exc}") from None
        key_id = self._verify_signature(have.game, have.language, version, data, None)
        return Pack(have.game, have.language, version, data, hashlib.sha256(data).hexdigest(),
                    key_id, "delta")

    def _full(self, game: str, language: str, version: int) -> Pack:
        answer = self._get(f"/api/packs/{game}/{language}/{version}.json", pack=True)
        if answer.status != 200:
            raise KartothekError(f"Release {version} of {game} ({language}): {answer.status}")
        digest = hashlib.sha256(answer.body).hexdigest()
        if str(answer.headers.get("ETag", "")).strip('"') != digest:
            raise VerificationError(f"Release {version}: the bytes do not match the ETag sha256.")
        key_id = self._verify_signature(game, language, version, answer.body,
                                        str(answer.headers.get("X-Kartothek-Signature", "")))
        return Pack(game, language, version, answer.body, digest, key_id, "full")


def _check_identity(data: bytes, game: str, language: str, version: int) -> None:
    """The signed bytes must be the release asked for: a genuine signature of another game,
    language or version (a replayed or older release) is refused."""
    try:
        pack = json.loads(data)
        found = (pack.get("game"), edition_of(pack), pack.get("content_version"))
    except (ValueError, AttributeError, RecursionError):
        raise VerificationError(f"Release {version} of {game} ({language}) is not a pack.") from None
    if found != (game, language, version) or isinstance(found[2], bool):
        raise VerificationError(
            f"Asked for release {version} of {game} ({language}), but the signed pack is "
            f"release {found[2]!r} of {found[0]!r} ({found[1]!r}): not kept.")


def _public_key(value: Any) -> bytes | None:
    """A listed public key's raw 32 bytes, or None when it is not one."""
    try:
        return wire.base64_bytes(value, "a public key", size=32)
    except KartothekError:
        return None


def _write_atomic(path: Path, data: bytes) -> None:
    """Readers see the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
