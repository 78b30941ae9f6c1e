"""Pictures of card pages: pdftoppm (Debian's poppler-utils) turns PDF pages into pixels.

The print-shop PNGs and the Tabletop Simulator sheets are rendered from the same PDF pages
as the printed deck, so every export looks exactly like the print.

pdftoppm writes raw PPM to its stdout (no temporary files, no PNG encoded by pdftoppm only
to be decoded again): its own PNG encoder at libpng's default level costs about four times
the rasterising; Pillow at level 1 makes files a third bigger in a fifth of the time.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Iterator

from PIL import Image

PNG_LEVEL = 1  # zlib level: print-shop uploads care little about size, the worker about time


class RasterError(RuntimeError):
    pass


def pdftoppm() -> str:
    found = shutil.which("pdftoppm")
    if not found:
        raise RasterError("pdftoppm is not installed; it comes with Debian's poppler-utils "
                          "(apt-get install poppler-utils).")
    return found


def _ppm_images(data: bytes) -> Iterator[Image.Image]:
    """The images of a stream of binary PPMs (P6, maxval 255), one after another."""
    view = memoryview(data)
    pos = 0
    while pos < len(data):
        fields: list[bytes] = []
        while len(fields) < 4:
            while data[pos:pos + 1].isspace():
                pos += 1
            if data[pos:pos + 1] == b"#":
                pos = data.index(b"\n", pos) + 1
                continue
            end = pos
            while end < len(data) and not data[end:end + 1].isspace():
                end += 1
            fields.append(data[pos:end])
            pos = end
        pos += 1  # exactly one whitespace byte before the pixels
        if fields[0] != b"P6" or fields[3] != b"255":
            raise RasterError(f"pdftoppm wrote an unexpected picture format {fields[0]!r}")
        width, height = int(fields[1]), int(fields[2])
        size = width * height * 3
        if pos + size > len(data):
            raise RasterError("pdftoppm's output ended in the middle of a page")
        yield Image.frombuffer("RGB", (width, height), view[pos:pos + size], "raw", "RGB", 0, 1)
        pos += size


def pdf_to_pixels(pdf: bytes, width_px: int, height_px: int) -> list[Image.Image]:
    """Every page of ``pdf`` as an RGB image of exactly width × height pixels."""
    result = subprocess.run(
        [pdftoppm(), "-scale-to-x", str(width_px), "-scale-to-y", str(height_px),
         "-aa", "yes", "-aaVector", "yes", "-"],
        input=pdf, capture_output=True, timeout=600, check=False,
    )
    if result.returncode != 0:
        raise RasterError(f"pdftoppm failed: {result.stderr.decode(errors='replace').strip()}")
    return list(_ppm_images(result.stdout))


def png_bytes(image: Image.Image, dpi: int) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi), compress_level=PNG_LEVEL)
    return out.getvalue()


def pages_to_images(pdf: bytes, width_px: int, height_px: int) -> list[Image.Image]:
    """Every page of ``pdf`` as an RGB image (copies: they outlive pdftoppm's output)."""
    return [image.copy() for image in pdf_to_pixels(pdf, width_px, height_px)]


def pixels(mm: float, dpi: int) -> int:
    return round(mm / 25.4 * dpi)
