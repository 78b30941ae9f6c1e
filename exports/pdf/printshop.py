"""The Game Crafter: one PNG per card face at 300 dpi, with 1/8 in of bleed.

A poker card comes out at 825 × 1125 px. The pages are rendered by the same renderer as the
PDF (one card per page) and rasterised with pdftoppm. Written to a folder, or to a zip file
when the target ends in ``.zip`` (entries sorted, fixed timestamps: the same deck gives the
same bytes).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from exports.pdf.raster import pages_to_images, pixels
from exports.pdf.render import DeckRenderer

DPI = 300
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def gamecrafter_files(renderer: DeckRenderer) -> dict[str, bytes]:
    """File name → PNG bytes for every face of every card of the deck."""
    options = renderer.options
    w, h = options.size
    width_px = pixels(w + 2 * options.bleed, DPI)
    height_px = pixels(h + 2 * options.bleed, DPI)
    files: dict[str, bytes] = {}
    for group in renderer.groups:
        design = renderer.designs[group.name]
        keys = [card.key for card in group.cards()]
        sides = [("front", None)]
        if not options.fronts_only:
            sides.append(("back", None if design.back_varies else 1))
        for side, limit in sides:
            pdf = io.BytesIO()
            renderer.render_faces(pdf, group.name, side, bleed=True, limit=limit)
            images = pages_to_images(pdf.getvalue(), width_px, height_px)
            for index, image in enumerate(images):
                if limit == 1:
                    name = f"{group.name}/back.png"
                else:
                    name = f"{group.name}/{index + 1:04d}-{keys[index]}-{side}.png"
                data = io.BytesIO()
                image.save(data, format="PNG", dpi=(DPI, DPI))
                files[name] = data.getvalue()
    return files


def write_files(files: dict[str, bytes], target: Path) -> None:
    if target.suffix.lower() == ".zip":
        with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name in sorted(files):
                info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, files[name])
        return
    for name, data in files.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
