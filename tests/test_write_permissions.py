"""The failures of the outside review (issue 10), one test each: a Translator changed cards
and restored a deleted one through the history's revert form, ran list actions hidden from
them, printed decks; staff without permissions read drafts. tests/permission_matrix/
holds the whole class (every admin URL × every role); these pin the reported cases.

A file of its own: the matrix keeps a package-wide catalogue, these load their own.
"""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db.models import Model
from django.test import Client

from cards.models import ConceptCard, SauschwerObject, SignColour, SymbolTile
from tests.permission_matrix.forms import _PAGES, page_form
from tests.permission_matrix.rows import CSRF_TOKEN, PASSWORD
from tests.permission_matrix.snapshot import snapshot

pytestmark = pytest.mark.django_db


def _png() -> io.BytesIO:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (256, 256), "#c00").save(out, "PNG")
    out.seek(0)
    out.name = "koffer.png"
    return out


def _user(role: str) -> User:
    user = User.objects.create_user(role.lower(), "", PASSWORD, is_staff=role != "nobody")
    if role in ("Curators", "Translators"):
        user.groups.add(Group.objects.get(name=role))
    return user


def _revert_url(obj: Model, version: int) -> str:
    opts = obj._meta
    return f"/admin/{opts.app_label}/{opts.model_name}/{obj.pk}/history/{version}/"


@pytest.mark.parametrize("model,key,forged", [
    (ConceptCard, "oma", {"text": "Gehackt"}),
    (SauschwerObject, "ein-huehnerei", {"weight_g": "1"}),
    (SignColour, "rot", {"hex": "#123456"}),
    (SymbolTile, "koffer", {"image": "PNG"}),
])
def test_a_translator_cannot_change_a_card_through_its_revert_form(mini_catalogue, model, key,
                                                                    forged):
    _PAGES.clear()
    obj = model._default_manager.get(key=key)
    version = obj.history.earliest("history_date").history_id
    admin_client = Client()
    admin_client.force_login(User.objects.create_superuser("sue", "", PASSWORD))
    data = page_form(admin_client, _revert_url(obj, version))
    data.update({name: _png() if value == "PNG" else value for name, value in forged.items()})
    translator = Client(enforce_csrf_checks=True)
    translator.force_login(_user("Translators"))
    translator.cookies[settings.CSRF_COOKIE_NAME] = CSRF_TOKEN
    before = snapshot()
    response = translator.post(_revert_url(obj, version),
                               {**data, "_save": "Save", "csrfmiddlewaretoken": CSRF_TOKEN})
    assert response.status_code == 403
    assert snapshot() == before
    # The same form from a curator is saved: the check is the permission, not the form.
    curator = Client()
    curator.force_login(_user("Curators"))
    for value in data.values():
        if hasattr(value, "seek"):
            value.seek(0)
    assert curator.post(_revert_url(obj, version), {**data, "_save": "Save"}).status_code == 302
    stored = model._default_manager.get(pk=obj.pk)
    for name, value in forged.items():
        if value == "PNG":
            assert stored.image_sha256 != obj.image_sha256
        else:
            assert str(getattr(stored, name)) == value


def test_a_translator_cannot_restore_a_deleted_card(mini_catalogue, client):
    oma = ConceptCard.objects.get(key="oma")
    pk = oma.pk
    oma.delete()
    last = ConceptCard.history.filter(id=pk).exclude(history_type="-").latest("history_date")
    url = f"/admin/cards/conceptcard/{pk}/history/{last.history_id}/"
    client.force_login(_user("Translators"))
    before = snapshot()
    assert client.get(url).status_code == 200  # looking at an old version is reading
    response = client.post(url, {"text": "Oma", "key": "oma", "_save": "Save"})
    assert response.status_code == 403
    assert snapshot() == before and not ConceptCard.objects.filter(pk=pk).exists()
    client.force_login(_user("Curators"))
    assert client.post(url, {"text": "Oma", "key": "oma", "_save": "Save"}).status_code == 302
    assert ConceptCard.objects.filter(pk=pk, key="oma").exists()


def test_a_list_action_the_user_may_not_run_is_refused(mini_catalogue, client):
    client.force_login(_user("Translators"))
    oma = ConceptCard.objects.get(key="oma")
    before = snapshot()
    for action in ("delete_selected", "print_selected_action"):
        response = client.post("/admin/cards/conceptcard/", {
            "action": action, "_selected_action": [oma.pk], "index": "0", "post": "yes",
            "print": "Download PDF", "language": "de", "release": "draft", "size": "poker",
            "paper": "a4", "sides": "fronts", "bleed": "3", "gap": "0", "back_offset": "0,0",
            "min_font_size": "6"})
        assert response.status_code == 403, action
    assert snapshot() == before


def test_a_staff_user_without_permissions_cannot_read_drafts(mini_catalogue, client):
    client.force_login(_user("staff without group"))
    response = client.get("/api/packs/sauschwer/en/draft.json")
    assert response.status_code == 403
    assert "only served to logged-in curators" in response.json()["error"]
    client.force_login(_user("Translators"))  # may see every card: may see the draft
    assert client.get("/api/packs/sauschwer/en/draft.json").json()["content_version"] == "draft"


def test_translators_cannot_print_decks(mini_catalogue, client):
    client.force_login(_user("Translators"))
    assert client.get("/admin/exports/print/sauschwer/").status_code == 403
    response = client.post("/admin/exports/print/sauschwer/", {
        "language": "en", "release": "draft", "size": "poker", "paper": "a4",
        "sides": "duplex-long", "bleed": "3", "gap": "0", "back_offset": "0,0",
        "min_font_size": "6", "profile": "", "print": "Download PDF"})
    assert response.status_code == 403 and response["Content-Type"] != "application/pdf"
    assert "Print deck (PDF)" not in client.get("/admin/").content.decode()
    client.force_login(_user("Curators"))
    assert "Print deck (PDF)" in client.get("/admin/").content.decode()


def test_a_revert_of_a_malformed_object_id_is_a_404_not_a_500(mini_catalogue, client):
    client.force_login(_user("Curators"))
    response = client.post("/admin/cards/conceptcard/abc/history/1/", {"text": "x"})
    assert response.status_code == 404
