"""Approving in the editor respects the checks (issue 37.2): *Approve this page* approves the
texts no check questions and lists the others; each of those is approved only by its own
*Approve anyway*, also against a forged POST; a dismissed finding holds nothing back."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from cards.models import CheckDismissal, SauschwerObject, Translation, TranslationState
from tests.permission_matrix.forms import FormReader

pytestmark = pytest.mark.django_db

EDITOR = reverse("admin:cards_translate", args=["sauschwer", "en"])
APPROVED, TRANSLATED = TranslationState.APPROVED, TranslationState.TRANSLATED


def _client(group: str) -> Client:
    user = User.objects.create_user(username=group.lower(), password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def questioned(mini_catalogue) -> Translation:
    """Every object's name translated, not approved; the egg's with a finding (a "!" the
    German does not have)."""
    Translation.objects.filter(language="en", content_type__model="sauschwerobject").update(
        state=TRANSLATED)
    egg = SauschwerObject.objects.get(key="ein-huehnerei").translation("name", "en")
    egg.text = "A hen's egg!"
    egg.save()
    return egg


def _page(client: Client, params: dict | None = None) -> dict[str, str]:  # type: ignore[type-arg]
    reader = FormReader()
    reader.feed(client.get(EDITOR, params or {}).content.decode())
    form = max(reader.forms, key=len)
    return {name: value for name, value in form if name != "approve_anyway"}


def _states() -> dict[str, str]:
    return {row.content_object.key: row.state for row in Translation.objects.filter(
        language="en", content_type__model="sauschwerobject")}


def test_approve_this_page_leaves_a_text_with_open_findings_and_names_it(questioned):
    carla = _client("Curators")
    response = carla.post(EDITOR, {**_page(carla), "approve_page": "Approve this page"},
                          follow=True)
    states = _states()
    assert states.pop("ein-huehnerei") == TRANSLATED
    assert set(states.values()) == {APPROVED}
    page = response.content.decode()
    assert f"Approved {len(states)} translations." in page
    assert "Not approved, because checks found problems: ein-huehnerei (" in page
    held = page.split('id="held-back"')[1].split("</div>")[0]
    ident = f"sauschwerobject-{questioned.object_id}-name"
    assert f'name="approve_anyway" value="{ident}"' in held and "A hen&#x27;s egg!" in held


def test_approve_anyway_approves_that_one_text_on_purpose(questioned):
    carla = _client("Curators")
    ident = f"sauschwerobject-{questioned.object_id}-name"
    response = carla.post(EDITOR, {**_page(carla), "approve_anyway": ident}, follow=True)
    questioned.refresh_from_db()
    assert (questioned.text, questioned.state) == ("A hen's egg!", APPROVED)
    assert "Approved as it is, on purpose: ein-huehnerei." in response.content.decode()
    assert set(_states().values()) == {APPROVED, TRANSLATED}  # the others as they were


def test_a_forged_approval_without_its_own_confirmation_approves_nothing_questioned(questioned):
    carla = _client("Curators")
    other = SauschwerObject.objects.get(key="ein-blauwal")
    data = _page(carla)
    # the egg picked as approved in its row, and an Approve anyway for another text
    data[f"state-sauschwerobject-{questioned.object_id}-name"] = APPROVED
    carla.post(EDITOR, {**data, "approve_anyway": f"sauschwerobject-{other.pk}-name"})
    questioned.refresh_from_db()
    assert questioned.state == TRANSLATED
    assert _states()["ein-blauwal"] == APPROVED


def test_a_translators_approve_anyway_is_refused_and_writes_nothing(questioned):
    tina = _client("Translators")
    before = list(Translation.objects.values_list("pk", "text", "state", "version").order_by("pk"))
    ident = f"sauschwerobject-{questioned.object_id}-name"
    response = tina.post(EDITOR, {**_page(tina), "approve_anyway": ident})
    assert response.status_code == 403
    assert list(Translation.objects.values_list("pk", "text", "state", "version")
                .order_by("pk")) == before


def test_a_dismissed_finding_no_longer_holds_a_text_back(questioned):
    carla = _client("Curators")
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    CheckDismissal.objects.create(content_object=egg, field="name", language="en",
                                  check_name="ending-punctuation", reason="the card shouts",
                                  text=questioned.text, source=egg.name)
    response = carla.post(EDITOR, {**_page(carla), "approve_page": "1"}, follow=True)
    assert set(_states().values()) == {APPROVED}
    assert "held-back" not in response.content.decode()


def test_approve_selected_in_the_translations_list_leaves_a_questioned_text_too(questioned):
    carla = _client("Curators")
    selected = Translation.objects.filter(language="en", content_type__model="sauschwerobject")
    response = carla.post(reverse("admin:cards_translation_changelist"), {
        "action": "approve_selected", "index": "0",
        "_selected_action": list(selected.values_list("pk", flat=True))}, follow=True)
    states = _states()
    assert states.pop("ein-huehnerei") == TRANSLATED and set(states.values()) == {APPROVED}
    assert "Not approved, because checks found problems: ein-huehnerei [en] (" in (
        response.content.decode())
