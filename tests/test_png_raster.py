"""The print-shop rasteriser (PDFium in process, PNGs written by exports/pdf/raster.py): each
PNG is a valid file of exactly the asked pixels at 300 dpi, and it shows what an independent
renderer (pdftoppm) sees on the same PDF page: right colours, scale and position."""

from __future__ import annotations

import io
import shutil
import threading

import pytest
from PIL import Image, ImageChops, ImageStat

from exports.pdf import printshop, raster
from exports.pdf.raster import RasterError, pdf_to_pixels, pdf_to_pngs, png_from_rows
from tests.test_png_speed_shape import _renderer


def _pdf(cards: int = 2) -> bytes:
    renderer = _renderer(cards)
    return printshop._batch_pdf(renderer, printshop.faces_of(renderer))


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs pdftoppm (poppler-utils)")
def test_pdfium_pngs_show_what_pdftoppm_sees_on_the_same_pages():
    pdf = _pdf(2)
    pngs = list(pdf_to_pngs(pdf, 825, 1125, 300))
    reference = pdf_to_pixels(pdf, 825, 1125)
    assert len(pngs) == len(reference) == 4
    for data, expected in zip(pngs, reference, strict=True):
        with Image.open(io.BytesIO(data)) as image:
            image.load()  # Pillow checks every chunk's CRC and the zlib stream while loading
            assert image.format == "PNG" and image.mode == "RGB" and image.size == (825, 1125)
            assert round(image.info["dpi"][0]) == 300 and round(image.info["dpi"][1]) == 300
            difference = ImageChops.difference(image, expected)
        # the two renderers smooth edges differently; a swapped channel, a shifted or
        # scaled page would differ by tens on average, not by a fraction of one
        assert max(ImageStat.Stat(difference).mean) < 2, ImageStat.Stat(difference).mean
        # the card's colours are the print's colours: the corner pixel is the background
        assert image.getpixel((5, 5)) == expected.getpixel((5, 5))


def test_a_png_holds_exactly_the_rows_it_was_given():
    width, height = 7, 3
    pixels = bytes(range(width * height * 3))
    rows = b"".join(b"\0" + pixels[r * width * 3:(r + 1) * width * 3] for r in range(height))
    with Image.open(io.BytesIO(png_from_rows(rows, width, height, 300))) as image:
        assert image.size == (width, height) and image.tobytes() == pixels


def test_rows_of_the_wrong_length_are_refused():
    with pytest.raises(RasterError, match="not 3 rows of 7 RGB pixels"):
        png_from_rows(b"\0" * 10, 7, 3, 300)


def test_a_pdf_pdfium_cannot_read_is_a_raster_error_and_frees_the_lock():
    with pytest.raises(RasterError, match="PDFium cannot read the PDF"):
        list(pdf_to_pngs(b"%PDF-1.4 not really", 825, 1125, 300))
    assert raster.PDFIUM_LOCK.acquire(blocking=False)
    raster.PDFIUM_LOCK.release()


def test_pages_rasterised_on_several_threads_at_once_are_the_same_pixels():
    pdf = _pdf(3)
    alone = list(pdf_to_pngs(pdf, 825, 1125, 300))
    results: list[list[bytes]] = [[] for _ in range(4)]

    def work(slot: int) -> None:
        results[slot] = list(pdf_to_pngs(pdf, 825, 1125, 300))

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(result == alone for result in results)


def test_previews_and_print_pngs_drawn_on_threads_at_once_are_the_same_pixels():
    # the admin's card previews and the print-shop PNGs share PDFium in one process: neither
    # may call into it outside the lock (a wrapper's finalizer freeing a bitmap included)
    from exports.preview import rasterise

    pdf = _pdf(2)
    pngs_alone = list(pdf_to_pngs(pdf, 825, 1125, 300))
    preview_alone = rasterise(pdf, 240)
    with Image.open(io.BytesIO(preview_alone)) as image:
        assert image.mode == "RGB" and image.size[0] == 240
    pngs: list[list[bytes]] = []
    previews: list[bytes] = []

    def print_pngs() -> None:
        for _ in range(3):
            pngs.append(list(pdf_to_pngs(pdf, 825, 1125, 300)))

    def preview_pngs() -> None:
        for _ in range(12):
            previews.append(rasterise(pdf, 240))

    threads = [threading.Thread(target=target)
               for target in (print_pngs, preview_pngs, print_pngs, preview_pngs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(pngs) == 6 and all(result == pngs_alone for result in pngs)
    assert len(previews) == 24 and all(result == preview_alone for result in previews)
