"""One card, front or back, as a PNG at screen size: the print layouts without the deck.

    png = card_preview("sauschwer", item_of(obj, "en"), "en", side="back", width_px=240)
    url = preview_url("sauschwer", "en", "ein-huehnerei", release=3, side="front")
    fit_problem(obj, "name", "en", "A far too long name …")   # a message, or None

A preview is drawn by the deck renderer itself (exports.pdf: ``groups_of`` → ``Card``,
``layouts.designs_for``, ``DeckRenderer``) from a pack of one card, so it looks exactly like
the print. The one-page PDF is rasterised in-process by pdfium (pypdfium2): a pdftoppm
subprocess costs more to start than the whole card takes to draw.

*Pack-form item*: what the renderer needs to draw one card, and nothing else, as a dict::

    {"group": "objects", "entry": {<the card as it is in the pack's body>}, "refs": {…}}

``refs`` holds what a card's entry only names: a Sign card's symbol and the deck's colours
(the Sign back shows every colour). Build one with ``exports.card_items.item_of`` (a saved
card, a slogan, an option…; or an object carrying unsaved values, with typed translations as ``overrides``),
``curation.card_previews.item_from_form`` (a change form's POST data, nothing saved) or
``exports.card_items.item_from_pack`` (a card of a release's pack). Previews are cached by a content hash of
(item, language, side, width, layout version), so an unchanged card is drawn once.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Model
from django.urls import reverse

from exports.card_items import BODY_LIST, GAME_GROUPS, GROUPS, item_from_pack, item_of, slogan_card_item
from exports.pdf import layouts
from exports.pdf.fonts import Font, fonts
from exports.pdf.options import DeckOptions
from exports.pdf.text import fit

DEFAULT_WIDTH = 240          # px: a card at about 1:1 on a screen at 96 dpi is 238 px wide
MIN_WIDTH, MAX_WIDTH = 48, 1000
SIDES = ("front", "back")
CACHE_SECONDS = 24 * 3600
OPTIONS = DeckOptions(layout="single", bleed=0.0, contents_page=False)

Pictures = Callable[[str], bytes | None]  # sha256 -> the picture's bytes, None if unknown


class PreviewError(Exception):
    """The card cannot be drawn (incomplete, a glyph no font has, unknown key…); the message
    says why in the curator's words."""


def _layout_files() -> list[Path]:
    base = Path(layouts.__file__).parent
    names = ("layouts.py", "render.py", "drawing.py", "common.py", "text.py", "fonts.py", "cards.py")
    return [base / name for name in names]


@lru_cache(maxsize=1)
def layout_version() -> str:
    """A digest of the code that decides how a card looks (the layouts, the renderer, the
    fonts' files): a change to any of them is a new version, so no stale preview is served."""
    digest = hashlib.sha256()
    for path in _layout_files():
        digest.update(path.read_bytes())
    for font in fonts().values():
        digest.update(f"{font.path}:{font.path.stat().st_size}".encode())
    return digest.hexdigest()[:16]


def _width(width_px: int) -> int:
    if not isinstance(width_px, int) or isinstance(width_px, bool):
        raise PreviewError(f"The preview width must be a whole number of pixels, not {width_px!r}.")
    if not MIN_WIDTH <= width_px <= MAX_WIDTH:
        raise PreviewError(f"The preview width must be {MIN_WIDTH}–{MAX_WIDTH} px, not {width_px}.")
    return width_px


def height_for(width_px: int) -> int:
    """The height in px of a card preview ``width_px`` wide (the poker card's proportions)."""
    width_mm, height_mm = OPTIONS.size
    return round(width_px * height_mm / width_mm)


def content_hash(game: str, item: Mapping[str, Any], language: str, side: str, width_px: int) -> str:
    """The cache key of a preview: everything that decides its pixels."""
    data = json.dumps([game, item, language, side, width_px, layout_version()],
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(data.encode()).hexdigest()


# --- the pack of one card --------------------------------------------------------------------


def _pack_of(game: str, item: Mapping[str, Any], language: str) -> dict[str, Any]:
    group = item.get("group")
    if group not in GROUPS or GROUPS[group][0] != game:
        raise PreviewError(f"A {game} card has no group '{group}'.")
    entry = dict(item["entry"])
    refs = item.get("refs") or {}
    if game == "symbols":
        body: dict[str, Any] = {"concepts": [], "symbols": []}
    elif game == "sign":
        body = {"symbols": list(refs.get("symbols", [])), "colours": list(refs.get("colours", [])),
                "cards": []}
    elif game == "slogan":
        body = {"cards": [], "alfons": []}
    else:
        body = {"cards": []}
    body[BODY_LIST[group]].append(entry)
    return {"game": game, "language": language, "content_version": "preview", "sha256": "",
            "body": body}


def _render_pdf(game: str, item: Mapping[str, Any], language: str, side: str,
                pictures: Pictures | None = None) -> bytes:
    """The one-page PDF of one side of the card (the deck renderer, trim size, no bleed)."""
    from exports.errors import PackError
    from exports.pdf import DeckError, DeckRenderer

    pack = _pack_of(game, item, language)
    try:
        renderer = DeckRenderer(pack, OPTIONS, pictures=pictures)
    except DeckError as exc:
        raise PreviewError(" ".join(exc.problems)) from None
    except (PackError, KeyError, ValueError, TypeError) as exc:
        raise PreviewError(f"This card cannot be drawn yet: {exc}") from None
    out = io.BytesIO()
    try:
        _draw_face(renderer, out, item["group"], side)
    except (KeyError, TypeError, ValueError) as exc:
        raise PreviewError(f"This card cannot be drawn: {exc}") from None
    return out.getvalue()


def _draw_face(renderer: Any, out: io.BytesIO, group_name: str, side: str) -> None:
    """``DeckRenderer.render_faces`` for one card, with uncompressed streams: this PDF never
    leaves the process, and zlib was a fifth of a preview's time."""
    from exports.pdf.streaming import finish, streaming_canvas

    group = next(g for g in renderer.groups if g.name == group_name)
    canvas = renderer.canvas = streaming_canvas(out, (1, 1), renderer.fonts["regular"].name)
    canvas.setPageCompression(0)
    canvas._doc.setCompression(0)
    for card in group.cards():
        renderer._card_page(group, card, side, bleed=False)
    finish(canvas)
    renderer.canvas = None


def rasterise(pdf: bytes, width_px: int) -> bytes:
    """The first page of ``pdf`` as a PNG ``width_px`` wide (PDFium, in this process).

    Drawn by the print-shop rasteriser (exports/pdf/raster.py), which calls PDFium only
    under its process-wide lock and leaves no PDFium object for Python's garbage collector
    to free later on some other thread: pypdfium2's wrappers free their bitmap in a
    finalizer, outside any lock, while another thread may be drawing a page.
    """
    from exports.pdf.raster import pdf_to_pngs

    width_mm = OPTIONS.size[0]
    pages = pdf_to_pngs(pdf, width_px, height_for(width_px), round(width_px / width_mm * 25.4))
    try:
        return next(pages)
    finally:
        pages.close()  # closes the document (under the lock) without drawing further pages


def card_preview(game: str, item: dict[str, Any], language: str, *, side: str = "front",
                 width_px: int = DEFAULT_WIDTH, pictures: Pictures | None = None) -> bytes:
    """One side of one card as PNG bytes, ``width_px`` wide, drawn as the deck prints it.

    ``item`` is a pack-form item (see the module docstring). Cached by ``content_hash``: the
    same card, language, side and width are drawn once. PreviewError (with a message for the
    curator) when the card cannot be drawn. ``pictures``: where the bytes of a picture the
    item names by sha256 come from (default: the stored tiles and packs), checked against it.
    """
    if side not in SIDES:
        raise PreviewError(f"A card has a front and a back, not a '{side}'.")
    if language not in settings.KARTOTHEK_LANGUAGES:
        raise PreviewError(f"'{language}' is not a configured language.")
    width_px = _width(width_px)
    key = "card-preview:" + content_hash(game, item, language, side, width_px)
    found = cache.get(key)
    if found is not None:
        return bytes(found)
    png = rasterise(_render_pdf(game, item, language, side, pictures), width_px)
    cache.set(key, png, CACHE_SECONDS)
    return png


# --- URLs ---------------------------------------------------------------------------------------


def group_of_key(game: str, key: str, release: int | None = None,
                 language: str | None = None) -> str | None:
    """Which card group of ``game`` holds ``key`` (now, or in release N of ``language``,
    the source language when not given)."""
    groups = GAME_GROUPS.get(game, ())
    if release is not None:
        return _release_groups(game, release, language or settings.KARTOTHEK_LANGUAGES[0]).get(key)
    if len(groups) == 1:
        return groups[0] if _model_of(groups[0])._default_manager.filter(key=key).exists() else None
    for group in groups:
        if _model_of(group)._default_manager.filter(key=key).exists():
            return group
    return None


def _model_of(group: str) -> type[Model]:
    from django.apps import apps

    return apps.get_model("cards", GROUPS[group][1])


def _release_groups(game: str, release: int, language: str) -> dict[str, str]:
    """key -> group of the cards of release N, cached by the release's sha256: a release
    never changes, and the publish page asks for many keys."""
    from exports.errors import PackError
    from exports.models import Release
    from exports.packs import load_pack

    sha = (Release.objects.filter(game=game, language=language, version=release)
           .values_list("sha256", flat=True).first())
    if sha is None:
        return {}
    cache_key = f"card-preview-keys:{game}:{language}:{release}:{sha}"
    found = cache.get(cache_key)
    if found is None:
        try:
            pack = load_pack(game, language, release=release)
        except PackError:
            return {}
        found = {entry["key"]: group for group in GAME_GROUPS[game]
                 for entry in pack["body"].get(BODY_LIST[group], [])}
        cache.set(cache_key, found, CACHE_SECONDS)
    return dict(found)


def preview_url(game: str, language: str, key: str, *, release: int | None = None,
                side: str = "front", width_px: int = DEFAULT_WIDTH, group: str | None = None) -> str:
    """The admin URL of the PNG of card ``key``: as it is now (``release=None``) or as it was
    in release N (drawn from that release's pack). Staff with view permission on the card's
    content type may open it. ``group`` (concepts, tiles…) saves looking the key up."""
    if group is None:
        group = group_of_key(game, key, release, language) or GAME_GROUPS[game][0]
    url = reverse(f"admin:cards_{GROUPS[group][1]}_card_preview", args=[language, key])
    query = f"?side={side}" + (f"&release={release}" if release is not None else "")
    if width_px != DEFAULT_WIDTH:
        query += f"&width={width_px}"
    return url + query


# --- does a text fit? ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TextBox:
    """A box a text is set in on the printed card, in pt at the deck's default size."""

    where: str        # "front", "back: reminder line"… for messages
    font: str
    width: float
    height: float
    size: float
    leading: float
    max_lines: int | None


# (model, field) -> the card fields it prints as
FIELDS: dict[tuple[str, str], tuple[str, str]] = {
    ("ConceptCard", "text"): ("concepts", "text"),
    ("SymbolTile", "name"): ("tiles", "name"),
    ("SignSymbol", "name"): ("cards", "symbol_name"),
    ("SignColour", "name"): ("cards", "colour_name"),
    ("Slogan", "text"): ("slogans", "slogan1"),
    ("SloganOption", "text"): ("slogans", "options1"),
    ("AlfonsCard", "text"): ("alfons", "text"),
    ("SauschwerObject", "name"): ("objects", "name"),
}
GAME_OF_GROUP = {group: game for group, (game, _model, _label) in GROUPS.items()}


@lru_cache(maxsize=64)
def text_boxes(group: str, field: str) -> tuple[TextBox, ...]:
    """Where a card field is printed, as boxes in pt (the deck renderer's geometry)."""
    from exports.pdf.render import Geometry

    geometry = Geometry(OPTIONS)
    pack = {"game": GAME_OF_GROUP[group], "language": "de", "body": {"colours": []}}
    design = layouts.designs_for(pack)[group]
    found: list[TextBox] = []
    for side, face in (("front", design.front), ("back", design.back)):
        for element in face.elements:
            if isinstance(element, layouts.Text) and element.field == field and not element.spacing:
                _x, _y, w, h = geometry.box(element.box)
                where = side if element.size >= 8 else f"{side} (small reminder line)"
                if element.rotate:
                    where = f"{side} (upside-down header)"
                found.append(TextBox(where, element.font, w, h, element.size * geometry.scale,
                                     element.leading, element.max_lines))
            elif isinstance(element, layouts.Options) and element.field == field:
                _x, _y, w, h = geometry.box(element.box)
                size = element.size * geometry.scale
                star = fonts()["bold"].width(element.star + " ") * size
                # one of four rows; the correct option is bold, so measure bold (the wider)
                found.append(TextBox(f"{side} (answer option)", "bold", w - star, h / 4, size,
                                     1.1, None))
    if group == "cards" and field == "symbol_name":
        # drawn only when the symbol has no icon: large, in the middle of the card
        icon = next(e for e in design.front.elements if isinstance(e, layouts.Icon))
        _x, _y, w, h = geometry.box(icon.box)
        found.append(TextBox("front (instead of an icon)", "bold", w, h, 30 * geometry.scale,
                             1.18, None))
    return tuple(found)


def _fits(text: str, font: Font, box: TextBox, smallest: float) -> bool:
    return not fit(text, font, box.width, box.height, box.size, min(box.size, smallest),
                   leading=box.leading, max_lines=box.max_lines).truncated


def _longest_fitting(text: str, font: Font, box: TextBox, smallest: float) -> int:
    """How many characters of ``text`` fit the box at the smallest size (binary search)."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _fits(text[:middle], font, box, smallest):
            low = middle
        else:
            high = middle - 1
    return low


def fit_problem(obj_or_item: Model | Mapping[str, Any], field: str, language: str, text: str,
                ) -> str | None:
    """A message when ``text`` (of ``field`` of this card, in ``language``) would not fit its
    box on the printed card even at the deck's smallest font size; None when it fits.

    ``obj_or_item`` is a content object (ConceptCard, Slogan, SloganOption…; ``field`` its
    model field) or a pack-form item (``field`` then a card field: "text", "name",
    "slogan1", "options1", "colour_name"…). Measured with the deck's own fitting
    (exports.pdf.text.fit) in the boxes of the real layout at the default card size; about
    0.1 ms for a text that fits, so a whole language's checks take well under a second.
    """
    if not text or not text.strip():
        return None
    if isinstance(obj_or_item, Mapping):
        group = obj_or_item["group"]
        card_field = {"slogan2": "slogan1", "options2": "options1"}.get(field, field)
        label = GROUPS[group][2]
        if group == "cards" and card_field == "symbol_name":
            symbols = (obj_or_item.get("refs") or {}).get("symbols") or [{}]
            if symbols[0].get("icon"):
                return None  # the icon is drawn, not the name
        shown = FIELD_NAMES.get(field, field)
    else:
        spot = FIELDS.get((type(obj_or_item).__name__, field))
        if spot is None:
            return None
        group, card_field = spot
        if card_field == "symbol_name" and getattr(obj_or_item, "icon", ""):
            return None
        label = str(obj_or_item._meta.verbose_name)
        shown = field
    return _fit_message(group, card_field, language, text, f"the {language.upper()} {shown} "
                        f"of this {label}")


def _fit_message(group: str, card_field: str, language: str, text: str, what: str) -> str | None:
    smallest = OPTIONS.min_font_size
    all_fonts = fonts()
    for box in text_boxes(group, card_field):
        font = all_fonts[box.font]
        if _fits(text, font, box, smallest):
            continue
        keep = _longest_fitting(text, font, box, smallest)
        over = len(text) - keep
        lines = box.max_lines
        room = "its line" if lines == 1 else (f"its {lines} lines" if lines else "its box")
        size = f"{min(box.size, smallest):g} pt"
        return (f"Does not fit: {what} is too long for {room} on the card's {box.where}, "
                f"even at {size} (the deck's smallest size): about {over} "
                f"character{'s' if over != 1 else ''} too many ({len(text)} typed, about "
                f"{keep} fit).")
    return None


FIELD_NAMES = {"slogan1": "first slogan", "slogan2": "second slogan", "options1": "answer option",
               "options2": "answer option", "symbol_name": "symbol name",
               "colour_name": "colour name"}


def item_problems(item: Mapping[str, Any], language: str) -> list[str]:
    """The "does not fit" messages of every text on a card (an item), each naming its text."""
    group, entry = item["group"], item["entry"]
    found: list[str | None] = []
    if group in ("concepts", "alfons"):
        found.append(fit_problem(item, "text", language, entry.get("text", "")))
    elif group in ("tiles", "objects"):
        found.append(fit_problem(item, "name", language, entry.get("name", "")))
    elif group == "cards":
        refs = item.get("refs") or {}
        colour = next((c for c in refs.get("colours", []) if c["key"] == entry.get("colour")), None)
        if colour:
            found.append(fit_problem(item, "colour_name", language, colour["name"]))
        for symbol in refs.get("symbols", []):
            found.append(fit_problem(item, "symbol_name", language, symbol["name"]))
    elif group == "slogans":
        for number, slogan in enumerate(entry.get("slogans", []), 1):
            what = f"the {language.upper()} text of slogan {number} of this slogan card"
            found.append(_fit_message("slogans", "slogan1", language, slogan.get("text", ""), what))
            for n, option in enumerate(slogan.get("options", []), 1):
                what = f"the {language.upper()} option {n} of slogan {number}"
                found.append(_fit_message("slogans", "options1", language, option.get("text", ""),
                                          what) if option.get("text", "").strip() else None)
    return [message for message in found if message]


def alt_text(item: Mapping[str, Any], language: str, side: str) -> str:
    """What a screen reader says for a preview: which card, which side, its texts."""
    group, entry = item["group"], item["entry"]
    label = GROUPS[group][2]
    if group == "slogans":
        texts = [s.get("text", "") for s in entry.get("slogans", [])]
        if side == "back":
            texts = [f"{s.get('text', '')}: " + ", ".join(
                o.get("text", "") + (" (correct)" if o.get("correct") else "")
                for o in s.get("options", [])) for s in entry.get("slogans", [])]
    elif group == "cards":
        refs = item.get("refs") or {}
        names = [s.get("name", "") for s in refs.get("symbols", [])]
        names += [c.get("name", "") for c in refs.get("colours", []) if c["key"] == entry.get("colour")]
        texts = [" in ".join(names)] if side == "front" else ["the Sign card back"]
    elif group == "objects" and side == "back":
        from cards.weights import format_weight

        texts = [entry.get("name", ""), format_weight(entry.get("weight_g", 0), language)]
    elif side == "back" and group in ("concepts", "tiles", "alfons"):
        texts = ["the game's card back"]
    else:
        texts = [entry.get("text") or entry.get("name") or ""]
    shown = "; ".join(t for t in texts if t)
    return f"{label} {entry.get('key', '')}, {side}, {language.upper()}: {shown}"


def scale_note(width_px: int) -> str:
    """How big the preview is against the printed card (for alt texts)."""
    width_mm = OPTIONS.size[0]
    return f"{width_px} × {height_for(width_px)} px ({width_px / width_mm * 25.4:.0f} dpi)"


__all__ = [
    "DEFAULT_WIDTH", "GROUPS", "PreviewError", "alt_text", "card_preview", "content_hash",
    "fit_problem", "height_for", "item_from_pack", "item_of", "item_problems", "layout_version",
    "preview_url", "rasterise", "slogan_card_item", "text_boxes",
]
