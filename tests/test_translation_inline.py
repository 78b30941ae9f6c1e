"""The card page's translations: language and field are choices, the German source and the
state beside each; a value outside the choices is refused and nothing is saved."""

import re

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from cards.models import ConceptCard, Translation

pytestmark = pytest.mark.django_db
PREFIX = "cards-translation-content_type-object_id"


@pytest.fixture
def carla(client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def _form(card, rows):
    data = {"text": card.text, f"{PREFIX}-TOTAL_FORMS": str(len(rows)),
            f"{PREFIX}-INITIAL_FORMS": str(sum(1 for r in rows if r.get("id")))}
    for n, row in enumerate(rows):
        data.update({f"{PREFIX}-{n}-{k}": v for k, v in row.items()})
    return data


def test_language_and_field_are_choices_and_the_source_stands_beside(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    page = carla.get(reverse("admin:cards_conceptcard_change", args=[oma.pk])).content.decode()
    language = re.search(rf'<select name="{PREFIX}-0-language"[^>]*>(.*?)</select>', page, re.S)
    field = re.search(rf'<select name="{PREFIX}-0-field"[^>]*>(.*?)</select>', page, re.S)
    assert re.findall(r'value="([^"]+)"', language.group(1)) == ["en"]
    assert re.findall(r'value="([^"]+)"', field.group(1)) == ["text"]
    german = page[page.index('class="field-german"'):]
    german = german[:german.index("</td>")]
    assert "Oma" in german and "approved" in german


def test_a_forged_language_is_refused_and_nothing_is_saved(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    before = list(Translation.objects.values_list("pk", "language", "text"))
    response = carla.post(reverse("admin:cards_conceptcard_change", args=[oma.pk]), _form(oma, [
        {"language": "xx", "field": "text", "text": "Granny", "state": "translated"}]))
    assert response.status_code == 200
    assert "Select a valid choice. xx is not one of the available choices." in (
        response.content.decode())
    assert list(Translation.objects.values_list("pk", "language", "text")) == before


def test_a_forged_field_is_refused(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    response = carla.post(reverse("admin:cards_conceptcard_change", args=[oma.pk]), _form(oma, [
        {"language": "en", "field": "key", "text": "granny", "state": "translated"}]))
    assert response.status_code == 200
    assert "Select a valid choice. key is not one of the available choices." in (
        response.content.decode())
