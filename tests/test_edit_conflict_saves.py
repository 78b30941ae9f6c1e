"""Changing a card's German text and its English translation in one save (the curators' normal
workflow: rename a card and fix its English together) saves both; an edit conflict that a
save meets while writing is a form error that keeps what was typed, never a 500."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db.models import F
from django.db.models.signals import post_save
from django.test import Client
from django.urls import reverse

from cards.models import (
    AlfonsCard,
    ConceptCard,
    SauschwerObject,
    SignColour,
    SignSymbol,
    SymbolTile,
    Translation,
    TranslationState,
)
from tests.permission_matrix.forms import FormReader

pytestmark = pytest.mark.django_db
PREFIX = "cards-translation-content_type-object_id"


@pytest.fixture
def carla(curator_client) -> Client:
    return curator_client


def _read_form(client: Client, url: str) -> dict[str, Any]:
    """The change page's form as the browser sends it (with the versions it was rendered at)."""
    response = client.get(url)
    assert response.status_code == 200
    reader = FormReader()
    reader.feed(response.content.decode())
    data: dict[str, Any] = {}
    for name, value in max(reader.forms, key=len):
        if "__prefix__" not in name:
            data.setdefault(name, []).append(value)
    return {name: values if len(values) > 1 else values[0] for name, values in data.items()}


def _english_row(data: dict[str, Any], field: str) -> int:
    for name, value in data.items():
        match = re.fullmatch(rf"{PREFIX}-(\d+)-language", name)
        if match and value == "en" and data.get(f"{PREFIX}-{match.group(1)}-field") == field \
                and data.get(f"{PREFIX}-{match.group(1)}-id"):
            return int(match.group(1))
    raise AssertionError(f"no English {field} row on the page")


KINDS = [  # (model, its translatable field): every kind whose page has the translations inline
    (ConceptCard, "text"),
    (SauschwerObject, "name"),
    (SymbolTile, "name"),
    (SignSymbol, "name"),
    (SignColour, "name"),
    (AlfonsCard, "text"),
]


@pytest.mark.parametrize("model,field", KINDS, ids=[m.__name__ for m, _f in KINDS])
def test_the_german_text_and_its_translation_change_in_one_save(carla, model, field):
    card = model.objects.filter(translations__language="en",
                                translations__field=field).distinct().order_by("pk").first()
    assert card is not None
    url = reverse(f"admin:cards_{model._meta.model_name}_change", args=[card.pk])
    data = _read_form(carla, url)
    row = _english_row(data, field)
    german = f"{getattr(card, field)} neu"
    english = f"{data[f'{PREFIX}-{row}-text']} new"
    data[field] = german
    data[f"{PREFIX}-{row}-text"] = english
    data[f"{PREFIX}-{row}-state"] = TranslationState.TRANSLATED

    response = carla.post(url, data)

    assert response.status_code == 302, response.content.decode()[:3000]
    card.refresh_from_db()
    assert getattr(card, field) == german
    stored = Translation.objects.get(content_type=ContentType.objects.get_for_model(model),
                                     object_id=card.pk, field=field, language="en")
    assert stored.text == english
    # made from the new German text in this very save: translated, not "needs editing"
    assert stored.state == TranslationState.TRANSLATED
    assert stored.source_text == german


def test_changing_only_the_german_text_still_marks_the_translation_for_editing(carla):
    card = ConceptCard.objects.get(key="oma")
    url = reverse("admin:cards_conceptcard_change", args=[card.pk])
    data = _read_form(carla, url)
    data["text"] = "Großmutter"

    assert carla.post(url, data).status_code == 302

    stored = card.translations.get(language="en", field="text")
    assert stored.state == TranslationState.NEEDS_EDITING


def test_a_conflict_met_while_writing_is_a_form_error_that_keeps_the_typing(carla):
    """Someone else's write lands between the form's check and the translation's write (here a
    receiver bumps the stored row as another server would): the page answers with the form,
    what was typed in it, and the other change named — and nothing of the save is stored."""
    card = ConceptCard.objects.get(key="oma")
    url = reverse("admin:cards_conceptcard_change", args=[card.pk])
    data = _read_form(carla, url)
    row = _english_row(data, "text")
    data["text"] = "Großmutter"
    data[f"{PREFIX}-{row}-text"] = "Grandmother (typed)"
    translation_pk = int(data[f"{PREFIX}-{row}-id"])

    def someone_else_writes(sender, instance, **kwargs):
        Translation.objects.filter(pk=translation_pk).update(version=F("version") + 1)

    post_save.connect(someone_else_writes, sender=ConceptCard, dispatch_uid="someone-else")
    try:
        response = carla.post(url, data)
    finally:
        post_save.disconnect(dispatch_uid="someone-else", sender=ConceptCard)

    assert response.status_code == 200
    page = response.content.decode()
    assert "Grandmother (typed)" in page and "Großmutter" in page
    assert "after you opened it" in page
    card.refresh_from_db()
    assert card.text == "Oma"
    assert Translation.objects.get(pk=translation_pk).text != "Grandmother (typed)"


def test_a_refused_saves_heading_and_breadcrumb_name_the_card_as_stored(carla):
    card = ConceptCard.objects.get(key="oma")
    url = reverse("admin:cards_conceptcard_change", args=[card.pk])
    data = _read_form(carla, url)
    data["text"] = "x" * 500  # too long: refused
    page = carla.post(url, data).content.decode()
    assert "Please correct the error below." in page
    heading = re.search(r"<h2>(.*?)</h2>", page, re.S).group(1)
    assert heading.strip() == "Oma"
    breadcrumbs = page[page.index('class="breadcrumbs"'):][:2000]
    assert "xxxx" not in breadcrumbs and "Oma" in breadcrumbs
