"""The shape of the print-shop PNG export, without timing it (bench/png_speed.py times it):
the deck goes through in batches, at most a few in flight, so taking the first PNG draws only
the first batches and memory cannot grow with the deck; every PNG is a full card at 300 dpi
and the same pixels whichever batch it came in."""

from __future__ import annotations

import io
import zipfile
from dataclasses import replace
from typing import Any

from PIL import Image, ImageChops

from exports.packs import FORMAT, FORMAT_VERSION, canonical, sha256
from exports.pdf import DeckOptions, DeckRenderer, apply_profile, printshop
from exports.pdf.raster import pdf_to_pngs


def _pack(cards: int) -> dict[str, Any]:
    objects = [{"key": f"ding-{i:03d}", "name": f"Ding Nummer {i}", "status": "source",
                "weight_g": 1000 + i, "weight_source": "gewogen"} for i in range(cards)]
    body = {"cards": objects}
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": "sauschwer",
            "language": "de", "source_language": "de", "content_version": "draft",
            "sha256": sha256(canonical(body)), "body": body}


def _renderer(cards: int) -> DeckRenderer:
    return DeckRenderer(_pack(cards), apply_profile(DeckOptions(), "gamecrafter"))


def test_taking_the_first_png_draws_only_the_first_batches(monkeypatch):
    drawn: list[int] = []
    real = printshop._batch_pdf

    def counting(renderer, faces):  # a spy: the real batch is drawn
        drawn.append(len(faces))
        return real(renderer, faces)

    monkeypatch.setattr(printshop, "_batch_pdf", counting)
    pngs = printshop.gamecrafter_pngs(_renderer(60), workers=2)  # 120 faces, 15 batches
    name, _ = next(pngs)
    assert name == "objects/0001-ding-000-back.png"
    assert len(drawn) <= 3, drawn  # two workers busy and one ready, not the deck
    pngs.close()
    assert len(drawn) <= 3


def test_every_face_is_a_300_dpi_card_in_name_order_with_progress():
    seen: list[tuple[int, int]] = []
    out = io.BytesIO()
    count = printshop.write_zip(printshop.gamecrafter_pngs(
        _renderer(11), workers=2, progress=lambda done, total: seen.append((done, total))), out)
    assert count == 22 and seen[-1] == (22, 22) and len(seen) == 22
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        assert names == sorted(names)
        assert all(info.compress_type == zipfile.ZIP_STORED for info in archive.infolist())
        with Image.open(io.BytesIO(archive.read("objects/0011-ding-010-front.png"))) as image:
            assert image.size == (825, 1125) and round(image.info["dpi"][0]) == 300
            batched = image.convert("RGB")
    # the same card drawn alone, in a PDF of its own: the same pixels
    renderer = _renderer(11)
    face = next(f for f in printshop.faces_of(renderer) if f.name.endswith("0011-ding-010-front.png"))
    [png] = pdf_to_pngs(printshop._batch_pdf(renderer, [face]), 825, 1125, 300)
    with Image.open(io.BytesIO(png)) as alone:
        assert ImageChops.difference(batched, alone.convert("RGB")).getbbox() is None


def test_a_common_back_is_one_png_per_group():
    renderer = DeckRenderer(_pack(3), apply_profile(DeckOptions(), "gamecrafter"))
    renderer.designs["objects"] = replace(renderer.designs["objects"], back_varies=False)
    names = [face.name for face in printshop.faces_of(renderer)]
    assert names == ["objects/0001-ding-000-front.png", "objects/0002-ding-001-front.png",
                     "objects/0003-ding-002-front.png", "objects/back.png"]
