"""Pictures of card pages, rendered from the same PDF pages as the printed deck, so every
export looks exactly like the print.

The print-shop PNGs (``pdf_to_pngs``) go through PDFium in this process (pypdfium2): no
subprocess, no PPM to parse, and its pixels are written straight into the buffer that
becomes the PNG's image data. Measured per 825 × 1125 face (bench/png_speed.py, 2 cores):
pdftoppm ~18 ms, PDFium ~3 ms; Pillow's PNG encoder at level 1 ~11 ms, of which half is
its per-row adaptive filter choice. With filter "none" on every row, the files of these
flat-coloured cards are as small (±3 %). The image data is deflated by zlib at level 1
(~4.5 ms a face). ISA-L (isal) did it in ~0.6 ms, but its output was not a function of its
input alone: in a test process the same rows (same decompressed bytes) came out as different
compressed bytes of the same length, so two exports of one deck were not byte-identical
(tests/test_png_concurrency.py). zlib's output depends only on the input and the level.

The Tabletop Simulator sheets (``pages_to_images``) still use pdftoppm (Debian's
poppler-utils), which writes raw PPM to its stdout (no temporary files, no PNG encoded by
pdftoppm only to be decoded again).
"""

from __future__ import annotations

import ctypes
import io
import shutil
import struct
import subprocess
import threading
import zlib
from collections.abc import Iterator

import pypdfium2  # noqa: F401  (importing the package initialises the PDFium library)
import pypdfium2.raw as pdfium
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


# PDFium is not thread-safe: every call into it, from any thread of this process, holds this.
PDFIUM_LOCK = threading.Lock()
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(body, zlib.crc32(kind))))


def png_from_rows(rows: bytes | bytearray | memoryview, width: int, height: int, dpi: int,
                  level: int = 1) -> bytes:
    """An 8-bit RGB PNG of ``rows``: per row a filter byte (0, none) and width × 3 bytes.

    ``level``: zlib's deflate level (deterministic: the same rows give the same bytes).
    """
    if len(rows) != height * (3 * width + 1):
        raise RasterError(f"{len(rows)} bytes are not {height} rows of {width} RGB pixels")
    per_metre = round(dpi / 0.0254)
    return b"".join((
        PNG_SIGNATURE,
        _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)),
        _chunk(b"pHYs", struct.pack(">IIB", per_metre, per_metre, 1)),
        _chunk(b"IDAT", zlib.compress(rows, level)),
        _chunk(b"IEND", b""),
    ))


def pdf_to_pngs(pdf: bytes, width_px: int, height_px: int, dpi: int) -> Iterator[bytes]:
    """Every page of ``pdf`` as a PNG of exactly width × height pixels (scaled to fit, as
    pdftoppm's -scale-to-x/-y), one page at a time.

    PDFium draws each page into a buffer laid out as the PNG's unfiltered image data: the
    bitmap starts one byte in and its stride is a row plus one byte, so the byte in front
    of each row (PDFium never writes it) stays 0, the "none" filter. One buffer per call,
    reused for every page: memory does not grow with the pages.
    """
    stride = 3 * width_px + 1
    rows = bytearray(stride * height_px)
    pixels_view = (ctypes.c_ubyte * len(rows)).from_buffer(rows)  # pins the buffer in place
    start = ctypes.addressof(pixels_view) + 1
    with PDFIUM_LOCK:
        document = _open(pdf)
        try:
            count = pdfium.FPDF_GetPageCount(document)
        finally:
            pdfium.FPDF_CloseDocument(document)
    for index in range(count):
        # One lock hold per page, from loading the document to closing it: no PDFium document
        # stays open while the lock is free, so pages of documents on other threads never
        # interleave with this one's (the shared font and glyph caches see one document at
        # a time). Loading again per page costs well under a millisecond of a ~3 ms face.
        with PDFIUM_LOCK:
            document = _open(pdf)
            try:
                _render_page(document, index, start, width_px, height_px, stride)
            finally:
                pdfium.FPDF_CloseDocument(document)
        if rows[::stride].count(0) != height_px:
            raise RasterError("PDFium wrote outside the card's pixels")
        yield png_from_rows(rows, width_px, height_px, dpi)


def _open(pdf: bytes) -> object:
    """A PDFium document of ``pdf`` (the caller holds the lock and closes it)."""
    document = pdfium.FPDF_LoadMemDocument64(pdf, len(pdf), None)
    if not document:
        raise RasterError(f"PDFium cannot read the PDF (error {pdfium.FPDF_GetLastError()})")
    return document


def _render_page(document: object, index: int, start: int, width: int, height: int,
                 stride: int) -> None:
    page = pdfium.FPDF_LoadPage(document, index)
    if not page:
        raise RasterError(f"PDFium cannot read page {index + 1} (error "
                          f"{pdfium.FPDF_GetLastError()})")
    bitmap = pdfium.FPDFBitmap_CreateEx(width, height, pdfium.FPDFBitmap_BGR, start, stride)
    try:
        if not bitmap:
            raise RasterError("PDFium cannot make a bitmap of that size")
        pdfium.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xFFFFFFFF)
        # RGB byte order (PNG's), not BGR; annotations as printed
        pdfium.FPDF_RenderPageBitmap(bitmap, page, 0, 0, width, height, 0,
                                     pdfium.FPDF_ANNOT | pdfium.FPDF_REVERSE_BYTE_ORDER)
    finally:
        if bitmap:
            pdfium.FPDFBitmap_Destroy(bitmap)
        pdfium.FPDF_ClosePage(page)
