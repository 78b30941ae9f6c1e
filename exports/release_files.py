"""The bytes of releases, as files in a storage (``STORAGES["releases"]``).

A release's file is named by the sha256 of its bytes (``releases/ab/ab12….json``), the same
sha256 its database row records: a name never holds other bytes, a file already there is
never written again, and nothing is ever overwritten (the one exception: a file that no
longer holds the bytes its name promises gets the true bytes back when they are stored
again — that cannot lose anything). By default the storage is a folder (``media/releases/``
under KARTOTHEK_VAR_DIR); with KARTOTHEK_STORAGE=s3 it is the bucket.

Every read checks the bytes against the sha256 before anything uses them: a changed file is
a ``ReleaseFileCorrupt`` (the API answers 409), a missing file or a storage that cannot be
reached a ``ReleaseFileMissing`` (503). Wrong bytes are never served.
"""

from __future__ import annotations

import hashlib
import logging

from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages

from exports.errors import PackError

RELEASE_DIR = "releases"

logger = logging.getLogger("kartothek.releases")


class ReleaseFileError(PackError):
    """A release's file cannot be read, or it does not hold the release's bytes."""

    status = 503


class ReleaseFileMissing(ReleaseFileError):
    status = 503  # the server's storage is at fault, not the client: try again later


class ReleaseFileCorrupt(ReleaseFileError):
    status = 409  # the stored bytes conflict with the sha256 recorded when they were published


def release_storage() -> Storage:
    return storages["releases"]


def release_name(digest: str) -> str:
    if len(digest) != 64 or digest.strip("0123456789abcdef"):
        raise ValueError(f"not a sha256: {digest!r}")
    return f"{RELEASE_DIR}/{digest[:2]}/{digest}.json"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _stored_sha(storage: Storage, name: str) -> str | None:
    try:
        with storage.open(name, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except (OSError, ValueError):
        return None


def store_release(data: bytes, storage: Storage | None = None) -> str:
    """Store a release's bytes under their sha256 (unless they are there); returns the sha256."""
    storage = storage or release_storage()
    digest = _sha256(data)
    name = release_name(digest)
    if storage.exists(name):
        if _stored_sha(storage, name) == digest:
            return digest
        logger.error("Release file %s did not hold its bytes; written again with the true ones.",
                     name)
        storage.delete(name)
    saved = storage.save(name, ContentFile(data))
    if saved != name:
        # Another writer stored these bytes a moment ago and the storage chose a new name for
        # ours: the file under the content address is the one that counts.
        storage.delete(saved)
        if _stored_sha(storage, name) != digest:
            raise ReleaseFileMissing(f"The release file {name} could not be written.")
    return digest


def read_release(digest: str, *, label: str, storage: Storage | None = None) -> bytes:
    """The bytes of the release with this sha256, checked against it.

    ``label`` names the release in the error (e.g. "Sauschwer (de) v3").
    """
    storage = storage or release_storage()
    name = release_name(digest)
    try:
        with storage.open(name, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise _refuse(ReleaseFileMissing(
            f"{label}: its file {name} is missing from the release storage. Restore it from "
            "the backup (README, Backups).")) from None
    except Exception as exc:  # S3 and network errors come in many classes
        raise _refuse(ReleaseFileMissing(
            f"{label}: the release storage cannot be read ({type(exc).__name__}); try again "
            "later.")) from exc
    actual = _sha256(data)
    if actual != digest:
        raise _refuse(ReleaseFileCorrupt(
            f"{label}: its file {name} does not hold the published bytes (expected sha256 "
            f"{digest[:12]}…, the file has {actual[:12]}…): it was changed after publishing. "
            "Restore it from the backup (README, Backups)."))
    return data


def _refuse(error: ReleaseFileError) -> ReleaseFileError:
    logger.error("Release refused: %s", error)
    return error
