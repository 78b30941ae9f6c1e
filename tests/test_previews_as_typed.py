"""The change pages' previews start from what was typed (issue 37, items 3, 9 and 10): a
refused save draws the card as typed with its fit message, a symbol tile's chosen picture is
drawn before saving, and a slogan card's answer checks run while typing.

Real parts throughout: the mini catalogue, the admin through Django's test client (CSRF
enforced where a form posts), the deck renderer and Pillow.
"""

from __future__ import annotations

import io
import os
import re
from html import unescape
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image

from cards.catalogue import import_catalogue
from cards.models import (
    BrandOwnership,
    CheckDismissal,
    ConceptCard,
    SignColour,
    SignSymbol,
    SloganCard,
    SloganOption,
    SymbolTile,
)
from tests.conftest import MINI
from tests.permission_matrix.forms import FormReader

pytestmark = pytest.mark.django_db
PASSWORD = "karten-pw-1"
CSRF_TOKEN = "k" * 32
# 126 characters: more than the field takes (120), far more than the card prints
TOO_LONG = ("Ein ausgesprochen langer Begriff, der mit jedem weiteren Wort noch ein wenig länger "
            "wird und auf keine einzige Spielkarte passt")


@pytest.fixture
def carla(db) -> Client:
    assert not import_catalogue(MINI).errors
    user = User.objects.create_user("carla", "", PASSWORD, is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.cookies["csrftoken"] = CSRF_TOKEN
    return client


def form_of(client: Client, url: str) -> dict[str, list[str]]:
    """The page's biggest POST form, as the browser would send it (values as lists)."""
    reader = FormReader()
    reader.feed(client.get(url).content.decode())
    data: dict[str, list[str]] = {}
    for name, value in max(reader.forms, key=len):
        if "__prefix__" not in name:
            data.setdefault(name, []).append(value)
    data["csrfmiddlewaretoken"] = [CSRF_TOKEN]
    return data


def section(html: str, ident: str) -> str:
    start = html.index(f'id="{ident}"')
    return html[start:html.index("</section>", start)]


# --- 3. a refused save's preview shows what was typed ------------------------------------


def test_a_refused_save_previews_the_typed_text_with_its_fit_message(carla):
    concept = ConceptCard.objects.order_by("key").first()
    url = f"/admin/cards/conceptcard/{concept.pk}/change/"
    data = {**form_of(carla, url), "text": [TOO_LONG], "_save": ["Save"]}
    response = carla.post(url, data)
    assert response.status_code == 200  # refused: the form again, with its error
    html = response.content.decode()
    assert "at most 120 characters" in html
    panel = section(html, "card-preview")
    assert "Every text fits the card" not in panel
    assert "Does not fit" in panel and "DE: Does not fit: the DE text" in unescape(panel)
    figures = re.findall(r'data-lang="(\w+)" data-side="(\w+)">\s*<img src="([^"]+)"[^>]*'
                         r'alt="([^"]+)"', panel)
    assert [(lang, side) for lang, side, _src, _alt in figures] == [
        ("de", "front"), ("de", "back"), ("en", "front"), ("en", "back")]
    _lang, _side, german_front, alt = figures[0]
    assert "/preview/typed/?d=" in german_front  # drawn from the typed data, not the row
    assert "ausgesprochen langer Begriff" in unescape(alt)
    drawn = carla.get(unescape(german_front))
    assert drawn.status_code == 200 and drawn["Content-Type"] == "image/png"
    concept.refresh_from_db()
    assert concept.text != TOO_LONG


# --- 10. a slogan card's answer checks while typing --------------------------------------


def slogan_card_form(client: Client, card: SloganCard) -> dict[str, list[str]]:
    return form_of(client, f"/admin/cards/slogancard/{card.pk}/change/")


def with_saturn(data: dict[str, list[str]]) -> dict[str, list[str]]:
    """Option 1 of the Media Markt slogan becomes Saturn, of Media Markt's group."""
    side = next(n for n in (0, 1) if data[f"slogans-{n}-text"] == ["Ich bin doch nicht blöd!"])
    return {**data, f"slogans-{side}-option_1": ["Saturn"]}


def test_the_live_preview_answers_the_answer_checks_of_the_typed_card(carla):
    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/s")
    card = SloganCard.objects.get(key="karte-001")
    before = list(SloganOption.objects.order_by("pk").values_list("pk", "text", "is_correct"))
    data = {**with_saturn(slogan_card_form(carla, card)), "_preview_object_id": [str(card.pk)]}
    answer = carla.post("/admin/cards/slogancard/preview/", data).json()
    checks = answer["answer_checks"]
    assert checks["checked"] == 2
    same = [f for f in checks["findings"] if f["title"] == "Option from the answer's company group"]
    assert len(same) == 1
    assert "“Saturn” and the answer “Media Markt”" in same[0]["message"]
    # typed, not saved: no dismiss page knows it yet, and nothing was written
    assert same[0]["dismiss_url"] == "" and same[0]["unsaved"] is True
    assert list(SloganOption.objects.order_by("pk").values_list("pk", "text", "is_correct")) == before
    assert not CheckDismissal.objects.exists()


def test_a_saved_finding_typed_again_keeps_its_dismiss_link_and_a_dismissal_its_reason(carla):
    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/s")
    option = SloganOption.objects.get(slogan__key="ich-bin-doch-nicht-bloed", position=1)
    option.text = "Saturn"
    option.save()
    card = SloganCard.objects.get(key="karte-001")
    data = {**slogan_card_form(carla, card), "_preview_object_id": [str(card.pk)]}
    same = [f for f in carla.post("/admin/cards/slogancard/preview/", data).json()
            ["answer_checks"]["findings"] if f["title"] == "Option from the answer's company group"]
    assert same[0]["dismiss_url"].startswith(f"/admin/cards/slogancard/{card.pk}/dismiss-option-check/")
    assert carla.get(same[0]["dismiss_url"]).status_code == 200  # the dismiss page finds it
    slogan = option.slogan
    CheckDismissal.objects.create(content_object=slogan, field="option_1", language="de",
                                  check_name="same-group", reason="Nur für diesen Test.",
                                  source=slogan.text, text="Saturn")
    same = [f for f in carla.post("/admin/cards/slogancard/preview/", data).json()
            ["answer_checks"]["findings"] if f["title"] == "Option from the answer's company group"]
    assert same[0]["reason"] == "Nur für diesen Test." and same[0]["dismiss_url"] == ""


def test_an_incomplete_typed_side_is_not_checked(carla):
    data = {"slogans-0-text": ["… macht Kinder froh."], "slogans-0-option_1": ["Haribo"],
            "slogans-0-correct": ["1"], "csrfmiddlewaretoken": [CSRF_TOKEN]}
    answer = carla.post("/admin/cards/slogancard/preview/", data).json()
    assert answer["answer_checks"] == {"checked": 0, "findings": []}


def test_a_refused_save_lists_the_answer_checks_of_the_typed_card(carla):
    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/s")
    card = SloganCard.objects.get(key="karte-001")
    url = f"/admin/cards/slogancard/{card.pk}/change/"
    data = with_saturn(slogan_card_form(carla, card))
    side = next(n for n in (0, 1) if data[f"slogans-{n}-option_1"] == ["Saturn"])
    data = {**data, f"slogans-{side}-option_2": ["Saturn"], "_save": ["Save"]}  # twice: refused
    html = unescape(carla.post(url, data).content.decode())
    assert "the same option appears twice" in html  # the save was refused
    checks = section(html, "option-findings")
    assert "Open: Option from the answer's company group" in checks
    assert "“Saturn” and the answer “Media Markt”" in checks
    assert "save the card to dismiss it" in checks


# --- 9. a symbol tile: its position suggested, its picture drawn before saving ----------


def picture_file(colour: str = "#d01010", size: int = 256, name: str = "sonne.png"
                 ) -> SimpleUploadedFile:
    out = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(out, "PNG")
    return SimpleUploadedFile(name, out.getvalue(), content_type="image/png")


def stored_pictures() -> list[str]:
    folder = Path(settings.MEDIA_ROOT) / "pictures"
    return sorted(str(p) for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def reddish(png: bytes) -> int:
    """How many pixels of a preview are the test picture's red."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(n for n, (r, g, b) in image.getcolors(1 << 20) if r > 180 and g < 80 and b < 80)


def tile_preview(client: Client, data: dict) -> dict:
    return client.post("/admin/cards/symboltile/preview/",
                       {"_preview_language": "de", "csrfmiddlewaretoken": CSRF_TOKEN, **data}).json()


@pytest.mark.parametrize("model", [SymbolTile, SignSymbol, SignColour],
                         ids=lambda m: m._meta.model_name)
def test_the_add_page_suggests_the_next_position(carla, model):
    highest = max(model.objects.values_list("position", flat=True))
    html = carla.get(f"/admin/cards/{model._meta.model_name}/add/").content.decode()
    assert re.search(rf'name="position" value="{highest + 1}"', html)


def test_a_chosen_picture_is_drawn_before_saving_and_stored_nowhere_with_the_tiles(carla):
    tiles, pictures = list(SymbolTile.objects.values_list("key", "image")), stored_pictures()
    answer = tile_preview(carla, {"name": "Sonne", "icon": "", "image": picture_file()})
    digest = answer["picture"]
    assert re.fullmatch(r"[0-9a-f]{64}", digest) and "picture_error" not in answer
    front = next(p for p in answer["previews"] if p["side"] == "front")
    drawn = carla.get(front["url"])
    assert drawn.status_code == 200 and reddish(drawn.content) > 1000
    # named again by its sha256 (the page sends the file once): the same picture
    again = tile_preview(carla, {"name": "Sonne!", "icon": "", "_preview_picture": digest})
    assert again["picture"] == digest
    assert reddish(carla.get(again["previews"][0]["url"]).content) > 1000
    without = tile_preview(carla, {"name": "Sonne", "icon": ""})
    assert "picture" not in without
    assert all(reddish(carla.get(p["url"]).content) == 0 for p in without["previews"])
    assert list(SymbolTile.objects.values_list("key", "image")) == tiles
    assert stored_pictures() == pictures


def test_a_broken_or_forgotten_picture_is_named_and_not_drawn(carla):
    broken = SimpleUploadedFile("kaputt.png", picture_file().read()[:300], content_type="image/png")
    answer = tile_preview(carla, {"name": "Sonne", "icon": "sun", "image": broken})
    assert answer["picture_error"].startswith("The chosen picture cannot be used: This file is "
                                              "not a picture that can be opened, or it is broken")
    assert "picture" not in answer and answer["previews"]  # the card, with its icon
    forgotten = tile_preview(carla, {"name": "Sonne", "icon": "sun", "_preview_picture": "0" * 64})
    assert forgotten["picture_error"].endswith("choose the file again.")
    hostile = tile_preview(carla, {"name": "Sonne", "icon": "sun", "_preview_picture": "../../x"})
    assert "picture" not in hostile and hostile["picture_error"]


def test_someone_who_may_only_view_tiles_sends_no_picture_to_keep(carla):
    from cards.pictures import preview_picture, sha256_of

    viewer = User.objects.create_user("vera", "", PASSWORD, is_staff=True)
    viewer.groups.add(Group.objects.get(name="Viewers"))
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    client.cookies["csrftoken"] = CSRF_TOKEN
    tile = SymbolTile.objects.order_by("key").first()
    upload = picture_file(colour="#10a040", name="gruen.png")
    digest = sha256_of(upload.read())
    answer = tile_preview(client, {"_preview_object_id": tile.pk, "name": tile.name,
                                   "image": upload})
    assert "picture" not in answer
    assert preview_picture(digest) is None  # not kept


def test_a_refused_save_with_a_picture_shows_the_stored_one_and_asks_for_the_file_again(carla):
    tile = SymbolTile.objects.order_by("key").first()
    tile.image = picture_file(colour="#1040d0", name="blau.png")
    tile.save()
    stored_url = SymbolTile.objects.get(pk=tile.pk).image.url
    url = f"/admin/cards/symboltile/{tile.pk}/change/"
    data = {**form_of(carla, url), "position": ["0"], "image": [picture_file(name="neu.png")],
            "_save": ["Save"]}
    response = carla.post(url, data)
    assert response.status_code == 200
    html = unescape(response.content.decode())
    assert "Ensure this value is greater than or equal to 1" in html  # refused
    picture_row = html[html.index('class="form-row field-preview"'):]
    picture_row = picture_row[:picture_row.index("</div>\n", picture_row.index("readonly"))]
    sources = re.findall(r'<img src="([^"]+)"', picture_row)
    assert sources == [stored_url]  # the stored picture, no broken one
    assert "The picture you chose (neu.png) was not saved" in picture_row
    assert "choose the file again" in picture_row
    assert SymbolTile.objects.get(pk=tile.pk).image.url == stored_url


def test_a_kept_picture_is_removed_an_hour_after_it_was_last_chosen(settings, tmp_path):
    from cards.pictures import PREVIEW_MAX_AGE, keep_preview_picture, preview_picture

    settings.VAR_DIR = tmp_path
    old = keep_preview_picture(picture_file(colour="#404040"))
    path = tmp_path / "picture-previews" / f"{old}.picture"
    an_hour_ago = path.stat().st_mtime - PREVIEW_MAX_AGE - 1
    os.utime(path, (an_hour_ago, an_hour_ago))
    new = keep_preview_picture(picture_file(colour="#808080"))
    assert preview_picture(old) is None and preview_picture(new) is not None
    path.write_bytes(b"changed on disk")  # a file that is not what its name says
    assert preview_picture(old) is None
