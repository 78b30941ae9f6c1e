"""Pictures of symbol tiles: checking uploads and drawing tiles from the Tabler icon set."""

from __future__ import annotations

import contextlib
import hashlib
import io
from functools import lru_cache
from pathlib import Path

from django.core.exceptions import ValidationError
from PIL import Image, UnidentifiedImageError

MAX_PICTURE_BYTES = 5 * 1024 * 1024
MIN_SIDE_PX = 64
MAX_SIDE_PX = 4096
ALLOWED_FORMATS = {"PNG", "JPEG", "WEBP", "GIF"}

TABLER_SOURCE = "Tabler Icons (tabler.io/icons), via the pytablericons package"
TABLER_LICENCE = "MIT"
TILE_PX = 512
INK = "#1f2a44"


def validate_picture(file) -> None:  # type: ignore[no-untyped-def]
    """Accept only a real, sanely sized raster picture (no decompression bombs)."""
    size = getattr(file, "size", None)
    if size is not None and size > MAX_PICTURE_BYTES:
        raise ValidationError(
            f"The picture is {size / 1_048_576:.1f} MB; at most {MAX_PICTURE_BYTES // 1_048_576} MB."
        )
    with contextlib.suppress(AttributeError, OSError, ValueError):
        file.seek(0)
    try:
        with Image.open(file) as image:
            # Image.open reads only the header: check the size before decoding anything.
            width, height = image.size
            if width > MAX_SIDE_PX or height > MAX_SIDE_PX:
                raise ValidationError(
                    f"The picture is {width} × {height} px; at most {MAX_SIDE_PX} px a side."
                )
            if width < MIN_SIDE_PX or height < MIN_SIDE_PX:
                raise ValidationError(
                    f"The picture is {width} × {height} px; at least {MIN_SIDE_PX} px a side."
                )
            if image.format not in ALLOWED_FORMATS:
                raise ValidationError(
                    f"{image.format} pictures are not accepted; use PNG, JPEG, WebP or GIF."
                )
            image.verify()
    except ValidationError:
        raise
    except Image.DecompressionBombError as exc:
        raise ValidationError(
            f"The picture is too large to open safely (at most {MAX_SIDE_PX} px a side)."
        ) from exc
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise ValidationError("This file is not a picture that can be opened (or it is broken).") from exc
    finally:
        with contextlib.suppress(AttributeError, OSError, ValueError):
            file.seek(0)


def tabler_icon_path(icon: str) -> Path:
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


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def picture_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        return image.size
