"""A client for the Kartothek pack API: stdlib urllib + ``cryptography``, no Django.

``Client(base_url, cache_dir).update(game, language)`` brings the cached pack up to the newest
release: nothing when it is current, a delta when the server has one, else the full release.
Whatever it keeps has passed these checks: its sha256 is the release's (the delta's
``to_sha256`` or the release's ETag); its Ed25519 signature verifies under a key the client
trusts; the signed pack says it is the game, language and release version asked for; and it
is newer than the pack already cached (a cached release is never replaced by an older one).

Trusted keys are the keys passed in, or else the current key ``/api/keys`` gave on first use,
which is then pinned in the cache folder (trust on first use, like SSH). Once keys are pinned or
given, a server cannot add one: a pack signed by an unknown key is refused, unless
``/api/keys`` shows a chain of rotation statements from a trusted key to it, which is how the
server rotates its key. The client then pins the endorsed keys and the retirements
(``retired.json``; in memory only, when the keys were passed in): a retired key endorses one
successor only and is held to the releases its statement lists (kartothek_client/keys.py).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import re
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from kartothek_client.delta import DeltaError, apply_delta, edition_of
from kartothek_client.keys import (  # noqa: F401  (the names this module always offered)
    ENDORSEMENT_CONTEXT,
    Retirement,
    endorsed_chain,
    endorsement_statement,
    first_use,
    key_id_of,
)


class KartothekError(Exception):
    """The server could not be read, or what it sent does not check out."""


class VerificationError(KartothekError):
    """A pack's sha256 or signature does not match: it is not kept."""


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


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None  # 302/303 come back as HTTPError and are read by the client itself


@dataclass
class _Answer:
    status: int
    headers: Any
    body: bytes


class Client:
    def __init__(self, base_url: str, cache_dir: str | Path, *,
                 public_keys: dict[str, str] | None = None, timeout: float = 30.0) -> None:
        """``public_keys``: {key id: base64 raw public key}; None trusts /api/keys on first use."""
        self.base_url = base_url.rstrip("/")
        self.cache_dir = Path(cache_dir).expanduser()
        self.timeout = timeout
        self._given_keys = dict(public_keys) if public_keys is not None else None
        self._given_retired: dict[str, Retirement] = {}
        self._opener = urllib.request.build_opener(_NoRedirects)
        self.requests: list[str] = []  # paths asked for, in order (for tests and logs)

    # --- HTTP -------------------------------------------------------------------------------

    def _get(self, path: str) -> _Answer:
        self.requests.append(path)
        request = urllib.request.Request(self.base_url + path,
                                         headers={"Accept-Encoding": "gzip"})
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                status, headers, body = response.status, response.headers, response.read()
        except urllib.error.HTTPError as exc:
            status, headers, body = exc.code, exc.headers, exc.read()
        except (urllib.error.URLError, OSError) as exc:
            raise KartothekError(f"{self.base_url}{path}: {exc}") from None
        if headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        return _Answer(status, headers, body)

    def _json(self, path: str) -> Any:
        answer = self._get(path)
        if answer.status != 200:
            raise KartothekError(f"{path}: {answer.status} {answer.body[:200]!r}")
        return json.loads(answer.body)

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
        """The ``keys`` of /api/keys (anything else: keys.py finds no key in it)."""
        found = self._json("/api/keys")
        return found.get("keys") if isinstance(found, dict) else None

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

    def _verify_signature(self, game: str, language: str, version: int, data: bytes,
                          header: str | None) -> str:
        if header and (found := re.fullmatch(r"keyid=([0-9a-f]+), ed25519=(\S+)", header)):
            key_id, signature = found.groups()
        else:
            sig = self._json(f"/api/packs/{game}/{language}/{version}.json.sig")
            key_id, signature = sig["key_id"], sig["signature"]
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
        except (InvalidSignature, ValueError) as exc:
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
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            data = (folder / "pack.json").read_bytes()
        except (OSError, ValueError):
            return None
        if hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            return None  # damaged on disk: fetched again in full
        return Pack(game, language, meta["version"], data, meta["sha256"], meta["key_id"],
                    "cached")

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
        found = re.search(r"/(\d+)\.json$", location)
        if not found:
            raise KartothekError(f"No release of {game} ({language}): {answer.status} "
                                 f"{answer.body[:200]!r}")
        return int(found.group(1))

    def update(self, game: str, language: str) -> Pack:
        """The newest release, verified and cached; by delta when one is worth having.

        A "latest" older than the cached pack is ignored and the cached pack returned: a
        CDN or mirror may lag behind (``latest`` is cacheable for 60 s) and an older release
        is never newer content, so going back is refused without making a healthy loop fail.
        """
        have = self.cached(game, language)
        version = self.latest_version(game, language)
        if have is not None and have.version >= version:
            return have
        if have is not None:
            pack = self._by_delta(have, version)
            if pack is not None:
                return self._keep(pack)
        return self._keep(self._full(game, language, version))

    def _by_delta(self, have: Pack, version: int) -> Pack | None:
        answer = self._get(f"/api/packs/{have.game}/{have.language}/"
                           f"{have.version}..{version}.delta.json")
        if answer.status == 303:
            return None  # too far behind, or the delta is no smaller: take the full release
        if answer.status != 200:
            raise KartothekError(f"Delta {have.version}..{version}: {answer.status}")
        delta = json.loads(answer.body)
        if (delta.get("game"), delta.get("language"), delta.get("to_version")) != (
                have.game, have.language, version):
            raise VerificationError(f"Asked for the delta {have.version}..{version} of {have.game} "
                                    f"({have.language}), got one to release "
                                    f"{delta.get('to_version')!r} of {delta.get('game')!r} "
                                    f"({delta.get('language')!r}).")
        if delta.get("from_sha256") != have.sha256:
            raise VerificationError("The delta is not from the release this client holds.")
        try:
            data = apply_delta(have.content, delta)  # checks to_sha256
        except (DeltaError, KeyError, TypeError) as exc:
            raise VerificationError(f"Delta {have.version}..{version} did not apply: {exc}") from None
        key_id = self._verify_signature(have.game, have.language, version, data, None)
        return Pack(have.game, have.language, version, data, delta["to_sha256"], key_id, "delta")

    def _full(self, game: str, language: str, version: int) -> Pack:
        answer = self._get(f"/api/packs/{game}/{language}/{version}.json")
        if answer.status != 200:
            raise KartothekError(f"Release {version} of {game} ({language}): {answer.status}")
        digest = hashlib.sha256(answer.body).hexdigest()
        if answer.headers.get("ETag", "").strip('"') != digest:
            raise VerificationError(f"Release {version}: the bytes do not match the ETag sha256.")
        key_id = self._verify_signature(game, language, version, answer.body,
                                        answer.headers.get("X-Kartothek-Signature"))
        return Pack(game, language, version, answer.body, digest, key_id, "full")


def _check_identity(data: bytes, game: str, language: str, version: int) -> None:
    """The signed bytes must be the release asked for: a genuine signature of another game,
    language or version (a replayed or older release) is refused."""
    try:
        pack = json.loads(data)
        found = (pack.get("game"), edition_of(pack), pack.get("content_version"))
    except (ValueError, AttributeError):
        raise VerificationError(f"Release {version} of {game} ({language}) is not a pack.") from None
    if found != (game, language, version) or isinstance(found[2], bool):
        raise VerificationError(
            f"Asked for release {version} of {game} ({language}), but the signed pack is "
            f"release {found[2]!r} of {found[0]!r} ({found[1]!r}): not kept.")


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
