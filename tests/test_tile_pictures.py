"""Every tile's picture shows its name; pictures the icon set lacks are drawn for the project."""

import csv
import io
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from PIL import Image

from cards.catalogue import import_catalogue
from cards.models import SymbolTile
from cards.pictures import (
    PROJECT_ICON_DIR,
    icon_credit,
    picture_size,
    render_icon,
    tabler_icon_path,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# Tabler icons that draw something else than the tile's name (checked by rendering all 50).
WRONG_PICTURES = {"tiger": "cat", "wahlurne": "checkbox"}


def tiles() -> list[dict[str, str]]:
    with (FIXTURES / "symbols" / "symbol_tiles.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_tiger_and_ballot_box_use_the_projects_own_drawings():
    icons = {t["key"]: t["icon"] for t in tiles()}
    assert icons["tiger"] == "kartothek:tiger"
    assert icons["wahlurne"] == "kartothek:ballot-box"
    for key, wrong in WRONG_PICTURES.items():
        assert icons[key] != wrong


def test_every_project_drawing_states_its_licence_and_is_used():
    used = {t["icon"].removeprefix("kartothek:") for t in tiles() if t["icon"].startswith("kartothek:")}
    files = {p.stem for p in PROJECT_ICON_DIR.glob("*.svg")}
    assert used == files == {"tiger", "ballot-box"}
    for name in files:
        assert "Licence: CC0-1.0" in (PROJECT_ICON_DIR / f"{name}.svg").read_text(encoding="utf-8")
        assert icon_credit(f"kartothek:{name}") == (
            "Drawn for Kartothek (fixtures/symbols/pictures)", "CC0-1.0")
    assert icon_credit("sun")[1] == "MIT"


@pytest.mark.parametrize("tile", tiles(), ids=lambda t: t["key"])
def test_every_tile_icon_renders_to_a_picture_with_ink(tile):
    png = render_icon(tile["icon"], size=128)
    assert picture_size(png) == (128, 128)
    with Image.open(io.BytesIO(png)) as image:
        alpha = image.convert("RGBA").getchannel("A")
        inked = sum(alpha.point(lambda a: 1 if a > 128 else 0).histogram()[1:])
    assert 0.04 * 128 * 128 < inked < 0.6 * 128 * 128  # a drawing, neither empty nor a blot


@pytest.mark.parametrize("bad", ["kartothek:../../README", "kartothek:Tiger", "kartothek:", "kartothek:nope"])
def test_a_project_picture_name_outside_the_folder_or_unknown_is_refused(bad):
    with pytest.raises(ValidationError, match="no project picture"):
        tabler_icon_path(bad)


@pytest.mark.django_db
def test_a_tile_imported_with_a_project_drawing_carries_its_credit(tmp_path):
    folder = tmp_path / "catalogue" / "symbols"
    folder.mkdir(parents=True)
    (folder / "symbol_tiles.csv").write_text(
        "key,name,icon,is_extra,position\ntiger,Tiger,kartothek:tiger,false,1\n"
        "sonne,Sonne,sun,false,2\n", encoding="utf-8")
    report = import_catalogue(tmp_path / "catalogue")
    assert not report.errors, report.errors
    tiger = SymbolTile.objects.get(key="tiger")
    assert (tiger.image_source, tiger.image_licence) == (
        "Drawn for Kartothek (fixtures/symbols/pictures)", "CC0-1.0")
    assert tiger.image_sha256
    assert SymbolTile.objects.get(key="sonne").image_licence == "MIT"
    # the curator swaps the drawing for a Tabler icon: the credit follows the picture
    (folder / "symbol_tiles.csv").write_text(
        "key,name,icon,is_extra,position\ntiger,Tiger,cat,false,1\nsonne,Sonne,sun,false,2\n",
        encoding="utf-8")
    assert not import_catalogue(tmp_path / "catalogue").errors
    assert SymbolTile.objects.get(key="tiger").image_licence == "MIT"
