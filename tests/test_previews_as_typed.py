"""The change pages' previews start from what was typed (issue 37, items 3, 9 and 10): a
refused save draws the card as typed with its fit message, a symbol tile's chosen picture is
drawn before saving, and a slogan card's answer checks run while typing.

Real parts throughout: the mini catalogue, the admin through Django's test client (CSRF
enforced where a form posts), the deck renderer and Pillow.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from cards.catalogue import import_catalogue
from cards.models import ConceptCard
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


def preview_panel(html: str) -> str:
    start = html.index('id="card-preview"')
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
    panel = preview_panel(html)
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
