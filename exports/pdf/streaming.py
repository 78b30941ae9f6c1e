"""A reportlab canvas that writes each page to the file as soon as it is finished.

reportlab keeps every page of a document in memory until ``save()``; a deck of ten thousand
cards would then hold thousands of page streams at once. Here each page dictionary and its
content stream are formatted and written when the page ends, and only their object numbers
and file offsets are kept; fonts, pictures and forms (shared by many pages) are written at
the end, as reportlab always does. Byte for byte deterministic with ``invariant=1``.

This leans on reportlab's ``pdfdoc`` internals (PDFDocument.format, PDFIndirectObject); the
tests render, re-read and compare PDFs, so a reportlab upgrade that changes them shows up.
"""

from __future__ import annotations

from array import array
from typing import BinaryIO

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas


class StreamingDocument(pdfdoc.PDFDocument):
    """Writes each page and its content stream when the page ends.

    Per written page only two file offsets and its object number are kept (in arrays), so
    memory does not grow with the number of pages. The page tree (/Pages) is written at the
    end from those numbers.
    """

    def __init__(self, out: BinaryIO, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self._out = out
        self._offset = 0
        self._offsets = array("q")   # file offset by object number (0: not written yet)
        self._page_numbers = array("l")
        self._write(pdfdoc.pdfdocEnc(f"%PDF-{self._pdfVersion[0]}.{self._pdfVersion[1]}")
                    + b"\n%\223\214\213\236 ReportLab Generated PDF document (opensource)\n")

    def _write(self, data: bytes) -> int:
        offset = self._offset
        self._out.write(data)
        self._offset += len(data)
        return offset

    def _write_object(self, name: str, *, forget: bool) -> int:
        """Format and write one object; ``forget``: drop it and its name afterwards."""
        number = self.idToObjectNumberAndVersion[name][0]
        data = pdfdoc.PDFIndirectObject(name, self.idToObject[name]).format(self)
        self._record(number, self._write(data))
        if forget:
            del self.idToObject[name], self.idToObjectNumberAndVersion[name], self.numberToId[number]
        return number

    def _record(self, number: int, offset: int) -> None:
        offsets = self._offsets
        if len(offsets) <= number:
            offsets.extend([0] * (number + 1 - len(offsets)))
        offsets[number] = offset

    def addPage(self, page):  # type: ignore[no-untyped-def]
        name = self.thisPageName()
        self.Reference(page, name)
        self.pageCounter += 1
        self.inObject = None
        page.check_format(self)
        # nothing refers to a page by name but the page tree, written from the numbers
        self.Pages.pages = [page]  # for the Parent reference only
        number = self._write_object(name, forget=False)  # registers its content stream
        contents = page.Contents.__InternalName__
        self._write_object(contents, forget=True)
        del self.idToObject[name], self.idToObjectNumberAndVersion[name], self.numberToId[number]
        self.Pages.pages = []
        self._page_numbers.append(number)

    def move_last_pages_to_front(self, count: int) -> None:
        """Put the last ``count`` pages first (a contents page drawn after the cards)."""
        numbers = self._page_numbers
        self._page_numbers = numbers[-count:] + numbers[:-count]

    def _page_tree(self, number: int) -> bytes:
        kids = " ".join(f"{n} 0 R" for n in self._page_numbers)
        return pdfdoc.pdfdocEnc(f"{number} 0 obj\n<<\n/Count {len(self._page_numbers)} "
                                f"/Kids [ {kids} ] /Type /Pages\n>>\nendobj\n")

    def finish(self, canvas: Canvas) -> None:
        for font in self.delayedFonts:
            font.addObjects(self)
        self.info.invariant = self.invariant
        self.info.digest(self.signature)
        self.Reference(self.Catalog)
        self.Reference(self.info)
        self.Outlines.prepare(self, canvas)
        if self.Outlines.ready < 0:
            self.Catalog.Outlines = None
        self.encrypt.prepare(self)
        pages = self.Reference(self.Pages).name
        number = 0
        while number < self.objectcounter:  # objects may be registered while others are formatted
            number += 1
            if number < len(self._offsets) and self._offsets[number]:
                continue
            name = self.numberToId[number]
            if name == pages:
                self._record(number, self._write(self._page_tree(number)))
            else:
                self._write_object(name, forget=False)
        count = self.objectcounter
        start = self._write(f"xref\n0 {count + 1}\n0000000000 65535 f \n".encode())
        for first in range(1, count + 1, 512):  # in pieces: the table grows with the pages
            last = min(count, first + 511)
            self._write("".join(f"{self._offsets[n]:010d} 00000 n \n"
                                for n in range(first, last + 1)).encode())
        trailer = pdfdoc.PDFTrailer(
            startxref=start, Size=count + 1, Root=self.Reference(self.Catalog),
            Info=self.Reference(self.info), Encrypt=None, ID=self.ID(),
        )
        self._write(trailer.format(self))


def streaming_canvas(out: BinaryIO, pagesize: tuple[float, float], font: str) -> Canvas:
    """A canvas whose pages go to ``out`` as they are finished; end with ``finish(canvas)``.

    ``font`` is a registered TrueType font: starting with it keeps Helvetica (which is never
    embedded) out of the file.
    """
    # Compressed streams as binary, not ASCII85 on top: a quarter smaller and much faster.
    rl_config.useA85 = 0
    canvas = Canvas(out, pagesize=pagesize, invariant=1, pageCompression=1, initialFontName=font)
    canvas._doc = StreamingDocument(out, compression=1, invariant=1,
                                    pdfVersion=canvas._doc._pdfVersion)
    return canvas


def finish(canvas: Canvas) -> None:
    if len(canvas._code):
        canvas.showPage()
    canvas._doc.finish(canvas)
