"""The translation editor's search on its index (cards/search.py): the texts that contain the
search, ignoring case, in the German source or the translation; the index follows every write."""

from __future__ import annotations

import pytest
from django.db import connection

from cards.models import SauschwerObject, Translation
from cards.progress import units
from cards.translation import save_translation

NAMES = {
    "gross": ("Große Straße", "Big street"),
    "aepfel": ("ÄPFEL im Korb", "Apples in a basket"),
    "oefen": ("Öfen und Herde", ""),
    "zitat": ('Ein "Zitat" mit 100% Saft_Rest', "A “quote”"),
    "masse": ("Masse aus Ton", "MASS of clay"),
    "uebel": ("übel riechender Käse", "Smelly CHEESE"),
}
SEARCHES = ["straße", "STRASSE", "Straße", "äpfel", "ÄPFEL", "Äpfel", "öfen", "ÖFEN", "apples",
            "APPLES", "cheese", "KÄSE", "käse", '"zitat"', "100%", "t_r", "saft_", "ss", "ß", "e",
            "mass", "asse", "x", "ä", "big street", "t m", "nichts davon", "a “quote”", "Ton"]


def expected(search: str) -> set[str]:
    """The reference: contains, ignoring case (str.lower: Ä is ä; ß stays ß)."""
    needle = search.lower()
    return {key for key, (name, english) in NAMES.items()
            if needle in name.lower() or (english and needle in english.lower())}


def found(search: str) -> set[str]:
    return {unit.obj.key for unit in units("sauschwer", "en", "", search)[0:100]}


@pytest.fixture
def objects(db):
    for weight, (key, (name, english)) in enumerate(NAMES.items(), start=1):
        obj = SauschwerObject.objects.create(key=key, name=name, weight_g=weight, source="gewogen")
        if english:
            save_translation(obj, "name", "en", english)


@pytest.mark.django_db
@pytest.mark.parametrize("search", SEARCHES)
def test_the_search_finds_what_contains_it_ignoring_case_umlauts_included(objects, search):
    assert found(search) == expected(search)


@pytest.mark.django_db
@pytest.mark.parametrize("search", [s for s in SEARCHES if s.isascii()])
def test_the_search_finds_what_reading_every_text_found(objects, search):
    """Today's search (icontains over every row) and the index agree; SQLite's LIKE folds
    only ASCII letters, so the umlaut searches are compared with the reference above."""
    old = {o.key for o in SauschwerObject.objects.filter(name__icontains=search)} | {
        o.key for o in SauschwerObject.objects.filter(pk__in=Translation.objects.filter(
            language="en", text__icontains=search).values("object_id"))}
    assert found(search) == old


@pytest.mark.django_db
def test_the_search_counts_and_pages_like_the_list_it_gives(objects):
    listed = units("sauschwer", "en", "", "e")
    assert listed.count() == len(expected("e")) == len(listed[0:100])


@pytest.mark.django_db
def test_the_index_follows_changes_deletions_and_batched_writes(objects):
    obj = SauschwerObject.objects.get(key="gross")
    obj.name = "Kleine Gasse"
    obj.save()
    assert found("straße") == set() and found("GASSE") == {"gross"}
    save_translation(obj, "name", "en", "Small alley")
    assert found("street") == set() and found("alley") == {"gross"}
    SauschwerObject.objects.filter(key="oefen").update(name="Backöfen")
    assert found("backÖFEN") == {"oefen"}
    Translation.objects.filter(object_id=obj.pk).update(text="Narrow lane")
    assert found("alley") == set() and found("lane") == {"gross"}
    obj.delete()
    assert found("gasse") == set() and found("lane") == set()
    SauschwerObject.objects.bulk_create([SauschwerObject(key="neu", name="Neuer Krug",
                                                         weight_g=9, source="gewogen")])
    assert found("krug") == {"neu"}


@pytest.mark.django_db
def test_a_search_of_three_characters_or_more_reads_the_index(objects):
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        found("äpfel")
    sql = " ".join(q["sql"] for q in queries.captured_queries)
    if connection.vendor == "sqlite":
        assert "cards_sauschwerobject_name_search" in sql and "cards_translation_text_search" in sql
        assert "LIKE" not in sql
    else:  # the trigram index on UPPER(name), used once a table is worth an index
        with connection.cursor() as cursor:  # a table this small is read whole otherwise
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_indexscan = off")
        plan = SauschwerObject.objects.filter(name__icontains="äpfel").order_by().explain()
        assert "cards_sauschwerobject_name_trgm" in plan, plan
        plan = Translation.objects.filter(text__icontains="äpfel").order_by().explain()
        assert "cards_translation_text_trgm" in plan, plan
