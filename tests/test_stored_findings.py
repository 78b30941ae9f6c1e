"""Stored translation check findings and counts per state (cards/findings.py): after every kind
of change they equal what running every check afresh (cards.checks.catalogue_findings) and
counting the translations (cards.progress.count_by_state) give."""

from __future__ import annotations

import csv
from pathlib import Path

import polib
import pytest
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards.catalogue import import_catalogue, import_file
from cards.checks import catalogue_findings
from cards.findings import rebuild_findings, refresh_findings, target_languages
from cards.history import restore_related
from cards.models import (
    CheckDismissal,
    ConceptCard,
    Game,
    GlossaryTerm,
    SauschwerObject,
    Slogan,
    StaleFindings,
    TranslationFinding,
    TranslationState,
)
from cards.po import export_po, import_po
from cards.progress import progress
from cards.translation import save_translation

STARTER = Path(__file__).resolve().parent.parent / "fixtures"


def fresh() -> set[tuple]:
    """Every open finding, every check run now (the single source of truth)."""
    return {
        (ContentType.objects.get_for_model(type(c.obj)).pk, c.obj.pk, c.field, language,
         game, f.check, f.message)
        for game in Game.values for language in target_languages()
        for c in catalogue_findings(game, language) for f in c.findings
    }


def stored() -> set[tuple]:
    refresh_findings()
    rows = TranslationFinding.objects.values_list(
        "content_type_id", "object_id", "field", "language", "game", "check_name", "message")
    found = list(rows)
    assert len(found) == len(set(found))
    return set(found)


def assert_up_to_date() -> set[tuple]:
    now = stored()
    assert now == fresh()
    assert not StaleFindings.objects.exists()
    for game in Game.values:  # the progress page's stored counts, as counting them now gives
        for language in target_languages():
            assert progress(game, language).counts == progress(game, language, stored=False).counts
    return now


def checks_on(obj, field: str = "text") -> set[str]:  # type: ignore[no-untyped-def]
    refresh_findings()
    return set(TranslationFinding.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)), object_id=obj.pk,
        field=field).values_list("check_name", flat=True))


@pytest.fixture
def catalogue(mini_catalogue):
    before = assert_up_to_date()
    assert before, "the mini catalogue has findings to follow"
    return before


@pytest.mark.django_db
def test_loading_a_catalogue_stores_its_findings(catalogue):
    assert {row[5] for row in catalogue} >= {"unchanged"}


@pytest.mark.django_db
def test_a_saved_translation_updates_its_findings(catalogue):
    goethe = ConceptCard.objects.get(key="goethe")
    assert "unchanged" in checks_on(goethe)
    save_translation(goethe, "text", "en", "Goethe the  poet")
    assert "double-space" in checks_on(goethe) and "unchanged" not in checks_on(goethe)
    assert_up_to_date()


@pytest.mark.django_db
def test_an_approved_translation_keeps_its_findings_true(catalogue):
    goethe = ConceptCard.objects.get(key="goethe")
    save_translation(goethe, "text", "en", "Goethe…", TranslationState.APPROVED)
    assert "placeholder" in checks_on(goethe)
    assert_up_to_date()


@pytest.mark.django_db
def test_a_changed_german_source_updates_the_findings_of_its_translations(catalogue):
    slogan = Slogan.objects.exclude(text__contains="…").first()
    slogan.text = slogan.text.rstrip(".!") + " mit …"
    slogan.save()
    assert "placeholder" in checks_on(slogan)
    assert_up_to_date()


@pytest.mark.django_db
def test_stays_german_and_markets_update_the_findings(catalogue):
    slogan = Slogan.objects.filter(keep_german=False).first()
    save_translation(slogan, "text", "en", slogan.text)
    assert "unchanged" in checks_on(slogan)
    slogan.markets = "de,en"
    slogan.save()
    assert "unchanged" not in checks_on(slogan)
    assert_up_to_date()
    slogan.markets = "de"
    slogan.keep_german = True
    slogan.save()
    assert "unchanged" not in checks_on(slogan)
    assert_up_to_date()


@pytest.mark.django_db
def test_a_glossary_entry_added_changed_and_deleted_updates_the_language(catalogue):
    goethe = ConceptCard.objects.get(key="goethe")
    save_translation(goethe, "text", "en", "Goethe the poet")
    entry = GlossaryTerm.objects.create(language="en", term="Goethe", translation="Schiller",
                                        game="symbols")
    assert "glossary" in checks_on(goethe)
    assert_up_to_date()
    entry.translation = "Goethe"
    entry.save()
    assert "glossary" not in checks_on(goethe)
    entry.translation, entry.game = "Schiller", "sign"  # now another game's word
    entry.save()
    assert "glossary" not in checks_on(goethe)
    assert_up_to_date()
    entry.game = ""
    entry.save()
    assert "glossary" in checks_on(goethe)
    entry.delete()
    assert "glossary" not in checks_on(goethe)
    assert_up_to_date()


@pytest.mark.django_db
def test_a_dismissal_added_and_removed_updates_the_findings(catalogue):
    goethe = ConceptCard.objects.get(key="goethe")
    row = goethe.translation("text", "en")
    dismissal = CheckDismissal.objects.create(
        content_object=goethe, field="text", language="en", check_name="unchanged",
        reason="A name.", text=row.text, source=goethe.text)
    assert "unchanged" not in checks_on(goethe)
    assert_up_to_date()
    dismissal.delete()
    assert "unchanged" in checks_on(goethe)
    assert_up_to_date()


@pytest.mark.django_db
def test_a_deleted_and_restored_card_takes_its_findings_away_and_back(catalogue):
    goethe = ConceptCard.objects.get(key="goethe")
    pk = goethe.pk
    goethe.delete()
    assert checks_on(ConceptCard(pk=pk)) == set()
    after_delete = assert_up_to_date()
    assert after_delete != catalogue
    record = ConceptCard.history.filter(id=pk).exclude(history_type="-").order_by("-history_date").first()
    deleted_at = ConceptCard.history.filter(id=pk, history_type="-").get().history_date
    restored = record.instance
    restored.save()
    restore_related(restored, deleted_at)
    assert "unchanged" in checks_on(restored)
    assert assert_up_to_date() == catalogue


@pytest.mark.django_db
def test_a_spreadsheet_import_in_batches_updates_the_findings(catalogue, tmp_path):
    # Sauschwer objects are written with bulk_update (no signals): the import marks them.
    obj = SauschwerObject.objects.order_by("key").first()
    save_translation(obj, "name", "en", "A thing")
    assert_up_to_date()
    path = tmp_path / "objects.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "name", "weight_g", "source"])
        for item in SauschwerObject.objects.order_by("key"):
            name = "A thing" if item.pk == obj.pk else item.name
            writer.writerow([item.key, name, item.weight_g, item.source])
        writer.writerow(["neues-ding", "Neues Ding", "12", "gewogen"])
    _kind, report = import_file(path)
    assert not report.errors, report.errors
    assert "unchanged" in checks_on(SauschwerObject.objects.get(pk=obj.pk), "name")
    assert_up_to_date()


@pytest.mark.django_db
def test_a_translation_file_import_updates_the_findings(catalogue, tmp_path):
    goethe = ConceptCard.objects.get(key="goethe")
    path = tmp_path / "concepts.csv"
    path.write_text("key,field,language,text,state\ngoethe,text,en,Goethe…,translated\n",
                    encoding="utf-8")
    _kind, report = import_file(path, type_hint="concept cards")
    assert not report.errors, report.errors
    assert "placeholder" in checks_on(goethe)
    assert_up_to_date()


@pytest.mark.django_db
def test_a_po_import_updates_the_findings(catalogue):
    goethe = ConceptCard.objects.get(key="goethe")
    save_translation(goethe, "text", "en", "Goethe")  # approved texts are not overwritten by PO
    po = polib.pofile(export_po("symbols", "en"))
    next(e for e in po if e.msgctxt == "goethe:text").msgstr = "Goethe…"
    report = import_po(str(po), "symbols", "en")
    assert report.errors == 0, report.messages
    assert "placeholder" in checks_on(goethe)
    assert_up_to_date()


@pytest.mark.django_db
def test_a_rolled_back_change_leaves_no_mark_and_the_findings_as_they_were(catalogue):
    goethe = ConceptCard.objects.get(key="goethe")
    with transaction.atomic():
        save_translation(goethe, "text", "en", "Goethe…")
        assert StaleFindings.objects.exists()
        transaction.set_rollback(True)
    assert not StaleFindings.objects.exists()
    assert assert_up_to_date() == catalogue


@pytest.mark.django_db
def test_rebuild_findings_equals_running_every_check(catalogue, run_command):
    TranslationFinding.objects.all().delete()
    status, out, _err = run_command("rebuild_findings")
    assert status == 0
    assert f"Stored {len(catalogue)} open translation check findings." in out
    assert assert_up_to_date() == catalogue
    assert rebuild_findings() == len(catalogue)


@pytest.mark.django_db
def test_the_progress_page_reads_the_stored_counts_in_a_few_queries(catalogue):
    user = User.objects.create_superuser("su", "", "pw")
    client = Client()
    client.force_login(user)
    url = reverse("admin:cards_progress")
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        page = client.get(url).content.decode()
    findings = [q["sql"] for q in few.captured_queries if "cards_translationfinding" in q["sql"]]
    assert len(findings) == 1
    assert not [q for q in few.captured_queries if "cards_checkdismissal" in q["sql"]]
    assert f"{sum(1 for row in catalogue if row[4] == 'symbols')}" in page


@pytest.mark.slow
@pytest.mark.django_db
def test_the_starter_catalogue_import_stores_its_findings(db):
    report = import_catalogue(STARTER)
    assert not report.errors, report.errors
    assert_up_to_date()
    again = import_catalogue(STARTER)  # a second run changes nothing, findings included
    assert again.changed == 0
    assert_up_to_date()


@pytest.mark.django_db
def test_the_progress_counts_are_read_stored_and_follow_a_save(catalogue):
    obj = SauschwerObject.objects.create(key="frisch", name="Frisches Ding", weight_g=5, source="gewogen")
    before = progress(Game.SAUSCHWER, "en").counts
    save_translation(obj, "name", "en", "Fresh thing", state=TranslationState.TRANSLATED)
    refresh_findings()  # as after the commit
    with CaptureQueriesContext(connection) as queries:
        after = progress(Game.SAUSCHWER, "en").counts
    assert not [q for q in queries.captured_queries if '"cards_translation"' in q["sql"]]
    assert after["translated"] == before["translated"] + 1
    assert after["empty"] == before["empty"] - 1
    assert after == progress(Game.SAUSCHWER, "en", stored=False).counts
