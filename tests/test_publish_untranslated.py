"""Publishing a pack in another language names the texts that have no translation yet and
asks before it publishes them in German (issue 23.7)."""

import pytest
from django.contrib.auth.models import Group, User

from cards.models import SauschwerObject
from exports.changes import untranslated
from exports.models import Release
from exports.packs import build_pack
from tests.publishing import review_url, reviewed

pytestmark = pytest.mark.django_db


@pytest.fixture
def carla(client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def _new_objects():
    for i, name in enumerate(["Ein Kühlschrank", "Eine Waschmaschine", "Ein Klavier"]):
        SauschwerObject.objects.create(key=f"neu-{i}", name=name, weight_g=50_000 + i, source="test")


def test_the_english_review_names_the_texts_without_english(mini_catalogue, carla):
    _new_objects()
    page = carla.get(review_url("sauschwer", "en")).content.decode()
    assert "3 texts have no EN translation</strong> and would be published in German" in page
    for name in ("Ein Kühlschrank", "Eine Waschmaschine", "Ein Klavier"):
        assert f'<span lang="de">{name}</span>' in page
    assert "/admin/cards/translate/sauschwer/en/?state=empty" in page


def test_publishing_them_needs_its_own_tick_and_publishes_nothing_without(mini_catalogue, carla):
    _new_objects()
    form = reviewed(carla.get(review_url("sauschwer", "en")).content.decode())
    page = carla.post(review_url("sauschwer", "en"), {**form, "confirm": "on"}).content.decode()
    assert "3 texts have no EN translation and would be published in German" in page
    assert not Release.objects.filter(game="sauschwer", language="en").exists()
    carla.post(review_url("sauschwer", "en"), {**form, "confirm": "on", "publish_untranslated": "on"})
    assert Release.objects.filter(game="sauschwer", language="en").count() == 1


def test_the_german_review_and_a_fully_translated_pack_do_not_ask(mini_catalogue, carla):
    assert untranslated(build_pack("sauschwer", "en")) == []
    _new_objects()
    assert "no DE translation" not in carla.get(review_url("sauschwer", "de")).content.decode()
    assert untranslated(build_pack("sauschwer", "de")) == []
    assert [t["key"] for t in untranslated(build_pack("sauschwer", "en"))] == ["neu-0", "neu-1", "neu-2"]
