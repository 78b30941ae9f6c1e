"""One visual regression test: a card page rendered to pixels against a reference picture.

Fails when the layout shifts (a box moves, a colour changes, text gets another size). After a
deliberate change of the design, write a new reference with
    KARTOTHEK_UPDATE_VISUAL=1 python -m pytest tests/test_pdf_visual.py -m slow
and look at tests/data/visual/*.png before committing it.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from exports.pdf import DeckOptions, Selection, render_deck
from exports.pdf.raster import pages_to_images
from tests import test_pdf
from tests.test_pdf import pack_of

mini_packs = test_pdf.mini_packs  # the fixture, shared with tests/test_pdf.py

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

REFERENCE = Path(__file__).parent / "data" / "visual" / "sauschwer-blue-whale.png"
TOLERANCE = 2.0  # mean difference per channel (0–255): anti-aliasing noise, not a moved box


def rendered(mini_packs) -> Image.Image:
    pack = pack_of(mini_packs, "sauschwer", "en")
    options = DeckOptions(layout="single", contents_page=False, bleed=3,
                          selection=Selection("object", frozenset({"ein-blauwal"})))
    out = io.BytesIO()
    render_deck(pack, options, out)
    front, back = pages_to_images(out.getvalue(), 138, 188)  # about 50 dpi
    both = Image.new("RGB", (2 * 138 + 4, 188), "white")
    both.paste(front, (0, 0))
    both.paste(back, (138 + 4, 0))
    return both


def difference(a: Image.Image, b: Image.Image) -> float:
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="needs pdftoppm (poppler-utils)")
def test_the_blue_whale_card_looks_like_its_reference(mini_packs):
    image = rendered(mini_packs)
    if os.environ.get("KARTOTHEK_UPDATE_VISUAL"):
        image.save(REFERENCE)
    with Image.open(REFERENCE) as reference:
        reference = reference.convert("RGB")
        assert image.size == reference.size
        assert difference(image, reference) < TOLERANCE
        # the tolerance is tight enough to notice the layout moving by 1.5 mm (3 px)
        shifted = ImageChops.offset(reference, 0, 3)
        assert difference(shifted, reference) > TOLERANCE
