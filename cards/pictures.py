"""Pictures of symbol tiles: checking uploads, storing them by content, reading them back
checked, and drawing tiles from the Tabler icon set.

A stored picture is **content-addressed**: its file name is the sha256 of its bytes
(``pictures/ab/ab12….png``). Two tiles can never share a file name unless they share the
bytes, so an upload can never replace another tile's picture, and a release's picture URL
(which names the sha256) always means the same bytes. Whatever reads a stored picture for a
pack, the API or a deck checks the bytes against the sha256 again and refuses a mismatch.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import FileSystemStorage, storages
from PIL import Image, UnidentifiedImageError

from cards.uploads import remove_old_files

MAX_PICTURE_BYTES = 5 * 1024 * 1024
MIN_SIDE_PX = 64
MAX_SIDE_PX = 4096
ALLOWED_FORMATS = {"PNG", "JPEG", "WEBP", "GIF"}

TABLER_SOURCE = "Tabler Icons (tabler.io/icons), via the pytablericons package"
TABLER_LICENCE = "MIT"
TILE_PX = 512
INK = "#1f2a44"

PICTURE_DIR = "pictures"
_ADDRESS = re.compile(r"^pictures/([0-9a-f]{2})/([0-9a-f]{64})\.(png|jpg|webp|gif|bin)$")

logger = logging.getLogger("kartothek.pictures")


class PictureError(Exception):
    """A stored picture is missing, does not match its sha256, or cannot be decoded."""


# --- checking --------------------------------------------------------------------------


def check_picture_bytes(data: bytes, *, min_side: int = MIN_SIDE_PX) -> None:
    """Raise ValidationError unless ``data`` is a picture that decodes completely.

    Image.open reads only the header, so the size is checked before anything is decoded (a
    decompression bomb never gets that far). ``verify()`` checks the structure (PNG chunk
    checksums) but decodes nothing, and a truncated JPEG or a PNG whose compressed data stops
    short passes it; so the picture is opened again and decoded in full with ``load()``.
    """
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width > MAX_SIDE_PX or height > MAX_SIDE_PX:
                raise ValidationError(
                    f"The picture is {width} × {height} px; at most {MAX_SIDE_PX} px a side."
                )
            if width < min_side or height < min_side:
                raise ValidationError(
                    f"The picture is {width} × {height} px; at least {min_side} px a side."
                )
            if image.format not in ALLOWED_FORMATS:
                raise ValidationError(
                    f"{image.format} pictures are not accepted; use PNG, JPEG, WebP or GIF."
                )
            image.verify()
        with Image.open(io.BytesIO(data)) as image:
            image.load()
    except ValidationError:
        raise
    except Image.DecompressionBombError as exc:
        raise ValidationError(
            f"The picture is too large to open safely (at most {MAX_SIDE_PX} px a side)."
        ) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ValidationError(
            "This file is not a picture that can be opened, or it is broken "
            f"(truncated or damaged: {_reason(exc)})."
        ) from exc


def _reason(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text[:120]


def validate_picture(file) -> None:  # type: ignore[no-untyped-def]
    """Accept only a real, sanely sized raster picture that decodes completely."""
    size = getattr(file, "size", None)
    if size is not None and size > MAX_PICTURE_BYTES:
        raise ValidationError(
            f"The picture is {size / 1_048_576:.1f} MB; at most {MAX_PICTURE_BYTES // 1_048_576} MB."
        )
    with contextlib.suppress(AttributeError, OSError, ValueError):
        file.seek(0)
    try:
        data = file.read(MAX_PICTURE_BYTES + 1)
    except (OSError, ValueError) as exc:
        raise ValidationError("The picture could not be read.") from exc
    finally:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            file.seek(0)
    if len(data) > MAX_PICTURE_BYTES:
        raise ValidationError(f"The picture is larger than {MAX_PICTURE_BYTES // 1_048_576} MB.")
    check_picture_bytes(data)


# --- content-addressed storage -----------------------------------------------------------


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _extension(data: bytes) -> str:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "bin"


def content_address(data: bytes) -> str:
    """The stored name of these bytes: ``pictures/<first two hex digits>/<sha256>.<ext>``."""
    digest = sha256_of(data)
    return f"{PICTURE_DIR}/{digest[:2]}/{digest}.{_extension(data)}"


def sha256_in_name(name: str) -> str | None:
    """The sha256 a content-addressed name promises, or None for any other name."""
    match = _ADDRESS.match(name or "")
    return match.group(2) if match else None


class ContentAddressedStorage(FileSystemStorage):
    """Files named by the sha256 of their bytes: the name passed in is ignored.

    Saving bytes that are already stored returns the existing name and writes nothing; a name
    is therefore never reused for other bytes and a file is never replaced by other content.
    If a stored file no longer holds the bytes its name promises (changed on disk), saving the
    true bytes again puts them back — the name says what the file must contain, so this
    cannot lose anything — and the repair is logged.
    """

    def save(self, name: str | None, content: Any, max_length: int | None = None) -> str:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            content.seek(0)
        data = content.read()
        if isinstance(data, str):
            data = data.encode()
        target = content_address(data)
        if max_length is not None and len(target) > max_length:
            raise ValidationError(f"The picture's stored name would exceed {max_length} characters.")
        if self.exists(target):
            if self._stored_sha(target) == sha256_of(data):
                return target
            logger.error("Stored picture %s did not match its sha256; rewritten with the true bytes.",
                         target)
        self._write(target, data)
        return target

    def _stored_sha(self, name: str) -> str | None:
        try:
            with self.open(name, "rb") as handle:
                return hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError:
            return None

    def _write(self, name: str, data: bytes) -> None:
        path = Path(self.path(name))
        path.parent.mkdir(parents=True, exist_ok=True)
        if self.directory_permissions_mode is not None:
            with contextlib.suppress(OSError):
                path.parent.chmod(self.directory_permissions_mode)
        write_whole_file(path, data, self.file_permissions_mode or 0o644)


def write_whole_file(path: Path, data: bytes, mode: int = 0o644) -> None:
    """A whole file or none: written aside, then renamed into place (atomic on POSIX), so a
    reader never sees half a picture and two writers of the same bytes cannot collide."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".upload-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def picture_storage() -> ContentAddressedStorage:
    """The storage of tile pictures (``STORAGES["pictures"]``); the model field calls this."""
    return storages["pictures"]  # type: ignore[return-value]


def store_picture(data: bytes, storage: Any = None) -> str:
    """Store bytes under their content address; returns the stored name."""
    from django.core.files.base import ContentFile

    return (storage or picture_storage()).save(None, ContentFile(data))


def read_stored_picture(name: str, expected_sha: str, *, label: str, storage: Any = None) -> bytes:
    """The bytes of a stored picture, checked against the sha256 recorded for it.

    Raises PictureError, naming ``label`` (the tile), when the file is missing, when its
    bytes do not hash to ``expected_sha``, or when its name promises another sha256.
    """
    storage = storage or picture_storage()
    promised = sha256_in_name(name)
    if promised is not None and promised != expected_sha:
        raise _refuse(f"{label}: its picture file {name} is not the picture recorded for it "
                      f"(sha256 {expected_sha[:12]}…).")
    try:
        with storage.open(name, "rb") as handle:
            data = handle.read(MAX_PICTURE_BYTES + 1)
    except (OSError, ValueError):
        raise _refuse(f"{label}: its picture file {name} is missing.") from None
    actual = sha256_of(data)
    if actual != expected_sha:
        raise _refuse(f"{label}: its picture file {name} does not match its sha256 "
                      f"(expected {expected_sha[:12]}…, the file has {actual[:12]}…): the file "
                      "was changed after it was stored. Upload the picture again.")
    return data


def _refuse(message: str) -> PictureError:
    logger.error("Picture refused: %s", message)
    return PictureError(message)


# --- pictures chosen on a change form, not saved yet ------------------------------------------

_PREVIEW_NAME = re.compile(r"[0-9a-f]{64}\.picture")
PREVIEW_MAX_AGE = 3600  # seconds a chosen picture is kept for the change page's preview


def preview_picture_folder() -> Path:
    return Path(settings.VAR_DIR) / "picture-previews"


def keep_preview_picture(file: Any) -> str:
    """Keep a picture chosen on a tile's change form, before it is saved, for the preview:
    checked as the save checks it (:func:`validate_picture`, ValidationError if refused),
    kept under its sha256 in a folder of its own for :data:`PREVIEW_MAX_AGE` seconds (the
    tile's own pictures are never touched). Returns the sha256."""
    validate_picture(file)
    file.seek(0)
    data = file.read(MAX_PICTURE_BYTES + 1)
    folder = preview_picture_folder()
    folder.mkdir(parents=True, exist_ok=True)
    remove_old_files(folder, _PREVIEW_NAME, PREVIEW_MAX_AGE)
    digest = sha256_of(data)
    path = folder / f"{digest}.picture"
    if path.is_file():
        path.touch()  # chosen again: kept for another PREVIEW_MAX_AGE
    else:
        write_whole_file(path, data)
    return digest


def preview_picture(digest: str) -> bytes | None:
    """The bytes of a picture kept by :func:`keep_preview_picture`, checked against its
    sha256; None when it is not (or no longer) kept, or the name is not a sha256."""
    name = f"{digest}.picture"
    if not _PREVIEW_NAME.fullmatch(name):
        return None
    try:
        data = (preview_picture_folder() / name).read_bytes()
    except OSError:
        return None
    return data if sha256_of(data) == digest else None


# sha256s of pictures that decoded completely: the same sha256 means the same bytes, so a
# picture printed once need not be decoded again for the next deck.
_DECODED: set[str] = set()


def check_stored_picture(data: bytes, *, label: str) -> None:
    """Raise PictureError, naming ``label``, if stored bytes do not decode completely."""
    digest = sha256_of(data)
    if digest in _DECODED:
        return
    try:
        # Stored pictures may come from packs made elsewhere: only the upper size limit,
        # the format and a full decode matter for drawing them.
        check_picture_bytes(data, min_side=1)
    except ValidationError as exc:
        raise _refuse(f"{label}: its picture cannot be used: {' '.join(exc.messages)}") from None
    if len(_DECODED) >= 4096:
        _DECODED.clear()
    _DECODED.add(digest)


# --- Tabler icons --------------------------------------------------------------------------


# Pictures the icon set lacks (a tiger, a ballot box), drawn for the project in the same style.
# A tile names one as ``kartothek:<name>``; the file is fixtures/symbols/pictures/<name>.svg.
PROJECT_ICON_PREFIX = "kartothek:"
PROJECT_ICON_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "symbols" / "pictures"
PROJECT_SOURCE = "Drawn for Kartothek (fixtures/symbols/pictures)"
PROJECT_LICENCE = "CC0-1.0"
_PROJECT_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")


def icon_credit(icon: str) -> tuple[str, str]:
    """Where an icon's picture comes from and its licence."""
    if icon.startswith(PROJECT_ICON_PREFIX):
        return PROJECT_SOURCE, PROJECT_LICENCE
    return TABLER_SOURCE, TABLER_LICENCE


def tabler_icon_path(icon: str) -> Path:
    """The SVG file of a Tabler outline icon, or of a project picture (``kartothek:<name>``)."""
    if icon.startswith(PROJECT_ICON_PREFIX):
        name = icon[len(PROJECT_ICON_PREFIX):]
        path = PROJECT_ICON_DIR / f"{name}.svg"
        if not _PROJECT_NAME.match(name) or not path.is_file():
            raise ValidationError(f"There is no project picture named '{name}' "
                                  f"(fixtures/symbols/pictures/{name}.svg).")
        return path
    import pytablericons

    base = Path(pytablericons.__file__).parent / "icons" / "outline"
    path = base / f"{icon}.svg"
    if not icon or "/" in icon or not path.is_file():
        raise ValidationError(f"There is no Tabler icon named '{icon}'.")
    return path


@lru_cache(maxsize=512)
def render_icon(icon: str, *, size: int = TILE_PX, ink: str = INK) -> bytes:
    """A square PNG of a Tabler outline icon, dark strokes on transparent ground."""
    import resvg_py

    svg = tabler_icon_path(icon).read_text(encoding="utf-8").replace("currentColor", ink)
    png = resvg_py.svg_to_bytes(svg_string=svg, width=size, height=size)
    return bytes(png)


def picture_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size


def stored_file_exists(image: Any) -> bool:
    """Whether a picture field's file is in its storage (False for an empty or unreadable name)."""
    try:
        return bool(image.name) and image.storage.exists(image.name)
    except (ValueError, OSError):
        return False
