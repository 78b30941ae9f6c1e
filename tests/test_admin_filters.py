"""Every list's filters read alike (issue 23.11): choices in sentence case, languages by name,
checks by title; values from the catalogue (a symbol's, a brand group's name) as written."""

import pytest
from django.contrib import admin
from django.contrib.admin import RelatedFieldListFilter
from django.test import RequestFactory

from cards.models import CheckDismissal, ConceptCard

pytestmark = pytest.mark.django_db


def _filters(model_admin, user):
    request = RequestFactory().get("/admin/")
    request.user = user
    changelist = model_admin.get_changelist_instance(request)
    for spec in changelist.filter_specs:
        labels = [str(choice["display"]) for choice in spec.choices(changelist)]
        yield spec, labels[1:]  # after "All"


def test_every_list_filter_offers_its_choices_in_sentence_case(mini_catalogue, admin_user):
    card = ConceptCard.objects.first()
    CheckDismissal.objects.create(content_object=card, field="text", language="en",
                                  check_name="unchanged", reason="A name.", text=card.text,
                                  source=card.text)
    seen, lowercase = {}, []
    for model, model_admin in admin.site._registry.items():
        for spec, labels in _filters(model_admin, admin_user):
            seen[f"{model.__name__}: {spec.title}"] = labels
            if isinstance(spec, RelatedFieldListFilter):
                continue  # names from the catalogue (a Sign symbol, a brand group) as written
            lowercase += [f"{model.__name__} / {spec.title}: {label}" for label in labels
                          if label[:1].islower()]
    assert not lowercase, lowercase
    assert seen["Slogan: side"] == ["First slogan", "Second slogan"]
    assert seen["AlfonsCard: target"] == ["The leader", "The last piece", "The nearest piece"]
    assert seen["Slogan: market"] == ["German (de)", "English, UK and US (en)", "English, UK only (en-GB)",
                                      "English, US only (en-US)"]
    assert seen["Translation: language"] == ["English (en)"]
    assert seen["Room: status"] == ["Lobby", "Playing", "Finished"]
    assert seen["CheckDismissal: check"] == ["Unchanged from the German"]


def test_a_language_filter_still_filters(mini_catalogue, admin_client):
    page = admin_client.get("/admin/cards/translation/?language__exact=en").content.decode()
    assert "English (en)" in page and 'class="selected"' in page
    assert admin_client.get("/admin/cards/translation/?language__exact=fr").status_code == 200
