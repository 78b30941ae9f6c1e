"""Uploaded import files: a size limit enforced while the upload streams in, and the
temporary files an import keeps between its preview and its confirmation.

Size
    :class:`LimitedUploadHandler` (first in ``FILE_UPLOAD_HANDLERS``) counts the bytes of each
    file uploaded to an import view (the admin's import pages, the PO upload) as Django hands
    them on and drops the file as soon as it passes the largest import file
    (``KARTOTHEK_IMPORT_MAX_BYTES``): the handlers after it (memory, then a
    temporary file) never receive more than that, their partial file is closed and deleted,
    and the rest of the upload is read and thrown away. The view then finds no file and
    :func:`upload_refusal` says why.

Preview files
    django-import-export saves an upload while the curator looks at the preview, and reads
    it again on *Confirm*. :class:`PreviewStorage` keeps these files in their own folder
    (``<KARTOTHEK_VAR_DIR>/import-previews``) under random names that nothing else can
    choose; the admin removes a file when its preview shows errors, when the file cannot be
    read and after the confirmed import. A preview nobody confirms is removed by the next
    upload once it is older than ``KARTOTHEK_IMPORT_PREVIEW_MAX_AGE`` seconds (default one
    hour); confirming it after that asks for the file again. :func:`remove_old_files` does
    the same for the pictures a tile's change form keeps for its preview (cards/pictures.py).
"""

from __future__ import annotations

import os
import re
import time
import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from django.http import HttpRequest
from import_export.tmp_storages import BaseStorage

from cards.files import max_upload_bytes
from cards.tables import size_text

REFUSAL_ATTRIBUTE = "kartothek_upload_refusal"


def is_import_view(url_name: str | None) -> bool:
    """The admin views that take import files: each model's import page and the PO upload.

    Other uploads (a tile's picture on its change form) pass unlimited here: dropping one
    would save the form without it and without a word."""
    return bool(url_name) and (str(url_name).endswith("_import") or url_name == "cards_po_upload")


class LimitedUploadHandler(FileUploadHandler):
    """Passes chunks on until a file is larger than the import limit, then drops it."""

    def new_file(self, field_name: str, file_name: str, *args: Any, **kwargs: Any) -> None:
        super().new_file(field_name, file_name, *args, **kwargs)
        # The URL is resolved before any middleware reads the body (CSRF reads it first).
        match = getattr(self.request, "resolver_match", None)
        self.limit = max_upload_bytes() if is_import_view(getattr(match, "url_name", None)) else None
        self.received = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes | None:
        self.received += len(raw_data)
        if self.limit is not None and self.received > self.limit:
            if self.request is not None:
                setattr(self.request, REFUSAL_ATTRIBUTE, (
                    f"{self.file_name}: the file is larger than "
                    f"{size_text(self.limit, 'g')}, the most an upload takes; nothing was read"
                ))
            raise SkipFile
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None  # the handlers after this one store the file


def upload_refusal(request: HttpRequest) -> str | None:
    """Why an uploaded file of this request was dropped (too large), or None."""
    return getattr(request, REFUSAL_ATTRIBUTE, None)


# --- preview files -----------------------------------------------------------------------

_NAME = re.compile(r"[0-9a-f]{32}\.upload")


def preview_folder() -> Path:
    return Path(settings.VAR_DIR) / "import-previews"


def preview_max_age() -> int:
    return int(getattr(settings, "KARTOTHEK_IMPORT_PREVIEW_MAX_AGE", 3600))


class PreviewExpired(Exception):
    """The preview's file is gone (removed as abandoned, or already imported)."""


class PreviewStorage(BaseStorage):
    """django-import-export's temporary storage, in a folder of its own, cleaned up."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if self.name is not None and not _NAME.fullmatch(str(self.name)):
            raise PreviewExpired("not a preview file name")

    def path(self) -> Path:
        return preview_folder() / str(self.name)

    def save(self, data: bytes | str) -> None:
        self.save_chunks([data.encode("utf-8") if isinstance(data, str) else data])

    def save_chunks(self, chunks: Any) -> None:
        """Write the upload chunk by chunk (never the whole file in memory at once)."""
        folder = preview_folder()
        folder.mkdir(parents=True, exist_ok=True)
        remove_abandoned_previews()
        self.name = f"{uuid.uuid4().hex}.upload"
        with open(self.path(), "xb") as out:
            for chunk in chunks:
                out.write(chunk)

    def read(self) -> bytes:
        try:
            return self.path().read_bytes()
        except FileNotFoundError:
            raise PreviewExpired(str(self.name)) from None

    def exists(self) -> bool:
        return self.name is not None and self.path().is_file()

    def remove(self) -> None:
        if self.name is not None:
            self.path().unlink(missing_ok=True)


def remove_abandoned_previews(now: float | None = None) -> int:
    """Remove preview files older than the maximum age; returns how many."""
    return remove_old_files(preview_folder(), _NAME, preview_max_age(), now)


def remove_old_files(folder: Path, name: re.Pattern[str], max_age: float,
                     now: float | None = None) -> int:
    """Remove the files of ``folder`` whose names match ``name`` and that are older than
    ``max_age`` seconds; returns how many (another request may remove some at the same time)."""
    limit = (time.time() if now is None else now) - max_age
    removed = 0
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    for entry in entries:
        if not name.fullmatch(entry.name):
            continue
        try:
            if entry.stat().st_mtime < limit:
                os.unlink(entry.path)
                removed += 1
        except FileNotFoundError:
            pass  # removed by another request at the same time
    return removed
