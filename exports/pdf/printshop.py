"""The Game Crafter: one PNG per card face at 300 dpi, with 1/8 in of bleed.

A poker card comes out at 825 × 1125 px. The pages are rendered by the same renderer as the
PDF (one card per page) and rasterised by PDFium, so the PNGs look exactly like the print.

The deck goes through in small batches: this thread draws a batch of card pages into a PDF
in memory (reportlab, ~1.4 ms a face), a worker thread rasterises each page with PDFium
(~2.8 ms; one page at a time in the process, PDFium is not thread-safe) and deflates it
with ISA-L (~0.6 ms), and each PNG is written to the target as soon as its batch is done.
At most a few batches are in flight, so memory does not grow with the deck. Measured with
bench/png_speed.py; the figures are in the README.

Written to a folder, or to a zip file when the target ends in ``.zip`` (entries sorted,
fixed timestamps: the same deck gives the same bytes).
"""

from __future__ import annotations

import io
import os
import zipfile
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from exports.pdf.cards import Card, Group
from exports.pdf.raster import pdf_to_pngs, pixels
from exports.pdf.render import DeckRenderer
from exports.pdf.streaming import finish, streaming_canvas

DPI = 300
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
BATCH = 8  # faces per PDF: a PDF's fonts and forms are written once per batch


@dataclass(frozen=True, slots=True)
class Face:
    name: str
    group: Group
    card: Card
    side: str


def faces_of(renderer: DeckRenderer) -> list[Face]:
    """Every PNG the deck makes, in the order of their names (the zip's order)."""
    options = renderer.options
    faces: list[Face] = []
    for group in renderer.groups:
        design = renderer.designs[group.name]
        for index, card in enumerate(group.cards()):
            faces.append(Face(f"{group.name}/{index + 1:04d}-{card.key}-front.png", group, card,
                              "front"))
            if options.fronts_only:
                continue
            if design.back_varies:
                faces.append(Face(f"{group.name}/{index + 1:04d}-{card.key}-back.png", group,
                                  card, "back"))
            elif index == 0:
                faces.append(Face(f"{group.name}/back.png", group, card, "back"))
    faces.sort(key=lambda face: face.name)
    return faces


def _batch_pdf(renderer: DeckRenderer, faces: list[Face]) -> bytes:
    """One page per face, with bleed; drawn on this thread (the renderer is not shared)."""
    out = io.BytesIO()
    renderer._forms.clear()  # forms (backgrounds, pictures) belong to one PDF: a new one here
    canvas = renderer.canvas = streaming_canvas(out, (1, 1), renderer.fonts["regular"].name)
    renderer._metadata(canvas)
    for face in faces:
        renderer._card_page(face.group, face.card, face.side, bleed=True)
    finish(canvas)
    renderer.canvas = None
    return out.getvalue()


def workers_for(workers: int | None) -> int:
    """Threads for the PNGs: one per core, at most 4 (PDFium draws one page at a time)."""
    return workers or max(1, min(4, os.cpu_count() or 1))


def gamecrafter_pngs(renderer: DeckRenderer, *, workers: int | None = None,
                     progress: Callable[[int, int], None] | None = None
                     ) -> Iterator[tuple[str, bytes]]:
    """(file name, PNG bytes) for every face of the deck, in name order, one at a time.

    ``progress(done, total)`` is called after each face is handed out.
    """
    options = renderer.options
    w, h = options.size
    width_px = pixels(w + 2 * options.bleed, DPI)
    height_px = pixels(h + 2 * options.bleed, DPI)
    faces = faces_of(renderer)
    total = len(faces)
    workers = workers_for(workers)

    def rasterise(pdf: bytes) -> list[bytes]:
        return list(pdf_to_pngs(pdf, width_px, height_px, DPI))

    batches = [faces[i:i + BATCH] for i in range(0, total, BATCH)]
    done = 0
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kartothek-png") as pool:
        pending: deque[tuple[list[Face], Future[list[bytes]]]] = deque()
        queued = iter(batches)
        try:
            for batch in queued:
                pending.append((batch, pool.submit(rasterise, _batch_pdf(renderer, batch))))
                # a bounded window: workers busy plus one ready, never the whole deck
                if len(pending) > workers:
                    done = yield from _hand_out(pending.popleft(), done, total, progress)
            while pending:
                done = yield from _hand_out(pending.popleft(), done, total, progress)
        finally:
            for _, future in pending:
                future.cancel()


def _hand_out(entry: tuple[list[Face], Future[list[bytes]]], done: int, total: int,
              progress: Callable[[int, int], None] | None
              ) -> Generator[tuple[str, bytes], None, int]:
    batch, future = entry
    for face, data in zip(batch, future.result(), strict=True):
        yield face.name, data
        done += 1
        if progress is not None:
            progress(done, total)
    return done


def write_zip(pngs: Iterator[tuple[str, bytes]], out: BinaryIO) -> int:
    """The PNGs as a zip, each entry written as it comes; returns the number of files.

    PNG is compressed already: entries are stored, deflating them again costs time for
    a percent or two.
    """
    count = 0
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in pngs:
            archive.writestr(zipfile.ZipInfo(name, date_time=ZIP_TIME), data)
            count += 1
    return count


def write_folder(pngs: Iterator[tuple[str, bytes]], target: Path) -> int:
    count = 0
    for name, data in pngs:
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        count += 1
    return count


def write_gamecrafter(renderer: DeckRenderer, target: Path) -> int:
    """The deck's PNGs into a folder, or a zip file when ``target`` ends in .zip."""
    pngs = gamecrafter_pngs(renderer)
    if target.suffix.lower() == ".zip":
        with open(target, "wb") as out:
            return write_zip(pngs, out)
    return write_folder(pngs, target)
