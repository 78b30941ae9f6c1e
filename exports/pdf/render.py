"""The deck renderer: walks the layouts (exports.pdf.layouts) over the imposed sheets.

    renderer = DeckRenderer(pack, options)      # checks every text first (DeckError)
    report = renderer.render(out)               # writes the PDF to a binary file object

Parts of a card that are the same on every card (backgrounds, frames, labels, whole common
backs) are drawn once per deck into a form XObject; pictures are embedded once each and
placed through forms too. Only the card's own texts are laid out per card.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, BinaryIO

from reportlab.pdfgen.canvas import Canvas

from exports.packs import pack_edition
from exports.pdf import imposition, layouts, pages
from exports.pdf.cards import Card, Group, fallback_labels, groups_of, text_values
from exports.pdf.common import GAME_TITLES, MM, colour
from exports.pdf.drawing import CardPainter
from exports.pdf.fonts import describe_chars, fonts, right_to_left
from exports.pdf.layouts import REF_H, REF_SAFE, REF_W, Design, Face
from exports.pdf.options import DeckOptions
from exports.pdf.streaming import finish, streaming_canvas

MARK_WIDTH = 0.3  # pt: crop marks (print shops ask for at least 0.25 pt)
OPTIONAL_TEXTS = {"extra_mark", "effect_badge"}  # may be empty on purpose


class DeckError(Exception):
    """The deck cannot be printed; ``problems`` names every card and what is wrong with it."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        shown = "\n  ".join(problems[:10])
        more = f"\n  … and {len(problems) - 10} more" if len(problems) > 10 else ""
        super().__init__(f"The deck cannot be printed ({len(problems)} problems):\n  {shown}{more}")


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one side of one card went (trim box in mm, page numbers from 1)."""

    key: str
    group: str
    side: str
    page: int
    x: float
    y: float
    w: float
    h: float
    rotate: int


@dataclass
class RenderReport:
    pages: int = 0
    cards: int = 0
    per_sheet: int = 0
    orientation: str = "portrait"
    page_size: tuple[float, float] = (0.0, 0.0)    # mm, of the card sheets
    warnings: list[str] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    placements: list[Placement] = field(default_factory=list)


class Geometry:
    """Maps the reference card (63 × 88 mm, safe zone 4 mm) onto the chosen card, in points."""

    def __init__(self, options: DeckOptions) -> None:
        self.w, self.h = options.size
        self.safe = options.safe
        self.bleed = options.bleed
        self.scale = min((self.w - 2 * self.safe) / (REF_W - 2 * REF_SAFE),
                         (self.h - 2 * self.safe) / (REF_H - 2 * REF_SAFE))
        self._boxes: dict[Any, tuple[float, float, float, float]] = {}

    def _axis(self, u: float, ref: float, real: float) -> float:
        s, r = self.safe, REF_SAFE
        if u <= r:
            return u * s / r
        if u >= ref - r:
            return real - (ref - u) * s / r
        return s + (u - r) * (real - 2 * s) / (ref - 2 * r)

    def box(self, ref_box: tuple[float, float, float, float], *, bleed: bool = False
            ) -> tuple[float, float, float, float]:
        """(x, y, w, h) in pt from the card's bottom-left trim corner."""
        key = (ref_box, bleed)
        found = self._boxes.get(key)
        if found is None:
            found = self._boxes[key] = self._box(ref_box, bleed)
        return found

    def _box(self, ref_box: tuple[float, float, float, float], bleed: bool
             ) -> tuple[float, float, float, float]:
        x, y, w, h = ref_box
        x0, x1 = self._axis(x, REF_W, self.w), self._axis(x + w, REF_W, self.w)
        top, bottom = self._axis(y, REF_H, self.h), self._axis(y + h, REF_H, self.h)
        y0, y1 = self.h - bottom, self.h - top
        if bleed:
            b = self.bleed
            x0 -= b if x <= 0 else 0
            x1 += b if x + w >= REF_W else 0
            y1 += b if y <= 0 else 0
            y0 -= b if y + h >= REF_H else 0
        return x0 * MM, y0 * MM, (x1 - x0) * MM, (y1 - y0) * MM


class DeckRenderer(CardPainter):
    def __init__(self, pack: dict[str, Any], options: DeckOptions, *,
                 pictures: Callable[[str], bytes | None] | None = None) -> None:
        self.pack = pack
        self.options = options
        self.fonts = fonts()
        self.designs = layouts.designs_for(pack)
        self.groups = groups_of(pack, options.selection)
        self.geometry = Geometry(options)
        self.sheet = imposition.sheet(options)
        self._pictures = pictures
        self.report = RenderReport(per_sheet=self.sheet.per_sheet, orientation=self.sheet.orientation,
                                   page_size=(self.sheet.width, self.sheet.height))
        self.report.counts = {g.name: g.count for g in self.groups}
        self.report.cards = sum(g.count for g in self.groups)
        self._forms: dict[Any, str | None] = {}
        self._drawers: dict[type, Callable[[Any, Card | None], None]] = {}
        self._dynamic: dict[tuple[str, str], tuple[layouts.Element, ...]] = {}
        self._page_frames: dict[Any, Any] = {}
        self._dpi_checked: set[tuple[str, str]] = set()
        self.record = False
        self.canvas: Canvas | None = None
        self._preflight()

    # --- checks before anything is drawn -------------------------------------------------

    def _field_fonts(self, design: Design) -> dict[str, set[str]]:
        roles: dict[str, set[str]] = {}
        for face in (design.front, design.back):
            for element in face.elements:
                if isinstance(element, layouts.Text) and element.field:
                    roles.setdefault(element.field, set()).add(element.font)
                elif isinstance(element, layouts.Options):
                    roles.setdefault(element.field, set()).update({"regular", "bold"})
        return roles

    def _preflight(self) -> None:
        problems: list[str] = []
        warnings = self.report.warnings
        fallbacks = fallback_labels(self.pack)
        self.report.fallbacks = fallbacks
        if fallbacks:
            language = self.pack["language"]
            message = (f"{len(fallbacks)} texts have no '{language}' translation and would be "
                       f"printed in German: " + "; ".join(fallbacks[:10])
                       + (f"; … and {len(fallbacks) - 10} more" if len(fallbacks) > 10 else ""))
            (problems if self.options.strict else warnings).append(message)
        if not self.groups:
            problems.append("There are no cards to print (nothing selected, or the pack is empty).")
        checked_pictures: set[str] = set()
        for group in self.groups:
            roles = self._field_fonts(self.designs[group.name])
            for card in group.cards():
                for name in group.texts:
                    for text in text_values(card.fields.get(name)):
                        self._check_text(card, name, text, roles.get(name, {"regular"}),
                                         problems, warnings)
                picture = card.fields.get("picture")
                if isinstance(picture, dict) and picture.get("sha256") not in checked_pictures:
                    checked_pictures.add(picture.get("sha256", ""))
                    self._check_picture(card, picture, problems)
        if problems:
            raise DeckError(problems)

    def _check_picture(self, card: Card, picture: dict[str, Any], problems: list[str]) -> None:
        """A picture that is not the one the pack names, or does not decode, stops the deck
        here with the card's name, before anything is drawn (never a half-written PDF)."""
        from cards.pictures import PictureError, check_stored_picture
        from exports.errors import PackError

        try:
            data = self._picture_data(picture, card.label)
            if data is not None:
                check_stored_picture(data, label=card.label)
        except (PackError, PictureError) as exc:
            problems.append(str(exc))

    def _check_text(self, card: Card, name: str, text: str, roles: set[str],
                    problems: list[str], warnings: list[str]) -> None:
        if not text.strip():
            if name not in OPTIONAL_TEXTS:
                warnings.append(f"{card.label}: the {name} is empty; the card shows nothing there.")
            return
        if text.isascii() and text.isprintable():
            return
        for role in sorted(roles):
            missing = self.fonts[role].missing(text)
            if missing:
                problems.append(f"{card.label}: the font ({self.fonts[role].path.name}) has no "
                                f"glyph for {describe_chars(missing)} in “{text[:60]}”.")
                return
        if right_to_left(text):
            problems.append(f"{card.label}: “{text[:60]}” is right-to-left text, which the PDF "
                            "renderer cannot set yet (it would print the letters in the wrong "
                            "order).")

    def _warn(self, message: str) -> None:
        self.report.warnings.append(message)

    # --- the document ---------------------------------------------------------------------

    def _metadata(self, canvas: Canvas) -> None:
        pack = self.pack
        game, language, version = pack["game"], pack_edition(pack), pack["content_version"]
        release = "draft" if version == "draft" else f"release {version}"
        canvas.setTitle(f"{GAME_TITLES.get(game, game)} ({language}, {release}): printable deck")
        canvas.setAuthor("Kartothek")
        canvas.setCreator("Kartothek render_deck")
        canvas.setSubject(f"game={game}; language={language}; release={version}; "
                          f"pack sha256={pack['sha256']}")
        canvas.setKeywords(f"kartothek, {game}, {language}, {release}")

    def render(self, out: BinaryIO, *, record: bool = False) -> RenderReport:
        """The whole deck as set out in the options, written to ``out``."""
        self.record = record
        sheet = self.sheet
        canvas = self.canvas = streaming_canvas(out, (sheet.width * MM, sheet.height * MM),
                                                self.fonts["regular"].name)
        self._metadata(canvas)
        sides = self.options.sides
        for group in self.groups:
            if self.options.layout == "single":
                self._single_pages(group, ("front",) if sides == "none" else ("front", "back"))
            elif sides == "fold":
                self._fold_sheets(group)
            elif sides.startswith("duplex"):
                for chunk in _chunks(group.cards(), sheet.per_sheet):
                    self._sheet_page(group, chunk, "front")
                    self._sheet_page(group, chunk, "back")
            else:
                for chunk in _chunks(group.cards(), sheet.per_sheet):
                    self._sheet_page(group, chunk, "front")
                if sides == "separate":
                    for chunk in _chunks(group.cards(), sheet.per_sheet):
                        self._sheet_page(group, chunk, "back")
        if self.options.contents_page and self.options.layout == "sheets":
            before = canvas.getPageNumber()
            pages.front_matter(self)
            added = canvas.getPageNumber() - before
            canvas._doc.move_last_pages_to_front(added)
            for placement in self.report.placements:
                object.__setattr__(placement, "page", placement.page + added)
        self.report.pages = canvas.getPageNumber() - 1
        finish(canvas)
        self.canvas = None
        return self.report

    def render_faces(self, out: BinaryIO, group: str, side: str, *, bleed: bool,
                     limit: int | None = None) -> int:
        """One page per card of a group, one side only (raster exports); returns pages."""
        chosen = next(g for g in self.groups if g.name == group)
        canvas = self.canvas = streaming_canvas(out, (1, 1), self.fonts["regular"].name)
        self._metadata(canvas)
        count = 0
        for card in islice(chosen.cards(), limit):
            self._card_page(chosen, card, side, bleed=bleed)
            count += 1
        finish(canvas)
        self.canvas = None
        return count

    # --- pages --------------------------------------------------------------------------

    def _set_boxes(self, slots: list[imposition.Slot], width: float, height: float) -> None:
        canvas = self.canvas
        assert canvas is not None
        key = ("boxes", tuple(slots), width, height)
        boxes = self._page_frames.get(key)
        if boxes is None:
            trim = (min(s.x for s in slots), min(s.y for s in slots),
                    max(s.x + s.w for s in slots), max(s.y + s.h for s in slots))
            bleed = (min(s.bleed_box[0] for s in slots), min(s.bleed_box[1] for s in slots),
                     max(s.bleed_box[2] for s in slots), max(s.bleed_box[3] for s in slots))
            boxes = self._page_frames[key] = ([round(v * MM, 3) for v in trim],
                                              [round(max(0.0, v) * MM, 3) for v in bleed])
        size = (width * MM, height * MM)
        if canvas._pagesize != size:
            canvas.setPageSize(size)
        canvas.setTrimBox(boxes[0])
        canvas.setBleedBox(boxes[1])

    def _single_pages(self, group: Group, sides: tuple[str, ...]) -> None:
        for card in group.cards():
            for side in sides:
                self._card_page(group, card, side, bleed=True)

    def _card_page(self, group: Group, card: Card, side: str, *, bleed: bool) -> None:
        canvas = self.canvas
        assert canvas is not None
        w, h = self.options.size
        b = self.options.bleed if bleed else 0.0
        slot = imposition.Slot(b, b, w, h, (b, b, b, b))
        self._set_boxes([slot], w + 2 * b, h + 2 * b)
        self._draw_card(group, card, side, slot)
        canvas.showPage()

    def _sheet_page(self, group: Group, cards: list[Card], side: str) -> None:
        canvas = self.canvas
        assert canvas is not None
        slots = list(self.sheet.fronts if side == "front" else self.sheet.backs)[: len(cards)]
        self._set_boxes(slots, self.sheet.width, self.sheet.height)
        for card, slot in zip(cards, slots, strict=False):
            self._draw_card(group, card, side, slot)
        self._marks(slots)
        canvas.showPage()

    def _fold_sheets(self, group: Group) -> None:
        canvas = self.canvas
        assert canvas is not None
        for chunk in _chunks(group.cards(), self.sheet.per_sheet):
            fronts = list(self.sheet.fronts[: len(chunk)])
            backs = list(self.sheet.backs[: len(chunk)])
            self._set_boxes(fronts + backs, self.sheet.width, self.sheet.height)
            for card, front, back in zip(chunk, fronts, backs, strict=False):
                self._draw_card(group, card, "front", front)
                self._draw_card(group, card, "back", back)
            self._marks(fronts + backs)
            canvas.saveState()
            canvas.setStrokeColor(colour("#7a7a7a"))
            canvas.setLineWidth(0.4)
            canvas.setDash(3, 2)
            for front in fronts:
                x = (front.x + front.w) * MM
                canvas.line(x, (front.y - 2) * MM, x, (front.y + front.h + 2) * MM)
            canvas.restoreState()
            canvas.showPage()

    def _marks(self, slots: list[imposition.Slot]) -> None:
        """Crop marks in the margin around the cards, and cut lines across the sheet."""
        options, canvas = self.options, self.canvas
        assert canvas is not None
        if not (options.crop_marks or options.cut_lines):
            return
        key = ("marks", tuple(slots))
        lines = self._page_frames.get(key)
        if lines is None:
            lines = self._page_frames[key] = self._mark_lines(slots)
        cuts, marks = lines
        canvas.saveState()
        if cuts:
            canvas.setStrokeColor(colour("#9a9a9a"))
            canvas.setLineWidth(0.25)
            canvas.setDash(2, 2)
            canvas.lines(cuts)
            canvas.setDash()
        if marks:
            canvas.setStrokeColor(colour("#000000"))
            canvas.setLineWidth(MARK_WIDTH)
            canvas.lines(marks)
        canvas.restoreState()

    def _mark_lines(self, slots: list[imposition.Slot]
                    ) -> tuple[list[tuple[float, ...]], list[tuple[float, ...]]]:
        """(cut lines, crop marks) in pt for the cards in ``slots``."""
        options = self.options
        cuts: list[tuple[float, ...]] = []
        folds = set(self.sheet.fold_xs)
        xs = sorted({round(v, 4) for s in slots for v in (s.x, s.x + s.w)} - folds)
        ys = sorted({round(v, 4) for s in slots for v in (s.y, s.y + s.h)})
        x0, x1 = min(s.bleed_box[0] for s in slots), max(s.bleed_box[2] for s in slots)
        y0, y1 = min(s.bleed_box[1] for s in slots), max(s.bleed_box[3] for s in slots)
        if options.cut_lines:
            m = options.margin
            cuts.extend((x * MM, m * MM, x * MM, (self.sheet.height - m) * MM) for x in xs)
            cuts.extend((m * MM, y * MM, (self.sheet.width - m) * MM, y * MM) for y in ys)
        lines = []
        if options.crop_marks:
            trim_x0, trim_x1 = xs[0], xs[-1]
            trim_y0, trim_y1 = ys[0], ys[-1]
            offset = options.mark_offset
            side_len, top_len = self.sheet.mark_length
            if top_len:
                start_top = max(trim_y1 + offset, y1)
                start_bottom = min(trim_y0 - offset, y0)
                for x in xs:
                    lines.append((x, start_top, x, start_top + top_len))
                    lines.append((x, start_bottom, x, start_bottom - top_len))
            if side_len:
                start_right = max(trim_x1 + offset, x1)
                start_left = min(trim_x0 - offset, x0)
                for y in ys:
                    lines.append((start_right, y, start_right + side_len, y))
                    lines.append((start_left, y, start_left - side_len, y))
        return cuts, [tuple(v * MM for v in line) for line in lines]

    # --- one card -----------------------------------------------------------------------

    def _draw_card(self, group: Group, card: Card, side: str, slot: imposition.Slot) -> None:
        canvas = self.canvas
        assert canvas is not None
        design = self.designs[group.name]
        face = design.front if side == "front" else design.back
        form = self._static_form(design, side, face)
        canvas.saveState()
        if slot.rotate == 180:
            canvas.translate((slot.x + slot.w) * MM, (slot.y + slot.h) * MM)
            canvas.rotate(180)
            right, top, left, bottom = slot.bleed
        else:
            canvas.translate(slot.x * MM, slot.y * MM)
            left, bottom, right, top = slot.bleed
        full = self.options.bleed
        if min(left, bottom, right, top) < full:
            path = canvas.beginPath()
            path.rect(-left * MM, -bottom * MM, (slot.w + left + right) * MM,
                      (slot.h + bottom + top) * MM)
            canvas.clipPath(path, stroke=0, fill=0)
        if form:
            canvas.doForm(form)
        if side == "front" or design.back_varies:
            dynamic = self._dynamic.get((design.group, side))
            if dynamic is None:
                dynamic = self._dynamic[(design.group, side)] = face.dynamic
            for element in dynamic:
                self._draw(element, card)
        canvas.restoreState()
        if self.record:
            self.report.placements.append(Placement(card.key, group.name, side,
                                                    canvas.getPageNumber(), slot.x, slot.y,
                                                    slot.w, slot.h, slot.rotate))

    def _static_form(self, design: Design, side: str, face: Face) -> str | None:
        key = (design.group, side)
        if key in self._forms:
            return self._forms[key]
        elements = face.static if (side == "front" or design.back_varies) else face.elements
        name = f"card-{design.group}-{side}" if elements else None
        self._forms[key] = name
        if name is None:
            return None
        canvas = self.canvas
        assert canvas is not None
        b = self.options.bleed * MM
        w, h = self.options.size
        canvas.beginForm(name, -b, -b, w * MM + b, h * MM + b)
        for element in elements:
            self._draw(element, None)
        canvas.endForm()
        return name


def _chunks(cards: Iterable[Card], size: int) -> Iterator[list[Card]]:
    iterator = iter(cards)
    while chunk := list(islice(iterator, size)):
        yield chunk


def render_deck(pack: dict[str, Any], options: DeckOptions, out: BinaryIO, *,
                pictures: Callable[[str], bytes | None] | None = None,
                record: bool = False) -> RenderReport:
    """Check the pack's texts, then write the deck as a PDF to ``out``."""
    return DeckRenderer(pack, options, pictures=pictures).render(out, record=record)
