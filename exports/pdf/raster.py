"""Pictures of card pages: pdftoppm (Debian's poppler-utils) turns PDF pages into PNGs.

The print-shop PNGs and the Tabletop Simulator sheets are rendered from the same PDF pages
as the printed deck, so every export looks exactly like the print.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from PIL import Image


class RasterError(RuntimeError):
    pass


def pdftoppm() -> str:
    found = shutil.which("pdftoppm")
    if not found:
        raise RasterError("pdftoppm is not installed; it comes with Debian's poppler-utils "
                          "(apt-get install poppler-utils).")
    return found


def pages_to_images(pdf: bytes, width_px: int, height_px: int) -> list[Image.Image]:
    """Every page of ``pdf`` as an RGB image of exactly width × height pixels."""
    with tempfile.TemporaryDirectory(prefix="kartothek-raster-") as folder:
        source = Path(folder) / "pages.pdf"
        source.write_bytes(pdf)
        result = subprocess.run(
            [pdftoppm(), "-png", "-scale-to-x", str(width_px), "-scale-to-y", str(height_px),
             "-aa", "yes", "-aaVector", "yes", str(source), str(Path(folder) / "page")],
            capture_output=True, text=True, timeout=600, check=False,
        )
        if result.returncode != 0:
            raise RasterError(f"pdftoppm failed: {result.stderr.strip()}")
        images = []
        for path in sorted(Path(folder).glob("page-*.png"), key=lambda p: int(p.stem.split("-")[-1])):
            with Image.open(path) as image:
                images.append(image.convert("RGB"))
        return images


def pixels(mm: float, dpi: int) -> int:
    return round(mm / 25.4 * dpi)
