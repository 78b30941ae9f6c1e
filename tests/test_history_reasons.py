"""History says why: admin edits name the fields, reverts the version they brought back; the
revert page shows what it will change; a deleted card's page names the version to restore."""

import re

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse
from django.utils import timezone

from cards.models import ConceptCard, SloganCard, Translation

pytestmark = pytest.mark.django_db

NO_INLINES = {
    "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
    "cards-translation-content_type-object_id-INITIAL_FORMS": "0",
}


@pytest.fixture
def carla(client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_an_admin_edit_records_the_fields_it_changed(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    url = reverse("admin:cards_conceptcard_change", args=[oma.pk])
    assert carla.post(url, {"text": "Großmutter", **NO_INLINES}).status_code == 302
    assert oma.history.first().history_change_reason == "Changed in the admin: text"
    page = _text(carla.get(reverse("admin:cards_conceptcard_history", args=[oma.pk]))
                 .content.decode())
    assert "Changed in the admin: text" in page
    assert "None" not in page


def test_an_added_card_and_its_translation_say_they_were_added_in_the_admin(db, carla):
    response = carla.post(reverse("admin:cards_conceptcard_add"), {
        "text": "Weltraum", "key": "weltraum",
        "cards-translation-content_type-object_id-TOTAL_FORMS": "1",
        "cards-translation-content_type-object_id-INITIAL_FORMS": "0",
        "cards-translation-content_type-object_id-0-language": "en",
        "cards-translation-content_type-object_id-0-field": "text",
        "cards-translation-content_type-object_id-0-text": "Space",
        "cards-translation-content_type-object_id-0-state": "translated",
    })
    assert response.status_code == 302, _text(response.content.decode())[:3000]
    card = ConceptCard.objects.get(key="weltraum")
    assert card.history.first().history_change_reason == "Added in the admin"
    space = Translation.objects.get(text="Space")
    assert space.history.first().history_change_reason == "Added in the admin (en translation)"


def test_a_revert_records_the_version_and_date_it_brought_back(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    carla.post(reverse("admin:cards_conceptcard_change", args=[oma.pk]),
               {"text": "Großmutter", **NO_INLINES})
    first = oma.history.earliest("history_date")
    revert = reverse("admin:cards_conceptcard_simple_history", args=[oma.pk, first.history_id])
    assert carla.post(revert, {"text": first.text, **NO_INLINES}).status_code == 302
    when = timezone.localtime(first.history_date).strftime("%Y-%m-%d %H:%M")
    assert oma.history.first().history_change_reason == (
        f"Reverted to version {first.version} of {when}")


def test_the_revert_page_shows_what_changes_against_todays_version(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    carla.post(reverse("admin:cards_conceptcard_change", args=[oma.pk]),
               {"text": "Großmutter", **NO_INLINES})
    first = oma.history.earliest("history_date")
    page = carla.get(reverse("admin:cards_conceptcard_simple_history",
                             args=[oma.pk, first.history_id])).content.decode()
    diff = _text(page[page.index('id="revert-diff"'):page.index("</table>",
                                                                  page.index('id="revert-diff"'))])
    assert f"Reverting to version {first.version}" in diff
    assert "text Großmutter Oma" in diff  # field, today, after the revert
    assert "key" not in diff.split("after the revert", 1)[1]  # unchanged fields are not listed
    latest = oma.history.first()
    same = carla.get(reverse("admin:cards_conceptcard_simple_history",
                             args=[oma.pk, latest.history_id])).content.decode()
    assert "reverting changes nothing" in same


def test_the_deleted_cards_page_links_the_version_to_restore(mini_catalogue, carla):
    card = SloganCard.objects.get(key="karte-002")
    pk = card.pk
    last = card.history.first()
    assert carla.post(reverse("admin:cards_slogancard_delete", args=[pk]),
                      {"post": "yes"}).status_code == 302
    listing = carla.get(reverse("admin:cards_deleted")).content.decode()
    restore = reverse("admin:cards_slogancard_simple_history", args=[pk, last.history_id])
    when = timezone.localtime(last.history_date).strftime("%Y-%m-%d %H:%M")
    assert f'href="{restore}">restore version {last.version} of {when}</a>' in listing
    # its slogans went with it and come back with it: no restore link of their own
    assert listing.count("comes back with its slogan card <code>karte-002</code>") == 2
    assert listing.count('class="restore-link"') == 1
    page = _text(carla.get(restore).content.decode())
    assert "This card is deleted" in page
    assert f"Reverting brings back version {last.version} of {when}" in page
