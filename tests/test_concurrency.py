"""No edit is lost: a save made on an older version is refused and shows the other change.

Two curators, two translators, the real admin and the real editor (the test client posts
exactly what the rendered page holds), and real threads on a real transaction.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django import forms
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from cards.concurrency import VERSION_FIELD, EditConflict, Versioned
from cards.models import (
    CONTENT_MODELS,
    ConceptCard,
    SauschwerObject,
    Slogan,
    SloganOption,
    Translation,
)

pytestmark = pytest.mark.django_db


def login(name: str, group: str) -> Client:
    user = User.objects.create_user(username=name, password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def anna(mini_catalogue) -> Client:
    return login("anna", "Curators")


@pytest.fixture
def bernd(mini_catalogue) -> Client:
    return login("bernd", "Curators")


def rendered_form(response: Any) -> dict[str, Any]:
    """What a browser sends back for an admin change form it was given, unchanged."""
    assert response.status_code == 200
    data: dict[str, Any] = {}

    def add(form: forms.BaseForm) -> None:
        for bound in form:
            value = bound.value()
            if isinstance(bound.field, forms.BooleanField):
                if value:
                    data[bound.html_name] = "on"
            elif isinstance(bound.field, forms.FileField) or value is None:
                continue
            else:
                data[bound.html_name] = value

    add(response.context["adminform"].form)
    for inline in response.context.get("inline_admin_formsets", []):  # a revert form has none
        add(inline.formset.management_form)
        for form in inline.formset.forms:
            add(form)
    return data


def change_url(obj: Any) -> str:
    return reverse(f"admin:cards_{obj._meta.model_name}_change", args=[obj.pk])


def page_text(response: Any) -> str:
    return response.content.decode()


def english(key: str) -> Translation:
    card = ConceptCard.objects.get(key=key)
    return Translation.objects.get(object_id=card.pk, field="text", language="en",
                                   content_type__model="conceptcard")


# --- (a) the admin change form ----------------------------------------------------------


def test_the_second_of_two_curators_editing_a_card_is_refused_and_sees_the_first_change(
        anna, bernd):
    oma = ConceptCard.objects.get(key="oma")
    url = change_url(oma)
    seen_by_anna = rendered_form(anna.get(url))
    seen_by_bernd = rendered_form(bernd.get(url))
    assert seen_by_anna[VERSION_FIELD] == seen_by_bernd[VERSION_FIELD] == oma.version

    assert anna.post(url, {**seen_by_anna, "text": "Großmutter"}).status_code == 302
    response = bernd.post(url, {**seen_by_bernd, "text": "Omi"})

    assert response.status_code == 200  # the form again, with the error
    page = page_text(response)
    assert "anna saved this concept card" in page
    assert "text: “Oma” → “Großmutter”" in page
    assert "so your save was refused" in page
    oma.refresh_from_db()
    assert oma.text == "Großmutter"  # anna's change is kept
    assert oma.history.first().history_user.username == "anna"
    # Saving the same stale form again is refused again: nobody overwrites a change unseen.
    assert bernd.post(url, {**seen_by_bernd, "text": "Omi"}).status_code == 200
    oma.refresh_from_db()
    assert oma.text == "Großmutter"
    # A fresh form saves.
    fresh = rendered_form(bernd.get(url))
    assert bernd.post(url, {**fresh, "text": "Omi"}).status_code == 302
    oma.refresh_from_db()
    assert (oma.text, oma.version) == ("Omi", seen_by_anna[VERSION_FIELD] + 2)


def test_a_stale_save_of_a_slogan_shows_the_changed_answer_option(anna, bernd):
    slogan = Slogan.objects.get(key="just-do-it")
    url = change_url(slogan)
    seen_by_anna = rendered_form(anna.get(url))
    seen_by_bernd = rendered_form(bernd.get(url))
    position = next(k for k, v in seen_by_anna.items() if k.endswith("-position") and v == 2)
    text_field = position.replace("-position", "-text")
    old = seen_by_anna[text_field]
    assert anna.post(url, {**seen_by_anna, text_field: "Fila"}).status_code == 302

    response = bernd.post(url, {**seen_by_bernd, text_field: "Asics"})
    assert response.status_code == 200
    assert f"text: “{old}” → “Fila”" in page_text(response)
    assert SloganOption.objects.get(slogan=slogan, position=2).text == "Fila"


def test_a_stale_page_is_refused_for_a_translation_its_user_did_not_touch(anna, bernd):
    """Bernd changes the German text on a page opened before Anna changed the card's English
    translation: his page still holds the old translation, so his save is refused (rows are
    never merged) and shows hers."""
    oma = ConceptCard.objects.get(key="oma")
    url = change_url(oma)
    seen_by_anna = rendered_form(anna.get(url))
    seen_by_bernd = rendered_form(bernd.get(url))
    field = "cards-translation-content_type-object_id-0-text"
    assert seen_by_anna[field] == "Grandmother"
    assert anna.post(url, {**seen_by_anna, field: "Granny"}).status_code == 302

    response = bernd.post(url, {**seen_by_bernd, "text": "Großmutter"})
    assert response.status_code == 200
    assert "text: “Grandmother” → “Granny”" in page_text(response)
    oma.refresh_from_db()
    assert oma.text == "Oma"
    assert english("oma").text == "Granny"


def test_a_save_that_changed_nothing_does_not_block_another(anna, bernd):
    oma = ConceptCard.objects.get(key="oma")
    url = change_url(oma)
    seen_by_anna = rendered_form(anna.get(url))
    seen_by_bernd = rendered_form(bernd.get(url))
    assert anna.post(url, seen_by_anna).status_code == 302  # saved as it was
    assert ConceptCard.objects.get(pk=oma.pk).version == seen_by_bernd[VERSION_FIELD] + 1
    assert bernd.post(url, {**seen_by_bernd, "text": "Omi"}).status_code == 302
    assert ConceptCard.objects.get(pk=oma.pk).text == "Omi"


def test_a_curator_who_changed_the_same_translation_is_refused(anna, bernd):
    oma = ConceptCard.objects.get(key="oma")
    url = change_url(oma)
    seen_by_anna = rendered_form(anna.get(url))
    seen_by_bernd = rendered_form(bernd.get(url))
    field = "cards-translation-content_type-object_id-0-text"
    assert anna.post(url, {**seen_by_anna, field: "Granny"}).status_code == 302
    response = bernd.post(url, {**seen_by_bernd, field: "Grandma"})
    assert response.status_code == 200
    assert "anna saved this translation" in page_text(response)
    assert "text: “Grandmother” → “Granny”" in page_text(response)
    assert english("oma").text == "Granny"


def test_a_revert_opened_before_another_save_is_refused(anna, bernd):
    oma = ConceptCard.objects.get(key="oma")
    url = change_url(oma)
    assert anna.post(url, {**rendered_form(anna.get(url)), "text": "Großmutter"}).status_code == 302
    first = oma.history.earliest("history_date")
    revert = reverse("admin:cards_conceptcard_simple_history", args=[oma.pk, first.history_id])
    revert_form = rendered_form(bernd.get(revert))
    assert revert_form[VERSION_FIELD] == ConceptCard.objects.get(pk=oma.pk).version  # not the old one
    assert anna.post(url, {**rendered_form(anna.get(url)), "text": "Omama"}).status_code == 302

    response = bernd.post(revert, revert_form)
    assert response.status_code == 200
    assert "text: “Großmutter” → “Omama”" in page_text(response)
    oma.refresh_from_db()
    assert oma.text == "Omama"
    # A revert opened now works, and counts as a new version.
    version = oma.version
    assert bernd.post(revert, rendered_form(bernd.get(revert))).status_code == 302
    oma.refresh_from_db()
    assert (oma.text, oma.version) == ("Oma", version + 1)


def test_a_deleted_card_is_restored_once_when_two_curators_revert_it(anna, bernd):
    oma = ConceptCard.objects.get(key="oma")
    pk = oma.pk
    assert anna.post(reverse("admin:cards_conceptcard_delete", args=[pk]),
                     {"post": "yes"}).status_code == 302
    last = ConceptCard.history.filter(id=pk, history_type="~").first() or \
        ConceptCard.history.filter(id=pk, history_type="+").first()
    revert = reverse("admin:cards_conceptcard_simple_history", args=[pk, last.history_id])
    seen_by_anna, seen_by_bernd = rendered_form(anna.get(revert)), rendered_form(bernd.get(revert))
    assert seen_by_anna[VERSION_FIELD] == 0  # no row: it may only be restored once

    assert anna.post(revert, seen_by_anna).status_code == 302
    response = bernd.post(revert, {**seen_by_bernd, "text": "Omi"})
    assert response.status_code == 200
    assert "anna restored this concept card" in page_text(response)
    assert ConceptCard.objects.get(pk=pk).text == "Oma"


def test_a_save_on_a_card_deleted_meanwhile_says_so(anna, bernd):
    oma = ConceptCard.objects.get(key="oma")
    url = change_url(oma)
    seen_by_bernd = rendered_form(bernd.get(url))
    assert anna.post(reverse("admin:cards_conceptcard_delete", args=[oma.pk]),
                     {"post": "yes"}).status_code == 302
    response = bernd.post(url, {**seen_by_bernd, "text": "Omi"}, follow=True)
    # Django's admin answers a vanished object with its own message, and brings nothing back.
    assert "Perhaps it was deleted?" in page_text(response)
    assert not ConceptCard.objects.filter(pk=oma.pk).exists()


def test_the_translation_admin_refuses_a_stale_save(mini_catalogue):
    tina, tom = login("tina", "Translators"), login("tom", "Translators")
    row = Translation.objects.get(text="Grandmother")
    url = change_url(row)
    seen_by_tina, seen_by_tom = rendered_form(tina.get(url)), rendered_form(tom.get(url))
    assert tina.post(url, {**seen_by_tina, "text": "Granny"}).status_code == 302
    response = tom.post(url, {**seen_by_tom, "text": "Grandma"})
    assert response.status_code == 200
    assert "tina saved this translation" in page_text(response)
    row.refresh_from_db()
    assert row.text == "Granny"


def test_every_change_form_and_inline_row_carries_its_version(mini_catalogue, admin_client):
    checked = set()
    for model in admin.site._registry:
        if not issubclass(model, Versioned):
            continue
        obj = model._default_manager.first()
        response = admin_client.get(change_url(obj))
        data = rendered_form(response)
        assert data[VERSION_FIELD] == obj.version, model
        assert f'type="hidden" name="{VERSION_FIELD}" value="{obj.version}"' in page_text(response)
        for inline in response.context["inline_admin_formsets"]:
            if issubclass(inline.formset.model, Versioned):
                for form in inline.formset.initial_forms:
                    name = form.add_prefix(VERSION_FIELD)
                    assert data[name] == form.instance.version, (model, name)
                    assert f'name="{name}"' in page_text(response)
        checked.add(model)
    # every card type and the translations (their inlines: slogans, options, translations)
    assert checked >= {*CONTENT_MODELS, Translation}


# --- every write moves the version ------------------------------------------------------


def test_every_kind_of_write_moves_the_version_on(mini_catalogue, tmp_path):
    from cards.catalogue import import_catalogue
    from tests.test_catalogue import copy_mini, rewrite

    liebe = ConceptCard.objects.get(key="liebe")
    love = Translation.objects.get(object_id=liebe.pk, text="Love")
    start, love_start = liebe.version, love.version
    liebe.save()
    liebe.refresh_from_db()
    assert liebe.version == start + 1
    liebe.save(update_fields=["text"])
    liebe.refresh_from_db()
    assert liebe.version == start + 2

    # a batched import (bulk_update) and the translation it drops to needs editing
    folder = copy_mini(tmp_path)
    rewrite(folder / "symbols" / "concepts.csv", lambda rows: rows[2].__setitem__(1, "Die Liebe"))
    assert not import_catalogue(folder).errors
    liebe.refresh_from_db()
    love.refresh_from_db()
    assert (liebe.text, liebe.version) == ("Die Liebe", start + 3)
    assert (love.state, love.version) == ("needs_editing", love_start + 1)
    # the history records the version each save made
    assert [h.version for h in liebe.history.all()[:3]] == [start + 3, start + 2, start + 1]

    # an unconditional save of a copy loaded long ago never moves the number back
    stale = ConceptCard.objects.get(pk=liebe.pk)
    stale.version = 1
    stale.save()
    stale.refresh_from_db()
    assert stale.version == start + 4


def test_a_conditional_save_on_an_older_version_raises_and_writes_nothing(mini_catalogue):
    first = SauschwerObject.objects.first()
    second = SauschwerObject.objects.get(pk=first.pk)
    version = first.version
    first.weight_g, first._expected_version = 11, version
    first.save()
    second.weight_g, second._expected_version = 22, version
    with pytest.raises(EditConflict), transaction.atomic():
        second.save()
    first.refresh_from_db()
    assert (first.weight_g, first.version) == (11, version + 1)
    assert first.history.count() == 2  # the refused save wrote no history either


def test_a_conditional_save_of_a_row_deleted_meanwhile_does_not_bring_it_back(mini_catalogue):
    oma = ConceptCard.objects.get(key="oma")
    stale = ConceptCard.objects.get(pk=oma.pk)
    oma.delete()
    stale.text, stale._expected_version = "Omi", stale.version
    with pytest.raises(EditConflict), transaction.atomic():
        stale.save()
    assert not ConceptCard.objects.filter(key="oma").exists()


def test_a_deleted_card_restored_continues_its_version_numbers(mini_catalogue):
    oma = ConceptCard.objects.get(key="oma")
    oma.save()
    oma.save()
    pk, last = oma.pk, ConceptCard.objects.get(pk=oma.pk).version
    oma.delete()
    restored = ConceptCard.history.filter(id=pk, history_type="~").first().instance
    restored.save()
    assert ConceptCard.objects.get(pk=pk).version == last + 1


# --- (b) the translation editor ---------------------------------------------------------


def editor_form(response: Any) -> dict[str, Any]:
    """What the editor page sends back unchanged: each box, state and the hidden values."""
    assert response.status_code == 200
    data: dict[str, Any] = {}
    for row in response.context["rows"]:
        ident = row.unit.ident
        data.update({
            f"text-{ident}": row.draft, f"state-{ident}": row.draft_state,
            f"was-text-{ident}": row.was_text, f"was-state-{ident}": row.was_state,
            f"version-{ident}": str(row.version),
        })
    return data


def test_two_translators_on_one_editor_page_keep_each_others_saved_edits(mini_catalogue):
    tina, tom = login("tina", "Translators"), login("tom", "Translators")
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    oma = f"conceptcard-{ConceptCard.objects.get(key='oma').pk}-text"
    liebe = f"conceptcard-{ConceptCard.objects.get(key='liebe').pk}-text"
    seen_by_tina, seen_by_tom = editor_form(tina.get(url)), editor_form(tom.get(url))

    # Tina changes Oma; Tom, on his page opened before, changes Liebe only.
    assert tina.post(url, {**seen_by_tina, f"text-{oma}": "Granny"}).status_code == 302
    assert tom.post(url, {**seen_by_tom, f"text-{liebe}": "Affection"}).status_code == 302
    assert english("oma").text == "Granny"  # not reverted by Tom's page
    assert english("liebe").text == "Affection"

    # Tom, still on the old page, changes Oma and Goethe: Oma is refused and shown, Goethe saved.
    goethe = f"conceptcard-{ConceptCard.objects.get(key='goethe').pk}-text"
    response = tom.post(url, {**seen_by_tom, f"text-{liebe}": "Affection",
                              f"text-{oma}": "Grandma", f"text-{goethe}": "Goethe!"})
    assert response.status_code == 200
    page = page_text(response)
    assert "tina changed this text" in page
    row = next(r for r in response.context["rows"] if r.unit.ident == oma)
    assert (row.theirs.text, row.draft) == ("Granny", "Grandma")  # theirs beside his
    assert "Saved 1 translation. 1 was changed by someone else" in page
    assert english("oma").text == "Granny"
    assert english("goethe").text == "Goethe!"
    assert english("liebe").text == "Affection"

    # Having seen Tina's text, Tom saves the re-rendered page: now his text replaces hers.
    assert tom.post(url, editor_form(response)).status_code == 302
    assert english("oma").text == "Grandma"


def test_the_editor_writes_only_the_texts_a_translator_changed(mini_catalogue):
    tina = login("tina", "Translators")
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    seen = editor_form(tina.get(url))
    before = {row.pk: (row.version, row.updated_at) for row in Translation.objects.all()}
    oma = f"conceptcard-{ConceptCard.objects.get(key='oma').pk}-text"
    assert tina.post(url, {**seen, f"text-{oma}": "Granny"}).status_code == 302
    after = {row.pk: (row.version, row.updated_at) for row in Translation.objects.all()}
    assert [pk for pk in before if before[pk] != after[pk]] == [english("oma").pk]


def test_an_invalid_text_saves_nothing_and_the_corrected_page_saves_everything(mini_catalogue):
    tina = login("tina", "Translators")
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    oma = f"conceptcard-{ConceptCard.objects.get(key='oma').pk}-text"
    liebe = f"conceptcard-{ConceptCard.objects.get(key='liebe').pk}-text"
    seen = editor_form(tina.get(url))
    response = tina.post(url, {**seen, f"text-{oma}": "Granny", f"text-{liebe}": "Lo\u202eve"})
    assert response.status_code == 200
    assert "Nothing was saved" in page_text(response)
    assert english("oma").text == "Grandmother"
    # The page shown again still counts Granny as a change: correcting Liebe saves both.
    again = editor_form(response)
    assert tina.post(url, {**again, f"text-{liebe}": "Amour"}).status_code == 302
    assert (english("oma").text, english("liebe").text) == ("Granny", "Amour")


def test_two_translators_adding_the_same_missing_translation(mini_catalogue):
    Translation.objects.filter(text="Love").delete()
    tina, tom = login("tina", "Translators"), login("tom", "Translators")
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    liebe = f"conceptcard-{ConceptCard.objects.get(key='liebe').pk}-text"
    seen_by_tina, seen_by_tom = editor_form(tina.get(url)), editor_form(tom.get(url))
    assert seen_by_tom[f"version-{liebe}"] == "0"
    assert tina.post(url, {**seen_by_tina, f"text-{liebe}": "Love"}).status_code == 302
    response = tom.post(url, {**seen_by_tom, f"text-{liebe}": "Amour"})
    assert response.status_code == 200
    assert "tina changed this text" in page_text(response)
    assert english("liebe").text == "Love"


def test_the_editor_refuses_texts_of_another_game(mini_catalogue):
    tina = login("tina", "Translators")
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    slogan = Slogan.objects.first()
    ident = f"slogan-{slogan.pk}-text"
    response = tina.post(url, {f"text-{ident}": "x", f"state-{ident}": "translated"}, follow=True)
    assert "is not a text of this game" in page_text(response)
    assert not Translation.objects.filter(text="x").exists()


# --- (c) truly simultaneous saves -------------------------------------------------------


def race(*actions: Callable[[], Any]) -> list[Any]:
    """Run the actions in threads released at the same moment; each one's result, or the
    exception it raised (each thread has its own database connection, closed at the end)."""
    barrier = threading.Barrier(len(actions))
    results: list[Any] = [None] * len(actions)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = actions[index]()
        except BaseException as exc:  # returned to the test, not lost in the thread
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(actions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def conditional_save(pk: int, version: int, text: str) -> Callable[[], str]:
    card = ConceptCard.objects.get(pk=pk)
    card.text, card._expected_version = text, version

    def save() -> str:
        try:
            with transaction.atomic():
                card.save()
        except EditConflict:
            return "refused"
        return "saved"

    return save


@pytest.mark.django_db(transaction=True)
def test_of_two_simultaneous_saves_at_one_version_exactly_one_succeeds(mini_catalogue):
    oma = ConceptCard.objects.get(key="oma")
    for round_number in range(50):
        version = ConceptCard.objects.get(pk=oma.pk).version
        texts = (f"Oma A{round_number}", f"Oma B{round_number}")
        outcomes = race(*(conditional_save(oma.pk, version, text) for text in texts))
        assert sorted(outcomes) == ["refused", "saved"], (round_number, outcomes)
        stored = ConceptCard.objects.get(pk=oma.pk)
        assert (stored.text, stored.version) == (texts[outcomes.index("saved")], version + 1)
    assert ConceptCard.history.filter(id=oma.pk, history_type="~").count() == 50


@pytest.mark.django_db(transaction=True)
def test_of_two_simultaneous_admin_saves_of_one_form_exactly_one_succeeds(mini_catalogue):
    """The whole admin path (form check, then the conditional write) under real threads."""
    clients = (login("anna", "Curators"), login("bernd", "Curators"))
    oma = ConceptCard.objects.get(key="oma")
    url = change_url(oma)
    for round_number in range(10):
        posts = [
            functools.partial(client.post, url, {**rendered_form(client.get(url)),
                                                 "text": f"Oma {i} {round_number}"})
            for i, client in enumerate(clients)
        ]
        responses = race(*posts)
        codes = [getattr(r, "status_code", r) for r in responses]
        assert sorted(codes) == [200, 302], (round_number, codes)
        winner = codes.index(302)
        assert ConceptCard.objects.get(pk=oma.pk).text == f"Oma {winner} {round_number}"
        assert "saved this concept card" in page_text(responses[1 - winner])
