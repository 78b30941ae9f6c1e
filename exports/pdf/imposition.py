"""Where the cards go on the paper: grids, bleed between neighbours, duplex mirroring, marks.

Everything here is millimetres with the origin at the page's bottom-left corner, as in PDF.
A ``Slot`` is one card's trim box on a page, with the bleed it may use on each side: the full
bleed on the outside of the grid and where the gap allows it, half the gap between
neighbours that are closer (gap 0: neighbours share one cut).
"""

from __future__ import annotations

from dataclasses import dataclass

from exports.pdf.options import PAPERS, DeckOptions

MIN_MARK = 1.5  # mm: shorter crop marks are left out (with a warning)


@dataclass(frozen=True, slots=True)
class Slot:
    x: float
    y: float
    w: float
    h: float
    bleed: tuple[float, float, float, float]  # left, bottom, right, top
    rotate: int = 0                           # 180: drawn upside down (short-edge backs)

    @property
    def bleed_box(self) -> tuple[float, float, float, float]:
        left, bottom, right, top = self.bleed
        return (self.x - left, self.y - bottom, self.x + self.w + right, self.y + self.h + top)


@dataclass(frozen=True)
class Sheet:
    """The geometry shared by every sheet of a deck."""

    width: float
    height: float
    orientation: str
    fronts: tuple[Slot, ...]
    backs: tuple[Slot, ...]            # back slot i sits behind front slot i
    cut_xs: tuple[float, ...]          # x of every vertical cut
    cut_ys: tuple[float, ...]
    block: tuple[float, float, float, float]   # trim area of the whole grid: x0, y0, x1, y1
    fold_xs: tuple[float, ...] = ()    # fold lines (fold mode)
    mark_length: tuple[float, float] = (0.0, 0.0)  # crop marks left/right, top/bottom

    @property
    def per_sheet(self) -> int:
        return len(self.fronts)


class NoRoom(ValueError):
    """Not even one card fits on the paper with these options."""


def _count(usable: float, unit: float, gap: float) -> int:
    return max(0, int((usable + gap + 1e-9) // (unit + gap)))


def _grid(paper_w: float, paper_h: float, unit_w: float, unit_h: float,
          options: DeckOptions) -> tuple[int, int]:
    outer = options.margin + options.bleed
    cols = _count(paper_w - 2 * outer, unit_w, options.gap)
    rows = _count(paper_h - 2 * outer, unit_h, options.gap)
    return cols, rows


def single(options: DeckOptions) -> Sheet:
    """One card per page, the page as large as the card and its bleed (print shops)."""
    w, h = options.size
    b = options.bleed
    slot = Slot(b, b, w, h, (b, b, b, b))
    return Sheet(w + 2 * b, h + 2 * b, "portrait", (slot,), (slot,), (b, b + w), (b, b + h),
                 (b, b, b + w, b + h))


def sheet(options: DeckOptions) -> Sheet:
    """As many cards as fit on the paper (portrait or landscape, whichever holds more)."""
    if options.layout == "single":
        return single(options)
    w, h = options.size
    unit_w = 2 * w if options.fold else w
    paper_w, paper_h = PAPERS[options.paper]
    portrait = _grid(paper_w, paper_h, unit_w, h, options)
    landscape = _grid(paper_h, paper_w, unit_w, h, options)
    if landscape[0] * landscape[1] > portrait[0] * portrait[1]:
        (cols, rows), (page_w, page_h), orientation = landscape, (paper_h, paper_w), "landscape"
    else:
        (cols, rows), (page_w, page_h), orientation = portrait, (paper_w, paper_h), "portrait"
    if cols * rows == 0:
        raise NoRoom(f"A {w:g} × {h:g} mm card{' pair' if options.fold else ''} with "
                     f"{options.bleed:g} mm bleed does not fit on {options.paper.upper()} paper "
                     f"with a {options.margin:g} mm margin.")
    gap, bleed = options.gap, options.bleed
    inner = min(bleed, gap / 2)  # bleed towards a neighbour
    block_w = cols * unit_w + (cols - 1) * gap
    block_h = rows * h + (rows - 1) * gap
    x0 = (page_w - block_w) / 2
    y0 = (page_h - block_h) / 2
    fronts, backs, folds = [], [], []
    cut_xs: set[float] = set()
    cut_ys: set[float] = set()
    for row in range(rows):  # top row first: cards are read like text
        y = y0 + (rows - 1 - row) * (h + gap)
        bottom = bleed if row == rows - 1 else inner
        top = bleed if row == 0 else inner
        cut_ys.update((round(y, 4), round(y + h, 4)))
        for col in range(cols):
            x = x0 + col * (unit_w + gap)
            left = bleed if col == 0 else inner
            right = bleed if col == cols - 1 else inner
            if options.fold:
                fronts.append(Slot(x, y, w, h, (left, bottom, 0.0, top)))
                backs.append(Slot(x + w, y, w, h, (0.0, bottom, right, top)))
                folds.append(round(x + w, 4))
                cut_xs.update((round(x, 4), round(x + 2 * w, 4)))
                continue
            front = Slot(x, y, w, h, (left, bottom, right, top))
            fronts.append(front)
            backs.append(_behind(front, page_w, page_h, options))
            cut_xs.update((round(x, 4), round(x + w, 4)))
    block = (x0, y0, x0 + block_w, y0 + block_h)
    marks = (_mark_room(x0, options), _mark_room(y0, options)) if options.crop_marks else (0.0, 0.0)
    return Sheet(page_w, page_h, orientation, tuple(fronts), tuple(backs), tuple(sorted(cut_xs)),
                 tuple(sorted(cut_ys)), block, tuple(folds), marks)


def _behind(front: Slot, page_w: float, page_h: float, options: DeckOptions) -> Slot:
    """Where the back of a card goes on the back page so that it sits behind the front.

    Long edge: the sheet turns about its vertical axis, so the back page is the front
    mirrored left to right. Short edge: it turns about its horizontal axis, so the back page
    is mirrored top to bottom and every back is drawn upside down (which is the long-edge
    back page turned by 180°). The front/back offset moves everything on the back page.
    """
    left, bottom, right, top = front.bleed
    dx, dy = options.back_offset
    if options.duplex == "short":
        return Slot(front.x + dx, page_h - front.y - front.h + dy, front.w, front.h,
                    (left, top, right, bottom), rotate=180)
    return Slot(page_w - front.x - front.w + dx, front.y + dy, front.w, front.h,
                (right, bottom, left, top))


def _mark_room(edge: float, options: DeckOptions) -> float:
    """How long crop marks can be between the grid and the paper's margin."""
    room = edge - options.margin - options.mark_offset
    length = min(options.crop_length, room)
    return length if length >= MIN_MARK else 0.0
