"""Issue 37, item 8: a new spreadsheet row needs no hand-made key — the import makes it from
the German text as the add page does; a made key never takes over another card."""

import pytest
import tablib

from cards.catalogue import import_dataset
from cards.models import ConceptCard, SauschwerObject
from cards.resources import ConceptCardResource, SauschwerObjectResource

pytestmark = pytest.mark.django_db


def _import(resource, headers, rows):
    dataset = tablib.Dataset(*rows, headers=headers)
    return import_dataset(resource(), dataset, "test.csv")


def test_a_new_row_without_a_key_gets_the_key_the_add_page_would_make(mini_catalogue):
    report = _import(SauschwerObjectResource, ["key", "name", "weight_g", "source"],
                     [("", "Ein Kühlschrank", "55 kg", "Herstellerangabe")])
    assert not report.errors, report.errors
    fridge = SauschwerObject.objects.get(name="Ein Kühlschrank")
    assert (fridge.key, fridge.weight_g) == ("ein-kuehlschrank", 55_000)


def test_a_made_key_taken_by_another_card_is_numbered_on_and_changes_nothing_of_it(
        mini_catalogue):
    oma = ConceptCard.objects.get(key="oma")
    before = (oma.text, oma.version)
    # "Öma" makes the key "oema", free; a repeated text in the file is refused as before
    report = _import(ConceptCardResource, ["key", "text"], [("", "Öma"), ("", "Öma!")])
    assert report.errors  # the second row repeats the first's text: refused, all rolled back
    assert not ConceptCard.objects.filter(text="Öma").exists()
    report = _import(ConceptCardResource, ["key", "text"], [("", "Öma"), ("", "Opa Heinz")])
    assert not report.errors, report.errors
    assert ConceptCard.objects.get(text="Öma").key == "oema"
    oma.refresh_from_db()
    assert (oma.text, oma.version) == before


def test_two_new_rows_whose_texts_make_the_same_key_get_two_keys(mini_catalogue):
    # a key is cut at 60 characters: two long texts that differ only after that make one key
    start = "Der allerlängste Begriff für ein Spiel mit Symbolen auf Karten"
    texts = [f"{start} eins", f"{start} zwei"]
    report = _import(ConceptCardResource, ["key", "text"], [("", t) for t in texts])
    assert not report.errors, report.errors
    keys = [ConceptCard.objects.get(text=t).key for t in texts]
    assert keys[1] == f"{keys[0][:58]}-2" and len(set(keys)) == 2


def test_the_row_of_a_stored_card_without_its_key_is_that_card(mini_catalogue):
    oma = ConceptCard.objects.get(key="oma")
    report = _import(ConceptCardResource, ["key", "text"], [("", "Oma")])
    assert not report.errors, report.errors
    assert (report.new, report.unchanged) == (0, 1)
    assert ConceptCard.objects.filter(key__startswith="oma").count() == 1
    assert oma.key == "oma"
