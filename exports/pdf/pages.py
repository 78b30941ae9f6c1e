"""The pages around the cards: contents (with the 100 % ruler) and the duplex calibration.

They are drawn after the cards (so the contents page can list every warning) and then moved
to the front of the document.
"""

from __future__ import annotations

from typing import Any, Protocol

from cards.models import MARKET_NAMES
from exports.pdf.common import GAME_TITLES, MAX_LISTED, MM, colour
from exports.pdf.options import INCH, PAPERS


class DeckRenderer(Protocol):
    """What these pages read of the deck renderer (exports/pdf/render.py), which calls them."""

    canvas: Any
    designs: Any
    fonts: Any
    options: Any
    pack: dict[str, Any]
    report: Any


INK, GREY, ACCENT = "#1f2a44", "#6b7280", "#c8102e"


def front_matter(renderer: DeckRenderer) -> None:
    """Contents page (and its blank back in duplex), then the calibration sheet if asked."""
    canvas = renderer.canvas
    assert canvas is not None
    options = renderer.options
    paper_w, paper_h = PAPERS[options.paper]
    canvas.setPageSize((paper_w * MM, paper_h * MM))
    canvas._trimBox = canvas._bleedBox = None
    contents(renderer, paper_w, paper_h)
    canvas.showPage()
    if options.duplex:
        canvas.showPage()  # the back of the contents page stays blank
        if options.calibration:
            calibration_front(renderer, paper_w, paper_h)
            canvas.showPage()
            calibration_back(renderer, paper_w, paper_h)
            canvas.showPage()


def _text(renderer: DeckRenderer, x: float, y: float, text: str, *, size: float = 9,
          role: str = "regular", ink: str = INK, anchor: str = "left") -> None:
    canvas = renderer.canvas
    assert canvas is not None
    font = renderer.fonts[role]
    canvas.setFont(font.name, size)
    canvas.setFillColor(colour(ink))
    width = font.width(text) * size
    dx = {"left": 0.0, "center": width / 2, "right": width}[anchor]
    canvas.drawString(x * MM - dx, y * MM, text)


def _wrapped(renderer: DeckRenderer, x: float, y: float, width: float, text: str, *,
             size: float = 8, role: str = "regular", ink: str = INK) -> float:
    """Text wrapped to ``width`` mm from baseline ``y``; returns the y below it."""
    from exports.pdf.text import wrap

    font = renderer.fonts[role]
    lines, _ = wrap([text], font, width * MM / size)
    for line in lines:
        _text(renderer, x, y, line, size=size, role=role, ink=ink)
        y -= size * 1.3 / MM
    return y


def _file_sha256(pack: dict[str, Any]) -> list[tuple[str, str]]:
    """The release file's sha256 (a release is stored as its canonical bytes), unless the
    pack is not a release as published (the draft, or a file with the pictures inside)."""
    from exports.packs import canonical, pictures_of, sha256

    if pack["content_version"] == "draft" or any("data" in p for p in pictures_of(pack)):
        return []
    return [("Release file sha256", sha256(canonical(pack)))]


def contents(renderer: DeckRenderer, paper_w: float, paper_h: float) -> None:

    canvas = renderer.canvas
    assert canvas is not None
    pack, options, report = renderer.pack, renderer.options, renderer.report
    left, y = 20.0, paper_h - 25
    title = GAME_TITLES.get(pack["game"], pack["game"])
    _text(renderer, left, y, f"{title}: printable deck", size=20, role="bold")
    y -= 9
    version = pack["content_version"]
    release = "draft (current content, not a release)" if version == "draft" else f"release {version}"
    rows: list[tuple[str, str]] = [
        ("Game", f"{title} ({pack['game']})"),
        ("Language", pack["language"]),
        *([("Market", f"{MARKET_NAMES.get(pack['market'], pack['market'])} only: the cards "
                      "known there")] if pack.get("market") else []),
        ("Content", release),
        # Named as the releases list names them: the content's digest is the same for the
        # draft and the release that holds it; the file's is the API's ETag for that release.
        ("Content sha256", pack["sha256"]),
        *_file_sha256(pack),
        ("Cards", ", ".join(f"{count} {renderer.designs[name].title.lower()}"
                            for name, count in report.counts.items())),
        *options.describe(),
        ("Sheets", f"{report.per_sheet} cards per sheet, {report.orientation}"),
        ("Pages", f"{canvas.getPageNumber() - 1 + _front_matter_pages(options)} in all; "
                  f"the card sheets start on page {_front_matter_pages(options) + 1}"),
    ]
    for name, value in rows:
        _text(renderer, left, y, name, size=8.5, role="bold", ink=GREY)
        role = "mono" if name.endswith("sha256") else "regular"
        y = _wrapped(renderer, left + 38, y, paper_w - left - 58, value, size=8.5, role=role) - 1.6
    y -= 4
    _text(renderer, left, y, "Before you print", size=11, role="bold")
    y -= 6
    advice = [
        "Print at 100 % (“actual size”, not “fit to page”). The ruler below must measure "
        "exactly 100 mm (4 inches on the lower one); if it does not, the cards will not be "
        "the size they should be.",
    ]
    if options.duplex:
        advice.append(
            f"Print double-sided, flipping on the {options.duplex} edge. Each sheet of fronts "
            "is followed by its sheet of backs, mirrored so that every back sits behind its "
            "front. If backs come out shifted, print the deck once more with the duplex "
            "calibration sheet (“Add a duplex calibration sheet” on the print page) and "
            "follow it."
        )
    elif options.fold:
        advice.append("Cut out each pair, fold along the dashed line (backs outwards) and glue.")
    if options.crop_marks:
        advice.append("Cut along the crop marks in the margins; the coloured edge beyond the "
                      "marks is bleed and is cut away.")
    for line in advice:
        y = _wrapped(renderer, left, y, paper_w - 2 * left, line, size=8.5) - 2
    y -= 4
    ruler(renderer, left, y)
    y -= 30
    problems = report.warnings
    if problems:
        _text(renderer, left, y, f"Warnings ({len(problems)})", size=11, role="bold", ink=ACCENT)
        y -= 6
        for message in problems[:MAX_LISTED]:
            if y < 20:
                _text(renderer, left, y, f"… and {len(problems) - problems.index(message)} more "
                                         "(the command prints them all).", size=7.5, ink=GREY)
                break
            y = _wrapped(renderer, left, y, paper_w - 2 * left, f"• {message}", size=7.5) - 0.8
    else:
        _text(renderer, left, y, "No warnings: every text fits and every translation is there.",
              size=8.5, ink=GREY)


def _front_matter_pages(options) -> int:  # type: ignore[no-untyped-def]
    pages = 1
    if options.duplex:
        pages += 1 + (2 if options.calibration else 0)
    return pages


def ruler(renderer: DeckRenderer, x: float, y: float) -> None:
    """A 100 mm bar with millimetre ticks, and a 4 inch bar with eighths, from (x, y) in mm."""
    canvas = renderer.canvas
    assert canvas is not None
    canvas.saveState()
    canvas.setStrokeColor(colour("#000000"))
    canvas.setLineWidth(0.4)
    canvas.line(x * MM, y * MM, (x + 100) * MM, y * MM)
    for mm in range(101):
        length = 4.0 if mm % 10 == 0 else 2.5 if mm % 5 == 0 else 1.5
        canvas.line((x + mm) * MM, y * MM, (x + mm) * MM, (y + length) * MM)
        if mm % 10 == 0:
            _text(renderer, x + mm, y + 5, str(mm), size=6, anchor="center")
    _text(renderer, x + 103, y, "100 mm", size=7, ink=GREY)
    yi = y - 14
    canvas.line(x * MM, yi * MM, (x + 4 * INCH) * MM, yi * MM)
    for eighth in range(33):
        length = 4.0 if eighth % 8 == 0 else 2.5 if eighth % 4 == 0 else 1.5
        xx = x + eighth * INCH / 8
        canvas.line(xx * MM, yi * MM, xx * MM, (yi + length) * MM)
        if eighth % 8 == 0:
            _text(renderer, xx, yi + 5, str(eighth // 8), size=6, anchor="center")
    _text(renderer, x + 4 * INCH + 3, yi, "4 in", size=7, ink=GREY)
    canvas.restoreState()


def calibration_front(renderer: DeckRenderer, paper_w: float, paper_h: float) -> None:
    """A cross through the middle of the sheet; the back shows scales where it should fall."""
    canvas = renderer.canvas
    assert canvas is not None
    cx, cy = paper_w / 2, paper_h / 2
    _text(renderer, 20, paper_h - 25, "Duplex calibration: front", size=16, role="bold")
    _wrapped(renderer, 20, paper_h - 34, paper_w - 40,
             "Print this page and the next one on one sheet, double-sided, with the settings you "
             f"will use for the deck ({renderer.options.duplex} edge). Hold the sheet against a "
             "light, look at the back, and read the scales there where this page's lines show "
             "through.", size=9)
    canvas.saveState()
    canvas.setLineWidth(0.35)
    canvas.setStrokeColor(colour("#000000"))
    canvas.line((cx - 40) * MM, cy * MM, (cx + 40) * MM, cy * MM)
    canvas.line(cx * MM, (cy - 40) * MM, cx * MM, (cy + 40) * MM)
    canvas.circle(cx * MM, cy * MM, 3 * MM, stroke=1, fill=0)
    canvas.restoreState()


def calibration_back(renderer: DeckRenderer, paper_w: float, paper_h: float) -> None:
    """Millimetre scales centred where the front's cross falls when front and back align."""
    canvas = renderer.canvas
    assert canvas is not None
    dx, dy = renderer.options.back_offset
    cx, cy = paper_w / 2 + dx, paper_h / 2 + dy
    _text(renderer, 20, paper_h - 25, "Duplex calibration: back", size=16, role="bold")
    _wrapped(renderer, 20, paper_h - 34, paper_w - 40,
             "Read where the front's vertical line crosses the horizontal scale (X) and where "
             "its horizontal line crosses the vertical scale (Y), in mm, as you see this side. "
             f"Print the deck with --back-offset X,Y added to the offset used now "
             f"({dx:+g},{dy:+g}). 0,0: front and back are aligned.", size=9)
    canvas.saveState()
    canvas.setLineWidth(0.3)
    canvas.setStrokeColor(colour(ACCENT))
    canvas.line((cx - 10) * MM, cy * MM, (cx + 10) * MM, cy * MM)
    canvas.line(cx * MM, (cy - 10) * MM, cx * MM, (cy + 10) * MM)
    for mm in range(-10, 11):
        length = 3.5 if mm % 5 == 0 else 2.0
        canvas.line((cx + mm) * MM, (cy - length / 2) * MM, (cx + mm) * MM, (cy + length / 2) * MM)
        canvas.line((cx - length / 2) * MM, (cy + mm) * MM, (cx + length / 2) * MM, (cy + mm) * MM)
        if mm % 5 == 0 and mm:
            _text(renderer, cx + mm, cy - 5, f"{mm:+d}", size=6, ink=ACCENT, anchor="center")
            _text(renderer, cx + 3, cy + mm - 0.8, f"{mm:+d}", size=6, ink=ACCENT)
    _text(renderer, cx + 12, cy - 1, "X", size=8, role="bold", ink=ACCENT)
    _text(renderer, cx - 1, cy + 12, "Y", size=8, role="bold", ink=ACCENT)
    canvas.restoreState()
