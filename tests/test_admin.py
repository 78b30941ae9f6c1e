"""The curators' admin: pages, query counts, and who may change what."""

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards.models import (
    AlfonsCard,
    ConceptCard,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SloganCard,
    SloganOption,
    SymbolTile,
    Translation,
    TranslationState,
)

pytestmark = pytest.mark.django_db

LIST_PAGES = [
    "conceptcard", "symboltile", "signsymbol", "signcolour", "signcard", "slogancard", "slogan",
    "alfonscard", "sauschwerobject", "translation",
]


def user_in(group: str) -> User:
    user = User.objects.create_user(username=group.lower(), password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def curator(client):
    client.force_login(user_in("Curators"))
    return client


@pytest.fixture
def translator(client):
    client.force_login(user_in("Translators"))
    return client


def grow_catalogue(n: int) -> None:
    """n more rows of every content type, each with an English translation."""
    start = ConceptCard.objects.count()
    symbol = SignSymbol.objects.first()
    colours = list(SignColour.objects.all())
    for i in range(start, start + n):
        concept = ConceptCard.objects.create(key=f"begriff-{i}", text=f"Begriff {i}")
        Translation.objects.create(content_object=concept, field="text", language="en",
                                   text=f"Concept {i}", state=TranslationState.APPROVED)
        SauschwerObject.objects.create(key=f"ding-{i}", name=f"Ding {i}", weight_g=i + 1, source="x")
        SymbolTile.objects.create(key=f"symbol-{i}", name=f"Symbol {i}", icon="sun",
                                  position=100 + i, image=SymbolTile.objects.first().image.name)
        AlfonsCard.objects.create(key=f"alfons-{i}", text=f"Alfons {i}", effect="to_start")
        card = SloganCard.objects.create(key=f"karte-x{i}")
        for side in (1, 2):
            slogan = Slogan.objects.create(card=card, side=side, key=f"slogan-{i}-{side}",
                                           text=f"Slogan {i} {side}")
            for position in range(1, 5):
                SloganOption.objects.create(slogan=slogan, position=position,
                                            text=f"Marke {position}", is_correct=position == 1)
        new_symbol = SignSymbol.objects.create(key=f"zeichen-{i}", name=f"Zeichen {i}",
                                               icon=symbol.icon, position=50 + i)
        for colour in colours:
            SignCard.objects.create(key=f"zeichen-{i}-{colour.key}", symbol=new_symbol, colour=colour)


def queries_for(client, url: str) -> int:
    client.get(url)  # warm the per-process caches (content types), which are not per row
    with CaptureQueriesContext(connection) as context:
        response = client.get(url)
    assert response.status_code == 200
    return len(context.captured_queries)


@pytest.mark.parametrize("model", LIST_PAGES)
def test_a_list_page_runs_the_same_queries_for_few_and_many_rows(mini_catalogue, admin_client, model):
    url = reverse(f"admin:cards_{model}_changelist")
    grow_catalogue(2)
    few = queries_for(admin_client, url)
    grow_catalogue(30)
    many = queries_for(admin_client, url)
    assert many == few


@pytest.mark.parametrize("model", LIST_PAGES)
def test_every_list_and_add_page_opens(mini_catalogue, admin_client, model):
    assert admin_client.get(reverse(f"admin:cards_{model}_changelist")).status_code == 200
    if model != "translation":
        assert admin_client.get(reverse(f"admin:cards_{model}_add")).status_code == 200


def test_every_change_page_opens(mini_catalogue, admin_client):
    for model in (ConceptCard, SymbolTile, SignSymbol, SignColour, SignCard, SloganCard, Slogan,
                  AlfonsCard, SauschwerObject, Translation):
        obj = model.objects.first()
        url = reverse(f"admin:cards_{model._meta.model_name}_change", args=[obj.pk])
        assert admin_client.get(url).status_code == 200, model


def test_the_symbol_list_shows_a_thumbnail_of_each_picture(mini_catalogue, admin_client):
    page = admin_client.get(reverse("admin:cards_symboltile_changelist")).content.decode()
    for tile in SymbolTile.objects.all():
        assert f'src="{tile.image.url}"' in page


def test_the_list_shows_each_card_translation_state(mini_catalogue, admin_client):
    oma = ConceptCard.objects.get(key="oma")
    oma.text = "Großmutter"
    oma.save()
    page = admin_client.get(reverse("admin:cards_conceptcard_changelist")).content.decode()
    assert page.count('title="needs editing"') == 1
    assert page.count('title="approved"') == ConceptCard.objects.count() - 1


def test_the_translation_filter_finds_missing_and_outdated(mini_catalogue, admin_client):
    Translation.objects.filter(text="Love").delete()
    oma = ConceptCard.objects.get(key="oma")
    oma.text = "Großmutter"
    oma.save()
    url = reverse("admin:cards_conceptcard_changelist")
    missing = admin_client.get(url, {"translation_en": "empty"}).context["cl"].result_list
    assert [c.key for c in missing] == ["liebe"]
    outdated = admin_client.get(url, {"translation_en": "needs_editing"}).context["cl"].result_list
    assert [c.key for c in outdated] == ["oma"]


def test_translations_filter_by_game(mini_catalogue, admin_client):
    url = reverse("admin:cards_translation_changelist")
    rows = admin_client.get(url, {"game": "sauschwer"}).context["cl"].result_list
    assert {r.content_object.key for r in rows} == set(
        SauschwerObject.objects.values_list("key", flat=True)
    )


def test_search_finds_a_card_by_its_english_text(mini_catalogue, admin_client):
    url = reverse("admin:cards_conceptcard_changelist")
    rows = admin_client.get(url, {"q": "Grandmother"}).context["cl"].result_list
    assert [c.key for c in rows] == ["oma"]


def test_a_curator_adds_a_concept_card(mini_catalogue, curator):
    response = curator.post(
        reverse("admin:cards_conceptcard_add"),
        {"text": "Weihnachten", "key": "weihnachten",
         "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
         "cards-translation-content_type-object_id-INITIAL_FORMS": "0"},
    )
    assert response.status_code == 302
    assert ConceptCard.objects.filter(key="weihnachten").exists()


def test_a_curator_sees_why_a_duplicate_card_is_refused(mini_catalogue, curator):
    response = curator.post(
        reverse("admin:cards_conceptcard_add"),
        {"text": "OMA", "key": "oma-2",
         "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
         "cards-translation-content_type-object_id-INITIAL_FORMS": "0"},
    )
    assert response.status_code == 200
    assert "is already in the catalogue as &#x27;oma&#x27;" in response.content.decode()
    assert not ConceptCard.objects.filter(key="oma-2").exists()


def slogan_form(slogan, options, correct):
    data = {
        "card": slogan.card_id, "side": slogan.side, "text": slogan.text, "key": slogan.key,
        "source": slogan.source,
        "options-TOTAL_FORMS": "4", "options-INITIAL_FORMS": "4",
        "options-MIN_NUM_FORMS": "4", "options-MAX_NUM_FORMS": "4",
        "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
        "cards-translation-content_type-object_id-INITIAL_FORMS": "0",
    }
    for i, option in enumerate(slogan.options.order_by("position")):
        data[f"options-{i}-id"] = option.pk
        data[f"options-{i}-slogan"] = slogan.pk
        data[f"options-{i}-position"] = option.position
        data[f"options-{i}-text"] = options[i]
        if option.position in correct:
            data[f"options-{i}-is_correct"] = "on"
    return data


def test_a_curator_moves_the_correct_option_of_a_slogan(mini_catalogue, curator):
    slogan = Slogan.objects.get(key="just-do-it")
    url = reverse("admin:cards_slogan_change", args=[slogan.pk])
    response = curator.post(url, slogan_form(slogan, ["Nike", "Puma", "Reebok", "Adidas"], {1}))
    assert response.status_code == 302
    assert slogan.correct_option.text == "Nike"
    assert slogan.options.get(position=4).text == "Adidas"


def test_the_admin_refuses_two_correct_options_and_saves_nothing(mini_catalogue, curator):
    slogan = Slogan.objects.get(key="just-do-it")
    before = list(slogan.options.values_list("text", "is_correct"))
    url = reverse("admin:cards_slogan_change", args=[slogan.pk])
    response = curator.post(url, slogan_form(slogan, ["A", "B", "C", "D"], {1, 2}))
    assert response.status_code == 200
    assert "Exactly one answer option must be correct, not 2." in response.content.decode()
    assert list(slogan.options.values_list("text", "is_correct")) == before


def test_a_translator_can_edit_a_translation(mini_catalogue, translator):
    row = Translation.objects.get(text="Grandmother")
    url = reverse("admin:cards_translation_change", args=[row.pk])
    response = translator.post(url, {"text": "Granny", "state": "translated"})
    assert response.status_code == 302
    row.refresh_from_db()
    assert (row.text, row.state) == ("Granny", "translated")


@pytest.mark.parametrize("model", [m for m in LIST_PAGES if m != "translation"])
def test_a_translator_cannot_change_add_or_delete_cards(mini_catalogue, translator, model):
    obj = {
        "conceptcard": ConceptCard, "symboltile": SymbolTile, "signsymbol": SignSymbol,
        "signcolour": SignColour, "signcard": SignCard, "slogancard": SloganCard,
        "slogan": Slogan, "alfonscard": AlfonsCard, "sauschwerobject": SauschwerObject,
    }[model].objects.first()
    change = reverse(f"admin:cards_{model}_change", args=[obj.pk])
    assert translator.get(change).status_code == 200  # may look
    assert translator.post(change, {}).status_code == 403
    assert translator.post(reverse(f"admin:cards_{model}_add"), {}).status_code == 403
    delete = reverse(f"admin:cards_{model}_delete", args=[obj.pk])
    assert translator.post(delete, {"post": "yes"}).status_code == 403
    assert type(obj).objects.filter(pk=obj.pk).exists()


@pytest.mark.parametrize("model", [m for m in LIST_PAGES if m not in ("translation", "slogancard")])
def test_a_translator_cannot_import_into_cards(mini_catalogue, translator, model):
    assert translator.get(reverse(f"admin:cards_{model}_import")).status_code == 403
