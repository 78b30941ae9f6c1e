"""Dismissed translation-check findings travel with the catalogue (translations/<lang>/dismissals.csv).

The starter catalogue ships the curators' decisions ("Goethe" stays "Goethe"), so the catalogue
`make run` loads passes `validate_content --translations`; import_catalogue loads the file all or
nothing, and export_catalogue writes every dismissal back out.
"""

import csv
import re
import shutil

import pytest

from cards.catalogue import export_catalogue, import_catalogue
from cards.models import CheckDismissal, ConceptCard
from tests.conftest import MINI, STARTER

HEADER = "file,key,field,check,source,text,reason\n"


@pytest.fixture
def folder(tmp_path):
    copy = tmp_path / "catalogue"
    shutil.copytree(MINI, copy)
    return copy


def write_dismissals(folder, *rows):
    (folder / "translations" / "en" / "dismissals.csv").write_text(
        HEADER + "".join(row + "\n" for row in rows), encoding="utf-8")


@pytest.mark.slow
@pytest.mark.django_db
def test_the_starter_catalogue_passes_every_translation_check_with_its_dismissals(run_command):
    report = import_catalogue(STARTER)
    assert not report.errors, report.errors[:5]
    assert CheckDismissal.objects.filter(language="en").count() >= 38
    status, out, err = run_command("validate_content", "--translations")
    assert status == 0, out[-2000:] + err
    # issue 22: the printed games' sizes, as the command prints each deck
    sizes = {deck: int(re.match(r"\d+", text)[0])
             for deck, text in re.findall(r"^Deck (\w+ \([\w-]+\)): (.*)$", out, re.M)}
    assert sizes["sauschwer (de)"] >= 188
    assert sizes["slogan (de)"] >= 200
    # the English edition is the UK and the US deck together; plain "en" is what both share
    english = sizes["slogan (en-GB)"] + sizes["slogan (en-US)"] - sizes["slogan (en)"]
    assert english >= 120


def test_every_dismissal_of_the_starter_catalogue_gives_its_reason_in_american_spelling():
    from tests.test_english_spelling import british_words

    with (STARTER / "translations" / "en" / "dismissals.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    assert [(r["key"], british_words(r["reason"])) for r in rows if british_words(r["reason"])] == []
    assert all(r["reason"].strip() for r in rows)


@pytest.mark.django_db
def test_a_shipped_dismissal_closes_its_finding_and_a_second_load_changes_nothing(folder, run_command):
    assert not import_catalogue(folder).errors
    status, out, _ = run_command("validate_content", "--translations", "--game", "symbols")
    assert status == 1 and "goethe:text [en] unchanged" in out
    write_dismissals(folder, "concepts,goethe,text,unchanged,Goethe,Goethe,A name.",
                     "concepts,china,text,unchanged,China,China,A country's name.")
    report = import_catalogue(folder)
    assert not report.errors, report.errors
    assert "translations/en/dismissals.csv: 2 new, 0 updated, 0 unchanged" in report.summary()
    status, out, _ = run_command("validate_content", "--translations", "--game", "symbols")
    assert "goethe:text" not in out and "china:text" not in out
    assert import_catalogue(folder).changed == 0


@pytest.mark.django_db
def test_a_dismissal_made_on_another_text_leaves_the_finding_open(folder, run_command):
    write_dismissals(folder, "concepts,goethe,text,unchanged,Goethe,J. W. Goethe,A name.")
    assert not import_catalogue(folder).errors
    status, out, _ = run_command("validate_content", "--translations", "--game", "symbols")
    assert status == 1 and "goethe:text [en] unchanged" in out


@pytest.mark.django_db
def test_a_bad_dismissal_row_is_refused_by_row_and_column_and_nothing_is_loaded(folder):
    write_dismissals(
        folder,
        "concepts,goethe,text,unchanged,Goethe,Goethe,A name.",
        "concepts,nobody,text,unchanged,X,X,A name.",
        "concepts,goethe,text,no-such-check,Goethe,Goethe,A name.",
        "concepts,china,text,unchanged,China,China,",
        "places,goethe,text,unchanged,Goethe,Goethe,A name.",
        "concepts,china,name,unchanged,China,China,A name.",
    )
    report = import_catalogue(folder)
    errors = "\n".join(report.errors)
    assert "row 3, column `key`: there is no concept card with the key “nobody”." in errors
    assert "row 4, column `check`: “no-such-check” is not a check" in errors
    assert "row 5, column `reason`" in errors
    assert "row 6, column `file`: “places” is not a translation file" in errors
    assert "row 7, column `field`: “name” is not a translatable field" in errors
    assert CheckDismissal.objects.count() == 0 and ConceptCard.objects.count() == 0


@pytest.mark.django_db
def test_a_curators_dismissal_is_exported_and_read_back(folder, tmp_path):
    assert not import_catalogue(folder).errors
    goethe = ConceptCard.objects.get(key="goethe")
    CheckDismissal.objects.create(content_object=goethe, field="text", language="en",
                                  check_name="unchanged", reason="A name.", source="Goethe",
                                  text="Goethe")
    out = tmp_path / "backup"
    export_catalogue(out)
    with (out / "translations" / "en" / "dismissals.csv").open(encoding="utf-8") as handle:
        assert list(csv.DictReader(handle)) == [
            {"file": "concepts", "key": "goethe", "field": "text", "check": "unchanged",
             "source": "Goethe", "text": "Goethe", "reason": "A name."}]
    CheckDismissal.objects.all().delete()
    assert not import_catalogue(out).errors
    restored = CheckDismissal.objects.get()
    assert (restored.content_object.key, restored.reason, restored.dismissed_by) == ("goethe", "A name.",
                                                                                      None)
