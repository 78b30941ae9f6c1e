"""Tabletop Simulator: card sheets and the saved-object JSON of each deck.

Each group of cards (concept cards, symbol tiles, Sign cards, slogan cards, Spießer Alfons
cards, Sauschwer objects) becomes one TTS deck. Faces are rendered by the PDF renderer (one
card per page, without bleed), rasterised with pdftoppm and pasted into RGB sheets of at most
10 × 7 cards and 4096 × 4096 px. A group with a common back gets one back picture; a group
whose backs carry the card's data (slogan answers, Sauschwer weights) gets back sheets laid
out like its face sheets (``UniqueBack``).

Every sheet is a ``CustomDeck`` entry under its own deck key; a card's ``CardID`` is
deck key × 100 + its position on the sheet. Deck keys are unique within an export and start
at a number taken from the pack's sha256 (so two exports loaded into one game rarely share
keys), or at ``first_key``. A group of one card is saved as a single ``Card``, because
TTS has no one-card decks.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from exports.packs import pack_edition
from exports.pdf.common import GAME_TITLES
from exports.pdf.options import DeckOptions
from exports.pdf.raster import pages_to_images
from exports.pdf.render import DeckRenderer

MAX_COLUMNS, MAX_ROWS, MAX_PIXELS = 10, 7, 4096
CARDS_PER_SHEET = MAX_COLUMNS * MAX_ROWS


@dataclass
class TtsExport:
    files: dict[str, bytes] = field(default_factory=dict)  # file name -> bytes (sheets, backs, JSON)
    decks: int = 0
    cards: int = 0
    warnings: list[str] = field(default_factory=list)


def card_pixels(size_mm: tuple[float, float]) -> tuple[int, int]:
    """The largest card picture of this shape for which 10 × 7 still fit in 4096 px."""
    w, h = size_mm
    width = min(MAX_PIXELS // MAX_COLUMNS, int(MAX_PIXELS // MAX_ROWS * w / h))
    return width, round(width * h / w)


def _grid(count: int) -> tuple[int, int]:
    columns = min(MAX_COLUMNS, count)
    return columns, -(-count // columns)


def _sheet(images: list[Image.Image], card_w: int, card_h: int) -> tuple[Image.Image, int, int]:
    columns, rows = _grid(len(images))
    sheet = Image.new("RGB", (columns * card_w, rows * card_h), "white")
    for index, image in enumerate(images):
        sheet.paste(image, ((index % columns) * card_w, (index // columns) * card_h))
    return sheet, columns, rows


def _png(image: Image.Image) -> bytes:
    data = io.BytesIO()
    image.save(data, format="PNG", optimize=False)
    return data.getvalue()


def _transform(x: float) -> dict[str, float]:
    return {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def _guid(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:6]


def first_deck_key(pack: dict[str, Any]) -> int:
    return 100 + int(pack["sha256"][:6], 16) % 9000


def export_tts(pack: dict[str, Any], *, base_url: str | None = None, folder: Path | None = None,
               options: DeckOptions | None = None, first_key: int | None = None,
               pictures: Any = None) -> TtsExport:
    """Card sheets and ``<game>-<language>.json`` for one pack.

    Face URLs are ``base_url`` + file name, or ``file://`` paths into ``folder`` (where the
    caller writes the files).
    """
    options = options or DeckOptions(bleed=0.0, contents_page=False, layout="single")
    renderer = DeckRenderer(pack, options, pictures=pictures)
    card_w, card_h = card_pixels(options.size)
    result = TtsExport(warnings=list(renderer.report.warnings))
    edition = pack_edition(pack)  # "en-US": the UK and the US deck never share a file name
    stem = f"{pack['game']}-{edition}"

    def url(name: str) -> str:
        if base_url:
            return base_url.rstrip("/") + "/" + name
        if folder is None:
            return name
        return (Path(folder).resolve() / name).as_uri()

    key = first_key if first_key is not None else first_deck_key(pack)
    objects = []
    for number, group in enumerate(renderer.groups):
        design = renderer.designs[group.name]
        names = [(card.key, card.fields) for card in group.cards()]
        faces = _render(renderer, group.name, "front", card_w, card_h)
        backs = (_render(renderer, group.name, "back", card_w, card_h) if design.back_varies
                 else _render(renderer, group.name, "back", card_w, card_h, limit=1))
        common_back = None
        if not design.back_varies:
            common_back = f"{stem}-{group.name}-back.png"
            result.files[common_back] = _png(backs[0])
        custom, contained, ids = {}, [], []
        for start in range(0, len(faces), CARDS_PER_SHEET):
            chunk = faces[start:start + CARDS_PER_SHEET]
            sheet, columns, rows = _sheet(chunk, card_w, card_h)
            face_name = f"{stem}-{group.name}-{start // CARDS_PER_SHEET + 1}.png"
            result.files[face_name] = _png(sheet)
            if common_back:
                back_name = common_back
            else:
                back_sheet, _, _ = _sheet(backs[start:start + CARDS_PER_SHEET], card_w, card_h)
                back_name = f"{stem}-{group.name}-{start // CARDS_PER_SHEET + 1}-back.png"
                result.files[back_name] = _png(back_sheet)
            deck = {"FaceURL": url(face_name), "BackURL": url(back_name), "NumWidth": columns,
                    "NumHeight": rows, "BackIsHidden": True, "UniqueBack": not common_back,
                    "Type": 0}
            custom[str(key)] = deck
            for position in range(len(chunk)):
                card_key, fields = names[start + position]
                card_id = key * 100 + position
                ids.append(card_id)
                contained.append({
                    "Name": "Card", "Transform": _transform(number * 3.0),
                    "Nickname": _nickname(fields, card_key),
                    "Description": card_key, "CardID": card_id, "SidewaysCard": False,
                    "CustomDeck": {str(key): deck}, "GUID": _guid(pack["sha256"], group.name, card_key),
                })
            key += 1
        result.cards += len(contained)
        result.decks += 1
        if len(contained) == 1:
            objects.append({**contained[0], "Transform": _transform(number * 3.0)})
            continue
        objects.append({
            "Name": "Deck", "Transform": _transform(number * 3.0),
            "Nickname": f"{GAME_TITLES[pack['game']]}: {design.title} ({edition})",
            "Description": f"Kartothek pack {pack['sha256'][:12]}, {pack['content_version']}",
            "HideWhenFaceDown": True, "SidewaysCard": False, "DeckIDs": ids, "CustomDeck": custom,
            "ContainedObjects": contained, "GUID": _guid(pack["sha256"], group.name),
        })
    saved = {"SaveName": f"{GAME_TITLES[pack['game']]} ({edition})", "GameMode": "",
             "Date": "", "Gravity": 0.5, "PlayArea": 0.5, "Table": "", "Sky": "", "Note": "",
             "Rules": "", "XmlUI": "", "LuaScript": "", "LuaScriptState": "",
             "ObjectStates": objects, "TabStates": {}, "VersionNumber": ""}
    result.files[f"{stem}.json"] = json.dumps(saved, indent=2, ensure_ascii=False).encode()
    return result


def _nickname(fields: dict[str, Any], key: str) -> str:
    for name in ("name", "text", "slogan1", "colour_name"):
        if fields.get(name):
            if name == "colour_name":
                return f"{fields.get('symbol_name', '')} · {fields[name]}"
            return str(fields[name])
    return key


def _render(renderer: DeckRenderer, group: str, side: str, width: int, height: int,
            *, limit: int | None = None) -> list[Image.Image]:
    pdf = io.BytesIO()
    renderer.render_faces(pdf, group, side, bleed=False, limit=limit)
    return pages_to_images(pdf.getvalue(), width, height)


def write_export(export: TtsExport, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in export.files.items():
        (folder / name).write_bytes(data)
