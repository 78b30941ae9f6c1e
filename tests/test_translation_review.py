"""Review holds (issue 23.1): only a reviewer approves, and an edited approved text is
translated again, in the editor, on the Translations list and on a card's page."""

import pytest
from django.contrib.auth.models import Group, User
from django.test import RequestFactory
from django.urls import reverse

from cards.models import ConceptCard, Translation
from curation.forbidden import forbidden

pytestmark = pytest.mark.django_db

EDITOR = reverse("admin:cards_translate", args=["symbols", "en"])


def _login(client, name: str, group: str):
    user = User.objects.create_user(username=name, password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client.force_login(user)
    return client


@pytest.fixture
def tina(client):
    return _login(client, "tina", "Translators")


@pytest.fixture
def carla(client):
    return _login(client, "carla", "Curators")


def _oma():
    card = ConceptCard.objects.get(key="oma")
    row = card.translation("text", "en")
    assert row.state == "approved"
    return card, row


def _editor_post(client, card, text, state, *, was_state="approved", was_text=None, row=None, **extra):
    ident = f"conceptcard-{card.pk}-text"
    data = {f"text-{ident}": text, f"state-{ident}": state,
            f"was-state-{ident}": was_state}
    if row is not None:
        data[f"was-text-{ident}"] = row.text if was_text is None else was_text
        data[f"version-{ident}"] = str(row.version)
    return client.post(EDITOR + "?state=", {**data, **extra}, follow=True)


def test_a_translator_who_rewrites_an_approved_text_makes_it_translated(mini_catalogue, tina):
    card, row = _oma()
    response = _editor_post(tina, card, "Granny", "approved", row=row)
    row.refresh_from_db()
    assert (row.text, row.state) == ("Granny", "translated")
    assert "translated again until a reviewer approves it" in response.content.decode()


def test_a_translator_cannot_approve_by_choosing_the_state(mini_catalogue, tina):
    card, row = _oma()
    Translation.objects.filter(pk=row.pk).update(state="translated")
    row.refresh_from_db()
    response = _editor_post(tina, card, row.text, "approved", was_state="translated", row=row)
    row.refresh_from_db()
    assert row.state == "translated"
    assert "approving needs the reviewer" in response.content.decode()


def test_a_translators_approve_page_is_refused_and_writes_nothing(mini_catalogue, tina):
    card, row = _oma()
    Translation.objects.filter(pk=row.pk).update(state="translated")
    before = list(Translation.objects.values_list("pk", "text", "state", "version").order_by("pk"))
    response = tina.post(EDITOR, {f"text-conceptcard-{card.pk}-text": "Grandmother",
                                  "approve_page": "Approve this page"})
    assert response.status_code == 403
    assert list(Translation.objects.values_list("pk", "text", "state", "version").order_by("pk")) == before


def test_the_editor_offers_approving_to_reviewers_only(mini_catalogue, client):
    translator = _login(client, "tina", "Translators").get(EDITOR).content.decode()
    assert 'name="approve_page"' not in translator
    assert 'value="approved" disabled' in translator or 'value="approved" selected' in translator
    client.logout()
    curator = _login(client, "carla", "Curators").get(EDITOR).content.decode()
    assert 'name="approve_page"' in curator
    assert "disabled" not in curator.split('id="editor"')[1].split("</table>")[0]


def test_a_reviewer_who_edits_an_approved_text_must_approve_it_again(mini_catalogue, carla):
    card, row = _oma()
    _editor_post(carla, card, "Granny", "approved", row=row)
    row.refresh_from_db()
    assert (row.text, row.state) == ("Granny", "translated")
    _editor_post(carla, card, "Granny", "approved", was_state="translated", row=row)
    row.refresh_from_db()
    assert row.state == "approved"


def test_a_reviewers_approve_page_approves_an_edited_text(mini_catalogue, carla):
    card, row = _oma()
    _editor_post(carla, card, "Granny", "approved", row=row, approve_page="Approve this page")
    row.refresh_from_db()
    assert (row.text, row.state) == ("Granny", "approved")


def test_the_translations_list_change_form_follows_review(mini_catalogue, tina):
    _card, row = _oma()
    url = reverse("admin:cards_translation_change", args=[row.pk])
    response = tina.post(url, {"text": "Granny", "state": "approved", "version": row.version}, follow=True)
    assert response.status_code == 200
    row.refresh_from_db()
    assert (row.text, row.state) == ("Granny", "translated")


def test_the_bulk_approve_action_is_the_reviewers(mini_catalogue, client):
    _card, row = _oma()
    Translation.objects.filter(pk=row.pk).update(state="translated")
    data = {"action": "approve_selected", "index": "0", "_selected_action": [row.pk]}
    url = reverse("admin:cards_translation_changelist")
    tina = _login(client, "tina", "Translators")
    tina.post(url, data)
    row.refresh_from_db()
    assert row.state == "translated"
    client.logout()
    _login(client, "carla", "Curators").post(url, data)
    row.refresh_from_db()
    assert row.state == "approved"


def test_a_refused_page_is_admin_styled_and_names_the_role_it_needs(mini_catalogue, tina):
    response = tina.get(reverse("admin:cards_deleted"))
    assert response.status_code == 403
    page = response.content.decode()
    assert 'id="site-name"' in page or "Kartothek" in page
    assert "You are signed in as <strong>tina</strong>" in page
    assert "Can change concept card — held by Curators" in page


def test_the_admins_own_refusals_get_the_styled_page_too(mini_catalogue, tina):
    card = ConceptCard.objects.get(key="oma")
    response = tina.post(reverse("admin:cards_conceptcard_delete", args=[card.pk]), {"post": "yes"})
    assert response.status_code == 403
    assert "may not open this page" in response.content.decode()
    assert ConceptCard.objects.filter(pk=card.pk).exists()


def test_an_api_refusal_stays_json(client):
    request = RequestFactory().get("/api/x")
    response = forbidden(request)
    assert (response.status_code, response["Content-Type"]) == (403, "application/json")


def test_a_translators_read_only_card_does_not_talk_of_saving(mini_catalogue, tina):
    card = ConceptCard.objects.get(key="oma")
    page = tina.get(reverse("admin:cards_conceptcard_change", args=[card.pk])).content.decode()
    assert "nothing is saved until you press Save" not in page
    assert "You may read this card, not change it." in page
