"""Drawing a card's elements: fills, frames, discs, patterns, fitted texts, answer options,
pictures and icons, each placed through the reference card's geometry. ``CardPainter`` is the
part of the deck renderer (exports/pdf/render.py) that draws; the renderer holds the canvas,
the geometry, the fonts and the report it draws with.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from reportlab.lib.colors import Color
from reportlab.lib.utils import ImageReader

from exports.pdf import layouts
from exports.pdf.cards import Card
from exports.pdf.common import MM, PICTURE_DPI, colour
from exports.pdf.fonts import Font
from exports.pdf.text import Fitted, fit


class CardPainter:
    """Mixed into ``DeckRenderer``: the elements of one card, drawn on ``self.canvas``."""

    canvas: Any
    geometry: Any
    fonts: Any
    report: Any
    options: Any
    _pictures: Any
    _drawers: dict[type, Callable[[Any, Card | None], None]]
    _dpi_checked: set[tuple[str, str]]
    _forms: dict[Any, str | None]

    # --- elements -----------------------------------------------------------------------

    def _draw(self, element: layouts.Element, card: Card | None) -> None:
        kind = type(element)
        draw = self._drawers.get(kind)
        if draw is None:
            draw = self._drawers[kind] = getattr(self, f"_draw_{kind.__name__.lower()}")
        draw(element, card)

    def _colour_of(self, element: Any, card: Card | None) -> Color:
        if element.colour_field and card is not None:
            return colour(card.fields[element.colour_field], getattr(element, "tint", 1.0))
        return colour(element.colour, getattr(element, "tint", 1.0))

    def _draw_fill(self, element: layouts.Fill, card: Card | None) -> None:
        canvas = self.canvas
        assert canvas is not None
        x, y, w, h = self.geometry.box(element.box, bleed=not element.radius)
        canvas.setFillColor(self._colour_of(element, card))
        if element.radius:
            canvas.roundRect(x, y, w, h, element.radius * MM * self.geometry.scale, stroke=0, fill=1)
        else:
            canvas.rect(x, y, w, h, stroke=0, fill=1)

    def _draw_frame(self, element: layouts.Frame, card: Card | None) -> None:
        canvas = self.canvas
        assert canvas is not None
        x, y, w, h = self.geometry.box(element.box)
        canvas.saveState()
        canvas.setStrokeColor(self._colour_of(element, card))
        canvas.setLineWidth(element.width)
        if element.dash:
            canvas.setDash(list(element.dash))
        if h == 0 or w == 0:
            canvas.line(x, y, x + w, y + h)
        elif element.radius:
            canvas.roundRect(x, y, w, h, element.radius * MM * self.geometry.scale, stroke=1, fill=0)
        else:
            canvas.rect(x, y, w, h, stroke=1, fill=0)
        canvas.restoreState()

    def _draw_disc(self, element: layouts.Disc, card: Card | None) -> None:
        canvas = self.canvas
        assert canvas is not None
        cx, cy = element.centre
        x, y, _, _ = self.geometry.box((cx, cy, 0, 0))
        canvas.setFillColor(colour(element.colour))
        canvas.circle(x, y, element.radius * MM * self.geometry.scale, stroke=0, fill=1)

    def _draw_pattern(self, element: layouts.Pattern, card: Card | None) -> None:
        canvas = self.canvas
        assert canvas is not None
        x, y, w, h = self.geometry.box(element.box, bleed=True)
        font = self.fonts[element.font]
        step = element.step * MM * self.geometry.scale
        size = element.size * self.geometry.scale
        glyph_w = font.width(element.glyph) * size
        canvas.setFillColor(colour(element.colour))
        canvas.setFont(font.name, size)
        row = 0
        cy = y + h / 2
        while cy - step * row > y - step or cy + step * row < y + h + step:
            for yy in {cy - step * row, cy + step * row}:
                shift = step / 2 if row % 2 else 0.0
                cx = x + w / 2 + shift
                col = 0
                while cx - step * col > x - step:
                    for xx in {cx - step * col, cx + step * col}:
                        canvas.drawString(xx - glyph_w / 2, yy - size * 0.35, element.glyph)
                    col += 1
            row += 1

    def _draw_text(self, element: layouts.Text, card: Card | None) -> None:
        if element.field is not None:
            if card is None:
                return
            text = card.fields.get(element.field) or ""
        else:
            text = element.literal or ""
        if not text:
            return
        font = self.fonts[element.font]
        x, y, w, h = self.geometry.box(element.box)
        size = element.size * self.geometry.scale
        if element.spacing:
            self._spaced_label(element, text, font, (x, y, w, h), size)
            return
        fitted = fit(text, font, w, h, size, min(size, self.options.min_font_size),
                     leading=element.leading, max_lines=element.max_lines)
        if fitted.truncated and card is not None:
            self._warn(f"{card.label}: the {element.field} does not fit its box even at "
                       f"{fitted.size:g} pt and was cut short: “{text[:50]}”.")
        self._set_lines(fitted, font, self._colour_of(element, card), (x, y, w, h),
                        element.align, element.valign, element.rotate)

    def _set_lines(self, fitted: Fitted, font: Font, ink: Color,
                   box: tuple[float, float, float, float], align: str, valign: str,
                   rotate: int) -> None:
        canvas = self.canvas
        assert canvas is not None
        x, y, w, h = box
        if rotate:
            canvas.saveState()
            canvas.translate(x + w / 2, y + h / 2)
            canvas.rotate(rotate)
            x, y = -w / 2, -h / 2
        size = fitted.size
        block = size * (font.ascent - font.descent) + (len(fitted.lines) - 1) * fitted.leading
        if valign == "top":
            top = y + h
        elif valign == "bottom":
            top = y + block
        else:
            top = y + h - (h - block) / 2
        baseline = top - size * font.ascent
        canvas.setFillColor(ink)
        canvas.setFont(font.name, size)
        for line, width in zip(fitted.lines, fitted.widths, strict=True):
            if align == "left":
                lx = x
            elif align == "right":
                lx = x + w - width
            else:
                lx = x + (w - width) / 2
            if line:
                canvas.drawString(lx, baseline, line)
            baseline -= fitted.leading
        if rotate:
            canvas.restoreState()

    def _spaced_label(self, element: layouts.Text, text: str, font: Font,
                      box: tuple[float, float, float, float], size: float) -> None:
        canvas = self.canvas
        assert canvas is not None
        x, y, w, h = box
        spacing = element.spacing * self.geometry.scale
        width = font.width(text) * size + spacing * (len(text) - 1)
        if width > w:
            size *= w / width
            spacing *= w / width
            width = w
        obj = canvas.beginText()
        obj.setFont(font.name, size)
        obj.setCharSpace(spacing)
        obj.setFillColor(colour(element.colour))
        baseline = y + h / 2 - size * (font.ascent + font.descent) / 2
        obj.setTextOrigin(x + (w - width) / 2, baseline)
        obj.textOut(text)
        canvas.drawText(obj)

    def _draw_options(self, element: layouts.Options, card: Card | None) -> None:
        """Four options in four rows; the correct one in bold, starred, in the accent colour."""
        if card is None:
            return
        options: list[tuple[str, bool]] = card.fields.get(element.field) or []
        if not options:
            return
        x, y, w, h = self.geometry.box(element.box)
        regular, bold = self.fonts["regular"], self.fonts["bold"]
        size = element.size * self.geometry.scale
        star_w = bold.width(element.star + " ") * size
        row_h = h / len(options)
        smallest = min(size, self.options.min_font_size)
        fits = [fit(text, bold if correct else regular, w - star_w, row_h, size, smallest, leading=1.1)
                for text, correct in options]
        common = min(f.size for f in fits)
        if any(f.size != common for f in fits):
            fits = [fit(text, bold if correct else regular, w - star_w, row_h, common, smallest,
                        leading=1.1) for text, correct in options]
        for i, ((text, correct), fitted) in enumerate(zip(options, fits, strict=True)):
            if fitted.truncated:
                self._warn(f"{card.label}: option “{text[:50]}” does not fit its line and was cut short.")
            row_y = y + h - (i + 1) * row_h
            font = bold if correct else regular
            ink = colour(element.accent if correct else element.colour)
            if correct:
                self._set_lines(Fitted((element.star,), (star_w,), fitted.size, fitted.leading, False),
                                bold, ink, (x, row_y, star_w, row_h), "left", "middle", 0)
            self._set_lines(fitted, font, ink, (x + star_w, row_y, w - star_w, row_h),
                            "left", "middle", 0)

    # --- pictures -----------------------------------------------------------------------

    def _picture_data(self, picture: dict[str, Any], label: str = "a symbol") -> bytes | None:
        """The picture's bytes, checked against the sha256 the pack names (PackError if not)."""
        from exports.errors import PackError
        from exports.packs import picture_bytes, sha256

        if picture.get("data"):
            try:
                data: bytes | None = base64.b64decode(picture["data"], validate=True)
            except ValueError:
                raise PackError(f"{label}: the picture inside the pack is not base64.") from None
        elif self._pictures is not None:
            data = self._pictures(picture["sha256"])
        else:
            data = picture_bytes(picture["sha256"])
        if data is not None and sha256(data) != picture["sha256"]:
            raise PackError(f"{label}: its picture does not match the sha256 the pack names.")
        return data

    def _image_form(self, key: Any, load: Callable[[], bytes | None]) -> tuple[str, int, int] | None:
        """A form holding one picture in a 1 × 1 box; made once, placed scaled."""
        if key in self._forms:
            return self._forms[key]  # type: ignore[return-value]
        data = load()
        if data is None:
            self._forms[key] = None
            return None
        reader = ImageReader(io.BytesIO(data))
        px_w, px_h = reader.getSize()
        name = "pic-" + "-".join(str(part) for part in key).replace("#", "")
        canvas = self.canvas
        assert canvas is not None
        canvas.beginForm(name, 0, 0, 1, 1)
        canvas.drawImage(reader, 0, 0, 1, 1, mask="auto")
        canvas.endForm()
        self._forms[key] = (name, px_w, px_h)
        return self._forms[key]  # type: ignore[return-value]

    def _place_image(self, form: tuple[str, int, int], box: tuple[float, float, float, float],
                     card: Card | None, what: str) -> None:
        canvas = self.canvas
        assert canvas is not None
        name, px_w, px_h = form
        x, y, w, h = box
        vector = px_w == 0
        if vector:
            px_w = px_h = 1
        scale = min(w / px_w, h / px_h)
        dw, dh = px_w * scale, px_h * scale
        dpi = px_w / (dw / 72)
        low = not vector and dpi < PICTURE_DPI - 0.5
        if low and card is not None and (card.key, what) not in self._dpi_checked:
            self._dpi_checked.add((card.key, what))
            self._warn(f"{card.label}: the {what} is {px_w} × {px_h} px, only {dpi:.0f} dpi at "
                       f"{dw / MM:.0f} mm wide ({PICTURE_DPI} dpi wanted for print).")
        canvas.saveState()
        canvas.translate(x + (w - dw) / 2, y + (h - dh) / 2)
        canvas.scale(dw, dh)
        canvas.doForm(name)
        canvas.restoreState()

    def _draw_picture(self, element: layouts.Picture, card: Card | None) -> None:
        if card is None:
            return
        box = self.geometry.box(element.box)
        picture = card.fields.get(element.field)
        form = None
        if picture:
            form = self._image_form(("tile", picture["sha256"][:16]),
                                    lambda: self._picture_data(picture, card.label))
        if form is None and card.fields.get("icon"):
            form = self._icon_form(card.fields["icon"], layouts.NAVY)
        if form is None:
            if ("missing", card.key) not in self._dpi_checked:
                self._dpi_checked.add(("missing", card.key))
                self._warn(f"{card.label}: has no picture; the card shows its name only.")
            return
        self._place_image(form, box, card, "picture")

    def _icon_form(self, icon: str, ink: str) -> tuple[str, int, int] | None:
        """A Tabler icon as vectors (svglib) in the given colour, in a 1 × 1 form."""
        key = ("icon", icon, ink.lower())
        if key in self._forms:
            return self._forms[key]  # type: ignore[return-value]
        drawing = _icon_drawing(icon, ink)
        if drawing is None:
            self._forms[key] = None
            return None
        from reportlab.graphics import renderPDF

        canvas = self.canvas
        assert canvas is not None
        name = f"icon-{icon}-{ink.lower().lstrip('#')}"
        canvas.beginForm(name, 0, 0, 1, 1)
        canvas.scale(1 / drawing.width, 1 / drawing.height)
        renderPDF.draw(drawing, canvas, 0, 0)
        canvas.endForm()
        self._forms[key] = (name, 0, 0)
        return self._forms[key]  # type: ignore[return-value]

    def _draw_icon(self, element: layouts.Icon, card: Card | None) -> None:
        if card is None:
            return
        box = self.geometry.box(element.box)
        icon, ink = card.fields.get(element.field), card.fields[element.colour_field]
        form = self._icon_form(icon, ink) if icon else None
        if form is None:
            # no picture for this symbol: its name, large, in the colour
            font = self.fonts["bold"]
            _x, _y, w, h = box
            fitted = fit(card.fields.get("symbol_name", ""), font, w, h, 30 * self.geometry.scale,
                         self.options.min_font_size)
            self._set_lines(fitted, font, colour(ink), box, "center", "middle", 0)
            return
        self._place_image(form, box, card, "symbol")


@lru_cache(maxsize=512)


def _icon_drawing(icon: str, ink: str) -> Any:
    """The Tabler outline icon as a reportlab drawing, strokes in ``ink``; None if unknown."""
    from django.core.exceptions import ValidationError
    from svglib.svglib import svg2rlg

    from cards.pictures import tabler_icon_path

    try:
        path = tabler_icon_path(icon)
    except ValidationError:
        return None
    svg = path.read_text(encoding="utf-8").replace("currentColor", ink)
    return svg2rlg(io.StringIO(svg))
