"""Catalogue folders: import_catalogue, export_catalogue and validate_content."""

import csv
import shutil

import pytest

from cards.catalogue import export_catalogue, import_catalogue
from cards.models import (
    AlfonsCard,
    ConceptCard,
    SauschwerObject,
    SignCard,
    Slogan,
    SloganOption,
    SymbolTile,
    Translation,
    TranslationState,
)
from tests.conftest import MINI

pytestmark = pytest.mark.django_db


def snapshot():
    """Everything a catalogue holds, as plain values (no primary keys, no timestamps)."""
    return {
        "concepts": sorted(ConceptCard.objects.values_list("key", "text")),
        "tiles": sorted(
            SymbolTile.objects.values_list("key", "name", "icon", "is_extra", "position")
        ),
        "sign": sorted(SignCard.objects.values_list("key", "symbol__key", "colour__key")),
        "slogans": sorted(
            Slogan.objects.values_list("card__key", "side", "key", "text", "keep_german")
        ),
        "options": sorted(
            SloganOption.objects.values_list("slogan__key", "position", "text", "is_correct")
        ),
        "alfons": sorted(AlfonsCard.objects.values_list("key", "effect", "amount", "target")),
        "objects": sorted(SauschwerObject.objects.values_list("key", "name", "weight_g", "source")),
        "translations": sorted(
            (t.content_type.model, t.field, t.language, t.text, t.state)
            for t in Translation.objects.select_related("content_type")
        ),
    }


def copy_mini(tmp_path):
    target = tmp_path / "catalogue"
    shutil.copytree(MINI, target)
    return target


def rewrite(path, change):
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    change(rows)
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def test_it_loads_every_content_type_of_a_catalogue(mini_catalogue):
    assert ConceptCard.objects.count() == 9
    assert SymbolTile.objects.filter(is_extra=False).count() == 8
    assert SymbolTile.objects.filter(is_extra=True).count() == 1
    assert SignCard.objects.count() == 25
    assert Slogan.objects.count() == 4
    assert SloganOption.objects.count() == 16
    assert AlfonsCard.objects.count() == 9
    assert SauschwerObject.objects.get(key="der-eiffelturm").weight_g == 10_100_000_000
    slogan = Slogan.objects.get(key="ich-bin-doch-nicht-bloed")
    assert slogan.correct_option.text == "Media Markt"
    assert slogan.card.key == "karte-001"


def test_it_draws_each_symbol_tile_from_its_tabler_icon(mini_catalogue):
    from PIL import Image

    sun = SymbolTile.objects.get(key="sonne")
    with sun.image.open("rb") as handle, Image.open(handle) as picture:
        assert picture.size == (512, 512)
        # A real drawing: some pixels are ink, most are background.
        alpha = picture.getchannel("A")
        inked = sum(1 for value in alpha.tobytes() if value > 128)
    assert 0.02 < inked / (512 * 512) < 0.5
    assert sun.image_licence == "MIT"
    assert "Tabler" in sun.image_source


def test_it_loads_translations_as_approved_with_their_source(mini_catalogue):
    row = Translation.objects.get(field="text", text="Grandmother")
    assert row.state == TranslationState.APPROVED
    assert row.source_text == "Oma"
    option = SloganOption.objects.get(slogan__key="just-do-it", position=4)
    assert option.translation("text", "en").text == "Nike"


def test_a_second_import_changes_nothing(mini_catalogue):
    before = snapshot()
    report = import_catalogue(MINI)
    assert report.changed == 0
    assert all(f.new == f.updated == 0 and f.unchanged > 0 for f in report.files)
    assert snapshot() == before


def test_an_edited_row_is_updated_and_the_rest_left_unchanged(mini_catalogue, tmp_path):
    folder = copy_mini(tmp_path)
    rewrite(folder / "symbols" / "concepts.csv", lambda rows: rows[2].__setitem__(1, "Liebe!"))
    report = import_catalogue(folder)
    concepts = next(f for f in report.files if f.path == "symbols/concepts.csv")
    assert (concepts.new, concepts.updated, concepts.unchanged) == (0, 1, 8)
    assert ConceptCard.objects.get(key="liebe").text == "Liebe!"
    # Its translation was made from the old text, so it now needs editing.
    assert Translation.objects.get(text="Love").state == TranslationState.NEEDS_EDITING


def test_one_bad_row_and_the_database_is_left_as_it_was(mini_catalogue, tmp_path):
    before = snapshot()
    folder = copy_mini(tmp_path)
    rewrite(folder / "symbols" / "concepts.csv", lambda rows: rows.append(["neu", "Neu"]))
    rewrite(folder / "sauschwer" / "objects.csv", lambda rows: rows[3].__setitem__(2, "0"))
    report = import_catalogue(folder)
    assert report.errors == [
        "sauschwer/objects.csv: row 4, column `weight_g`: "
        "“0” weighs nothing: an object weighs at least 1 g."
    ]
    assert snapshot() == before
    assert not ConceptCard.objects.filter(key="neu").exists()


def test_a_slogan_row_with_two_correct_options_is_refused_whole(db, tmp_path):
    folder = copy_mini(tmp_path)
    rewrite(
        folder / "slogan" / "slogans.csv",
        lambda rows: rows[1].__setitem__(8, "2"),  # still valid
    )

    def break_options(rows):
        rows[2][5] = rows[2][6]  # option 2 = option 3: a duplicate
        rows[3][8] = "5"  # no such option

    rewrite(folder / "slogan" / "slogans.csv", break_options)
    report = import_catalogue(folder)
    assert (
        "slogan/slogans.csv: row 3, column `option_1`: The answer options must differ; "
        "the same option appears twice: “Media Markt”." in report.errors
    )
    assert (
        "slogan/slogans.csv: row 4, column `correct`: “5” is not the number (1–4) of the "
        "correct option." in report.errors
    )
    assert not Slogan.objects.exists()
    assert not SloganOption.objects.exists()
    assert not ConceptCard.objects.exists()


def test_a_translation_of_an_unknown_key_is_reported(db, tmp_path):
    folder = copy_mini(tmp_path)
    rewrite(
        folder / "translations" / "en" / "concepts.csv",
        lambda rows: rows.append(["kaiser", "text", "en", "Emperor", "approved"]),
    )
    report = import_catalogue(folder)
    assert report.errors == [
        "translations/en/concepts.csv: row 11, column `key`: "
        "There is no concept card with the key “kaiser”."
    ]
    assert not Translation.objects.exists()


def test_a_dry_run_reports_but_changes_nothing(db):
    report = import_catalogue(MINI, dry_run=True)
    assert not report.errors
    assert report.changed > 0
    assert not ConceptCard.objects.exists()
    assert not Translation.objects.exists()


def test_an_exported_catalogue_restores_the_same_content(mini_catalogue, tmp_path):
    before = snapshot()
    pictures = {t.key: t.image.read() for t in SymbolTile.objects.all()}
    export_catalogue(tmp_path / "backup")
    for model in (Translation, SloganOption, Slogan, SignCard, ConceptCard, SymbolTile,
                  AlfonsCard, SauschwerObject):
        model.objects.all().delete()
    report = import_catalogue(tmp_path / "backup")
    assert not report.errors
    assert snapshot() == before
    assert {t.key: t.image.read() for t in SymbolTile.objects.all()} == pictures
    assert (tmp_path / "backup" / "symbols" / "pictures" / "sonne.png").is_file()


def test_import_catalogue_command_fails_with_every_error_listed(db, tmp_path, run_command):
    folder = copy_mini(tmp_path)
    rewrite(folder / "symbols" / "concepts.csv", lambda rows: rows[1].__setitem__(1, " "))
    status, _out, err = run_command("import_catalogue", str(folder))
    assert status == 1
    assert "symbols/concepts.csv: row 2, column `text`: This text is empty." in err
    assert "nothing was changed" in err
    assert not ConceptCard.objects.exists()


def test_import_catalogue_command_names_a_missing_folder(db, tmp_path, run_command):
    status, _out, err = run_command("import_catalogue", str(tmp_path / "nowhere"))
    assert status == 1
    assert "is not a folder" in err


def test_validate_content_passes_on_a_sound_catalogue(mini_catalogue, run_command):
    status, out, _err = run_command("validate_content")
    assert status == 0, out
    assert "obeys every content rule" in out


def test_validate_content_names_each_problem_of_a_broken_catalogue(mini_catalogue, run_command):
    # Break the catalogue behind the models' backs, as a bad migration or SQL session could.
    ConceptCard.objects.filter(key__in=["papst", "oma"]).delete()
    ConceptCard.objects.filter(key="china").update(text="Italien!")  # a duplicate
    slogan = Slogan.objects.get(key="just-do-it")
    slogan.options.filter(position=2).update(text="nike")
    SignCard.objects.filter(symbol__key="mond", colour__key="rot").delete()
    SauschwerObject.objects.filter(key="ein-huehnerei").update(source="")
    concept = ConceptCard.objects.get(key="liebe")
    concept.text = "Die Liebe"
    concept.save()

    status, out, err = run_command("validate_content")
    assert status == 1
    expected = [
        "concept cards: the same text after normalisation: china, italien",
        "concept cards: only 7; a board needs at least 8.",
        "slogan card 'karte-002': slogan 2 (just-do-it): The answer options must differ; the "
        "same option appears twice: "
        "“Nike”, “nike”.",
        "Sign symbol 'mond': appears in 4 colours; a quintet needs 5.",
        "Sauschwer object 'ein-huehnerei': source: This field cannot be blank.",
        "concept card 'liebe' [text, en]: needs editing: the source changed from “Liebe” "
        "to “Die Liebe”.",
    ]
    for line in expected:
        assert line in out
    assert "problems in the catalogue" in err


def test_a_catalogue_may_hold_slogan_translations_one_row_per_slogan(db, tmp_path):
    folder = copy_mini(tmp_path)
    (folder / "translations" / "en" / "slogans.csv").write_text(
        "key,language,text,option_1,option_2,option_3,option_4,state\n"
        "just-do-it,en,Just do it.,Adidas,Puma,Reebok,Nike,approved\n"
        "quadratisch-praktisch-gut,en,Quality. Chocolate. Squared.,Milka,Ritter Sport,Lindt,"
        "Hachez,approved\n",
        encoding="utf-8",
    )
    report = import_catalogue(folder)
    assert not report.errors
    slogans = next(f for f in report.files if f.path == "translations/en/slogans.csv")
    assert slogans.new == 10
    option = SloganOption.objects.get(slogan__key="just-do-it", position=4)
    assert option.translation("text", "en").text == "Nike"
