"""Weights as curators type them: with a unit, German or English number format, one message
per broken rule; the same reader in the admin form and in spreadsheet imports."""


import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from cards.models import SauschwerObject
from cards.weights import WeightError, parse_weight, show_weight


@pytest.mark.parametrize(("typed", "grams"), [
    ("55kg", 55_000),
    ("55 kg", 55_000),
    ("55 KG", 55_000),
    ("0,5 t", 500_000),
    ("0.5 t", 500_000),
    ("1.234,5 kg", 1_234_500),
    ("1,234.5 kg", 1_234_500),
    ("1.234.567 g", 1_234_567),
    ("1,234,567 g", 1_234_567),
    ("1,5 kg", 1_500),
    ("1.5 kg", 1_500),
    ("180", 180),
    ("180 g", 180),
    ("2 Tonnen", 2_000_000),
    ("10 100 t", 10_100_000_000),
    (180, 180),
    (55.0, 55),
])
def test_a_weight_is_read_with_its_unit_in_either_number_format(typed, grams):
    assert parse_weight(typed) == grams


def test_where_a_number_reads_both_ways_the_german_reading_wins():
    assert parse_weight("1,234 kg") == 1_234  # decimal comma: 1.234 kg
    assert parse_weight("1.234 kg") == 1_234_000  # grouping dot: 1234 kg


@pytest.mark.parametrize(("typed", "message"), [
    ("-5", "A weight cannot be negative (“-5”)"),
    ("−5 kg", "A weight cannot be negative (“−5 kg”)"),
    ("0", "“0” weighs nothing: an object weighs at least 1 g."),
    ("0 kg", "“0 kg” weighs nothing"),
    ("abc", "“abc” is not a weight: write a number with g, kg or t"),
    ("kg", "“kg” is not a weight"),
    ("55 lb", "“lb” in “55 lb” is not a unit this game knows: use g, kg or t."),
    ("0,5 g", "“0,5 g” is not a whole number of grams"),
    ("1,2,3", "“1,2,3” is not a number one can read."),
    ("", "Enter a weight"),
    ("99999999999999 t", "is heavier than any weight this game can keep"),
    ("1 " * 60_000 + "kg", "“" + "1 " * 20 + "…” is not a weight"),
])
def test_each_broken_rule_has_its_own_message(typed, message):
    with pytest.raises(WeightError) as caught:
        parse_weight(typed)
    assert message in str(caught.value)


def test_minus_five_and_zero_get_different_messages():
    messages = set()
    for typed in ("-5", "0"):
        with pytest.raises(WeightError) as caught:
            parse_weight(typed)
        messages.add(str(caught.value).replace(typed, ""))
    assert len(messages) == 2


@pytest.mark.parametrize(("grams", "shown"), [
    (1, "1 g"), (180, "180 g"), (1_000, "1 kg"), (1_234, "1.234 g"), (1_500, "1,5 kg"),
    (2_250, "2,25 kg"), (55_000, "55 kg"), (500_000, "500 kg"), (1_234_500, "1.234,5 kg"),
    (1_234_567, "1.234.567 g"), (2_000_000, "2 t"), (10_100_000_000, "10.100 t"),
])
def test_a_weight_is_shown_in_its_best_unit_and_reads_back_exactly(grams, shown):
    assert show_weight(grams) == shown
    assert parse_weight(shown) == grams


@pytest.fixture
def carla(client, db):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def _add(client, weight):
    return client.post(reverse("admin:cards_sauschwerobject_add"), {
        "name": "Ein Kühlschrank", "key": "ein-kuehlschrank", "weight_g": weight,
        "source": "Datenblatt", "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
        "cards-translation-content_type-object_id-INITIAL_FORMS": "0", "_save": "Save",
    })


@pytest.mark.django_db
def test_a_curator_types_55kg_and_gets_55_kilograms_shown_back_as_55_kg(carla):
    response = _add(carla, "55kg")
    assert response.status_code == 302, response.content.decode()[:3000]
    obj = SauschwerObject.objects.get(key="ein-kuehlschrank")
    assert obj.weight_g == 55_000
    page = carla.get(reverse("admin:cards_sauschwerobject_change", args=[obj.pk])).content.decode()
    assert 'value="55 kg"' in page
    assert "A plain number is grams" in page
    listing = carla.get(reverse("admin:cards_sauschwerobject_changelist")).content.decode()
    assert '<td class="field-weight">55 kg</td>' in listing


@pytest.mark.django_db
def test_a_negative_weight_is_refused_with_its_message_and_nothing_is_saved(carla):
    response = _add(carla, "-5 kg")
    assert response.status_code == 200
    assert "A weight cannot be negative" in response.content.decode()
    assert not SauschwerObject.objects.filter(key="ein-kuehlschrank").exists()


@pytest.mark.django_db
def test_an_import_reads_weights_with_their_unit_like_the_admin(mini_catalogue, tmp_path,
                                                                 run_command):
    path = tmp_path / "dinge.csv"
    path.write_text('key,name,weight_g,source\nein-kuehlschrank,Ein Kühlschrank,"55,5 kg",Blatt\n'
                    "ein-stein,Ein Stein,1.234 g,Waage\n", encoding="utf-8")
    status, _out, err = run_command("import_content", str(path))
    assert status == 0, err
    assert SauschwerObject.objects.get(key="ein-kuehlschrank").weight_g == 55_500
    assert SauschwerObject.objects.get(key="ein-stein").weight_g == 1_234


@pytest.mark.django_db
def test_an_import_names_the_unknown_unit_on_its_row(mini_catalogue, tmp_path, run_command):
    path = tmp_path / "dinge.csv"
    path.write_text("key,name,weight_g,source\nein-stein,Ein Stein,3 lb,Waage\n", encoding="utf-8")
    status, _out, err = run_command("import_content", str(path))
    assert status == 1
    assert "row 2, column `weight_g`: “lb” in “3 lb” is not a unit this game knows" in err
    assert not SauschwerObject.objects.filter(key="ein-stein").exists()
