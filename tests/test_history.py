"""Every change is recorded with who and when; a curator can bring back what was lost."""

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from cards.catalogue import import_catalogue
from cards.models import ConceptCard, Slogan, SloganCard, SloganOption, Translation
from tests.test_catalogue import copy_mini, rewrite

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
    client.user = user
    return client


def test_an_admin_change_is_recorded_with_who_and_what(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    url = reverse("admin:cards_conceptcard_change", args=[oma.pk])
    assert carla.post(url, {"text": "Großmutter", "key": "oma", **NO_INLINES}).status_code == 302
    latest = oma.history.first()
    assert (latest.history_type, latest.history_user, latest.text) == ("~", carla.user, "Großmutter")
    page = carla.get(reverse("admin:cards_conceptcard_history", args=[oma.pk])).content.decode()
    assert "carla" in page
    # The history page shows the change as a diff: the field, the old and the new text.
    assert "Oma" in page and "Großmutter" in page


def test_an_import_writes_history_too(mini_catalogue, tmp_path):
    folder = copy_mini(tmp_path)
    rewrite(folder / "symbols" / "concepts.csv", lambda rows: rows[2].__setitem__(1, "Die Liebe"))
    assert not import_catalogue(folder).errors
    liebe = ConceptCard.objects.get(key="liebe")
    assert [h.history_type for h in liebe.history.all()] == ["~", "+"]
    assert liebe.history.first().text == "Die Liebe"
    assert liebe.history.first().history_change_reason == "import_catalogue catalogue/"
    # and the translation that dropped to needs editing has its own record
    love = Translation.objects.get(text="Love")
    assert love.history.first().state == "needs_editing"


def test_a_curator_brings_back_an_earlier_version(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    url = reverse("admin:cards_conceptcard_change", args=[oma.pk])
    carla.post(url, {"text": "Großmutter", "key": "oma", **NO_INLINES})
    first = oma.history.earliest("history_date")
    revert = reverse("admin:cards_conceptcard_simple_history", args=[oma.pk, first.history_id])
    response = carla.post(revert, {"text": first.text, "key": "oma", **NO_INLINES})
    assert response.status_code == 302
    oma.refresh_from_db()
    assert oma.text == "Oma"
    # the translation made from "Oma" is valid again
    assert Translation.objects.get(text="Grandmother").state == "approved"


def test_a_deleted_slogan_card_comes_back_with_its_slogans_options_and_translations(
    mini_catalogue, carla
):
    # A slogan is deleted with its card (a card is one unit), and comes back with it.
    card = SloganCard.objects.get(key="karte-002")
    pk = card.pk

    def contents():
        return {
            s.key: (s.side, list(s.options.order_by("position").values_list("text", "is_correct")))
            for s in Slogan.objects.filter(card_id=pk)
        }

    before = contents()
    translations = Translation.objects.count()
    slogan_ids = list(Slogan.objects.filter(card_id=pk).values_list("pk", flat=True))
    option_ids = list(SloganOption.objects.filter(slogan_id__in=slogan_ids).values_list("pk", flat=True))
    own = (Translation.objects.filter(content_type=ContentType.objects.get_for_model(Slogan),
                                      object_id__in=slogan_ids).count()
           + Translation.objects.filter(content_type=ContentType.objects.get_for_model(SloganOption),
                                        object_id__in=option_ids).count())
    assert own >= 8  # the card's options' translations at least
    delete = reverse("admin:cards_slogancard_delete", args=[pk])
    assert carla.post(delete, {"post": "yes"}).status_code == 302
    assert not SloganCard.objects.filter(pk=pk).exists()
    assert contents() == {}
    # its slogans' and their options' translations go with it
    assert Translation.objects.count() == translations - own

    listing = carla.get(reverse("admin:cards_deleted")).content.decode()
    assert "karte-002" in listing and "just-do-it" in listing

    last_version = SloganCard.history.filter(id=pk).exclude(history_type="-").first()
    revert = reverse("admin:cards_slogancard_simple_history", args=[pk, last_version.history_id])
    response = carla.post(revert, {"key": "karte-002"})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert contents() == before
    assert Translation.objects.count() == translations
    option = SloganOption.objects.get(slogan__key="just-do-it", position=4)
    assert option.translation("text", "en").text == "Nike"
    assert "No card has been deleted." in carla.get(reverse("admin:cards_deleted")).content.decode()
