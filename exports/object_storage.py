"""Object storage (S3-compatible, through django-storages) for pictures and generated decks.

Chosen by environment (kartothek/settings.py, README "Storage"): ``KARTOTHEK_STORAGE=s3``
puts tile pictures and the decks of background jobs in a bucket instead of ``var/``, so
several app servers and workers share them.
"""

from __future__ import annotations

from django.core.files.base import ContentFile
from storages.backends.s3 import S3Storage

from cards.pictures import ContentAddressedStorage


class ContentAddressedS3Storage(S3Storage):
    """Pictures named by their sha256, in a bucket: the same rules as on disk (a name is
    never reused for other bytes, bytes already stored are not written again). An S3 PUT
    replaces an object whole, so no reader sees half a picture."""

    save = ContentAddressedStorage.save
    _stored_sha = ContentAddressedStorage._stored_sha

    def _write(self, name: str, data: bytes) -> None:
        S3Storage._save(self, name, ContentFile(data))
