"""Telling which content type an uploaded file holds; a German Excel CSV imported end to end."""

import pytest
import tablib

from cards.catalogue import CATALOGUE_FILES
from cards.columns import COLUMNS, TRANSLATION_COLUMNS, type_from_name
from cards.file_kinds import FileKind, content_type_of, file_kind
from cards.files import read_path, read_upload
from cards.models import (
    AlfonsCard,
    BrandOwnership,
    ConceptCard,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SymbolTile,
)
from cards.resources import RESOURCES
from cards.tables import FileProblem
from cards.translation_resources import TranslationResource
from tests.file_helpers import MINI, xlsx

# --- which content type -------------------------------------------------------------------------


@pytest.mark.parametrize("model", list(RESOURCES), ids=lambda m: m.__name__)
def test_the_columns_of_each_resource_name_its_content_type(model):
    headers = RESOURCES[model]().get_export_headers()
    dataset = tablib.Dataset(headers=headers)
    assert file_kind(dataset, "export.csv") == FileKind(model)
    # a misleading file name does not change what the columns say
    assert content_type_of(dataset, "objects.csv") is model


@pytest.mark.parametrize("model", list(COLUMNS), ids=lambda m: m.__name__)
def test_the_required_columns_alone_name_the_content_type(model):
    required, optional = COLUMNS[model]
    assert set(required) | set(optional) <= set(FileKind(model).resource_class()().get_export_headers())
    assert content_type_of(tablib.Dataset(headers=list(required)), "x.csv") is model


def test_the_translation_columns_are_those_of_the_translation_resource():
    from curation.translation_files import TranslationFileResource

    required, optional = TRANSLATION_COLUMNS
    # the catalogue's files leave out the kind that the Translations list's export writes
    assert (*required, *optional) == tuple(TranslationFileResource._meta.fields)
    assert tuple(TranslationResource()._meta.fields) == (*required, "state")


def test_every_file_of_the_mini_catalogue_is_recognised():
    expected = {f"{stem}.csv": model for stem, model in CATALOGUE_FILES}
    expected["slogan/brands.csv"] = BrandOwnership  # issue 26: the brand owners
    for stem, model in CATALOGUE_FILES:
        if model.TRANSLATABLE_FIELDS:
            expected[f"translations/en/{stem.split('/')[-1]}.csv"] = model
    seen = 0
    for path in sorted(MINI.rglob("*.csv")):
        relative = path.relative_to(MINI).as_posix()
        kind = file_kind(read_path(path), path.name)
        assert kind == FileKind(expected[relative], translations=relative.startswith("translations/"))
        seen += 1
    assert seen == 16


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("concepts", ConceptCard),
        ("concepts_en", ConceptCard),
        ("en-concepts", ConceptCard),
        ("ConceptCard-2025-06-01", ConceptCard),
        ("symbol_tiles", SymbolTile),
        ("Sign Symbols", SignSymbol),
        ("sign-colors", SignColour),
        ("sign_cards", SignCard),
        ("slogans.en", Slogan),
        ("alfons_cards", AlfonsCard),
        ("Spießer Alfons Cards", AlfonsCard),
        ("objects", SauschwerObject),
        ("sauschwer_objects", SauschwerObject),
        ("translations_en_objects", SauschwerObject),
        ("Translation-2025-06-01", None),
        ("Tabelle1", None),
        ("symbols", None),
    ],
)
def test_names_of_files_and_sheets_name_content_types(name, model):
    assert type_from_name(name) is model


def test_every_catalogue_file_name_names_its_content_type():
    for stem, model in CATALOGUE_FILES:
        assert type_from_name(stem.split("/")[-1]) is model


def translations(*rows, title=None):
    dataset = tablib.Dataset(*rows, headers=["key", "field", "language", "text", "state"])
    dataset.title = title
    return dataset


def test_a_translation_file_takes_its_content_type_from_the_file_name():
    dataset = translations(["oma", "text", "en", "Grandma", "translated"])
    assert file_kind(dataset, "concepts.csv") == FileKind(ConceptCard, translations=True)
    assert content_type_of(dataset, "concepts_en.csv") is ConceptCard


def test_a_translation_workbook_takes_its_content_type_from_the_sheet_name():
    data = xlsx([["key", "field", "language", "text", "state"], ["ei", "name", "en", "Egg", "approved"]],
                title="sauschwer_objects")
    dataset = read_upload(data, "translations.xlsx")
    assert file_kind(dataset, "translations.xlsx") == FileKind(SauschwerObject, translations=True)
    # the sheet name comes before the file name
    assert file_kind(dataset, "concepts.xlsx").model is SauschwerObject


def test_a_type_hint_comes_before_sheet_and_file_names():
    dataset = translations(title="sauschwer_objects")
    assert file_kind(dataset, "concepts.csv", type_hint="sign_colours").model is SignColour
    assert file_kind(dataset, "concepts.csv", type_hint=SignSymbol).model is SignSymbol


def test_the_state_column_of_a_translation_file_may_be_left_out():
    dataset = tablib.Dataset(headers=["key", "field", "language", "text"])
    assert file_kind(dataset, "slogans.csv") == FileKind(Slogan, translations=True)


def test_a_translation_file_without_a_content_type_says_how_to_name_it():
    with pytest.raises(FileProblem) as info:
        file_kind(translations(), "Translation-2025-06-01.csv")
    assert str(info.value) == (
        "this is a translation file, but it does not say which content type it translates: "
        "name the file (or the sheet) after the type, like concepts.csv, or choose the type "
        "(one of: concepts, symbol_tiles, sign_symbols, sign_colours, slogans, alfons_cards, objects)"
    )


def test_sign_cards_have_nothing_to_translate():
    with pytest.raises(FileProblem, match=r"^Sign cards have no texts to translate$"):
        file_kind(translations(), "sign_cards.csv")


def test_an_unknown_type_hint_is_named():
    with pytest.raises(FileProblem, match=r"^unknown content type “cards”; use one of: concepts, "):
        file_kind(translations(), "x.csv", type_hint="cards")


def test_a_type_hint_that_does_not_fit_the_columns_names_them():
    dataset = tablib.Dataset(headers=["key", "text"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "x.csv", type_hint="objects")
    assert str(info.value) == (
        "the columns do not fit Sauschwer objects: missing columns: name, weight_g, source; "
        "unknown column: text (the columns are: key, name, weight_g, source)"
    )


def test_unknown_columns_are_named_against_the_closest_content_type():
    dataset = tablib.Dataset(headers=["key", "name", "gewicht", "source"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "upload.csv")
    assert str(info.value) == (
        "the columns do not match any content type; the closest are those of Sauschwer objects: "
        "missing column: weight_g; unknown column: gewicht "
        "(the columns are: key, name, weight_g, source)"
    )


def test_the_file_name_explains_missing_columns_when_it_names_a_type():
    dataset = tablib.Dataset(headers=["key", "name", "weight_g"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "objects.csv")
    assert str(info.value) == (
        "the columns do not fit Sauschwer objects, which the file name “objects.csv” suggests: "
        "missing column: source (the columns are: key, name, weight_g, source)"
    )


def test_a_column_name_in_the_wrong_case_gets_a_hint():
    dataset = tablib.Dataset(headers=["Key", "Text"])
    hint = r"unknown columns: Key \(write it as key\), Text \(write it as text\)"
    with pytest.raises(FileProblem, match=hint):
        file_kind(dataset, "upload.csv")


def test_too_few_known_columns_say_what_each_fitting_type_still_needs():
    dataset = tablib.Dataset(headers=["key", "name"])
    with pytest.raises(FileProblem) as info:
        file_kind(dataset, "upload.csv")
    assert str(info.value) == (
        "columns are missing: a file must have all the columns of its content type; "
        "Sign symbols also need icon, position; Sauschwer objects also need weight_g, source; "
        "symbol tiles also need icon, is_extra, position"
    )


def test_optional_columns_may_be_left_out():
    tiles = ["key", "name", "icon", "is_extra", "position"]
    assert content_type_of(tablib.Dataset(headers=tiles), "x.csv") is SymbolTile
    slogan = ["card", "side", "key", "text", "option_1", "option_2", "option_3", "option_4", "correct"]
    assert content_type_of(tablib.Dataset(headers=slogan), "x.csv") is Slogan


def test_the_kind_names_its_resource():
    assert FileKind(ConceptCard).resource_class() is RESOURCES[ConceptCard]
    resource = FileKind(ConceptCard, translations=True).resource_class()
    assert issubclass(resource, TranslationResource)
    assert resource.content_model is ConceptCard


# --- end to end -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_german_excel_csv_imports_through_its_resource():
    data = "key;text\r\ngruesse;Grüße\r\nkaese;Käse; alt\r\n".encode("cp1252")
    with pytest.raises(FileProblem, match="row 3 has 3 cells"):
        read_upload(data, "concepts.csv")
    data = 'key;text\r\ngruesse;Grüße\r\nkaese;"Käse; alt"\r\n'.encode("cp1252")
    dataset = read_upload(data, "Begriffe.csv")
    kind = file_kind(dataset, "Begriffe.csv")
    result = kind.resource_class()().import_data(dataset, dry_run=False)
    assert not result.has_errors() and not result.has_validation_errors()
    assert ConceptCard.objects.get(key="kaese").text == "Käse; alt"
    assert ConceptCard.objects.get(key="gruesse").text == "Grüße"
