"""Each content rule rejects bad content with a message a curator understands.

The rules live in the model layer, so these tests go through ``full_clean`` (what the admin
and the importers call) and check that nothing was half-saved.
"""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from PIL import Image

from cards.models import (
    AlfonsCard,
    ConceptCard,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SloganCard,
    SloganOption,
    SymbolTile,
    Translation,
    TranslationState,
    option_problems,
)
from cards.text import make_key, normalise

pytestmark = pytest.mark.django_db


def messages(exc: ValidationError) -> str:
    return " ".join(exc.messages)


def png(width=128, height=128, fmt="PNG") -> ContentFile:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, fmt)
    return ContentFile(buffer.getvalue(), name="picture.png")


# --- keys and texts ---------------------------------------------------------------------


def test_key_is_the_ascii_slug_of_the_german_text():
    assert make_key("Bermuda-Dreieck") == "bermuda-dreieck"
    assert make_key("Jäger") == "jaeger"
    assert make_key("Fußballprofi") == "fussballprofi"
    assert make_key("GROẞ & Öl!") == "gross-oel"
    assert make_key("Crème brûlée") == "creme-brulee"


def test_key_of_a_text_without_letters_is_refused():
    with pytest.raises(ValidationError, match="no letters or digits"):
        make_key("…!?")


def test_texts_that_differ_only_in_case_accents_or_punctuation_normalise_alike():
    assert normalise(" Oma! ") == normalise("OMA") == "oma"
    assert normalise("„Just do it.“") == normalise("just do it")
    assert normalise("Jäger") == normalise("Jaeger")


def test_it_rejects_a_duplicate_concept_after_normalisation():
    ConceptCard.objects.create(key="oma", text="Oma")
    card = ConceptCard(key="oma-2", text="OMA!")
    with pytest.raises(ValidationError) as exc:
        card.full_clean()
    assert "“OMA!” is already in the catalogue as 'oma'" in messages(exc.value)


def test_it_rejects_a_key_that_is_not_a_slug():
    with pytest.raises(ValidationError) as exc:
        ConceptCard(key="Oma Lisa", text="Oma Lisa").full_clean()
    assert "lowercase ASCII letters and digits" in messages(exc.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("   ", "This text is empty."),
        (" Oma", "Remove the spaces at the start or end"),
        ("Oma\x00", "invisible control characters (U+0000)"),
        ("Oma\u202e", "invisible control characters (U+202E)"),
    ],
)
def test_it_rejects_texts_that_would_print_badly(text, message):
    with pytest.raises(ValidationError) as exc:
        ConceptCard(key="oma", text=text).full_clean()
    assert message in messages(exc.value)


def test_the_database_refuses_two_cards_with_one_key():
    ConceptCard.objects.create(key="oma", text="Oma")
    with pytest.raises(IntegrityError), transaction.atomic():
        ConceptCard.objects.create(key="oma", text="Großmutter")
    assert ConceptCard.objects.count() == 1


# --- Sauschwer ----------------------------------------------------------------------------


@pytest.mark.parametrize("weight", [0, -5])
def test_it_rejects_a_weight_that_is_not_above_zero(weight):
    obj = SauschwerObject(key="ei", name="Ei", weight_g=weight, source="Küchenwaage")
    with pytest.raises(ValidationError) as exc:
        obj.full_clean()
    assert "whole number of grams above 0" in messages(exc.value)


def test_the_database_refuses_a_weight_of_zero_grams():
    with pytest.raises(IntegrityError), transaction.atomic():
        SauschwerObject.objects.create(key="ei", name="Ei", weight_g=0, source="x")
    assert not SauschwerObject.objects.exists()


def test_it_takes_weights_of_thousands_of_tonnes():
    tower = SauschwerObject(
        key="der-eiffelturm", name="Der Eiffelturm", weight_g=10_100_000_000, source="Wikipedia"
    )
    tower.full_clean()
    tower.save()
    assert SauschwerObject.objects.get().weight_g == 10_100_000_000


# --- Slogan ------------------------------------------------------------------------------


def test_options_must_be_four_distinct_with_exactly_one_correct():
    assert option_problems(["A", "B", "C", "D"], [False, True, False, False]) == []
    assert "exactly four answer options, not 3" in " ".join(
        option_problems(["A", "B", "C"], [True, False, False])
    )
    assert "appears twice: “Nike”, “nike”" in " ".join(
        option_problems(["Nike", "nike", "Puma", "Adidas"], [True, False, False, False])
    )
    assert "Exactly one answer option must be correct, not 2" in " ".join(
        option_problems(["A", "B", "C", "D"], [True, True, False, False])
    )
    assert "Exactly one answer option must be correct, not 0" in " ".join(
        option_problems(["A", "B", "C", "D"], [False] * 4)
    )


def test_the_database_refuses_a_second_correct_option():
    card = SloganCard.objects.create(key="karte-001")
    slogan = Slogan.objects.create(card=card, side=1, key="just-do-it", text="Just do it.")
    SloganOption.objects.create(slogan=slogan, position=1, text="Nike", is_correct=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        SloganOption.objects.create(slogan=slogan, position=2, text="Puma", is_correct=True)
    assert slogan.options.count() == 1


def test_a_card_has_two_sides_only():
    card = SloganCard.objects.create(key="karte-001")
    with pytest.raises(ValidationError) as exc:
        Slogan(card=card, side=3, key="x", text="Hallo").full_clean()
    assert "side" in exc.value.message_dict


# --- Spießer Alfons ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("effect", "amount", "target", "message"),
    [
        ("move", 0, "", "needs a number other than 0"),
        ("chips", None, "", "needs a number other than 0"),
        ("pay_each", -1, "", "needs a number of chips of at least 1"),
        ("to_level", 7, "", "needs a career level from 1 to 6"),
        ("swap", None, "", "needs a target: leader, last or next"),
        ("overtake", 2, "", "takes no number"),
        ("move", 2, "leader", "Only a 'swap' effect has a target"),
    ],
)
def test_it_rejects_an_alfons_effect_that_does_not_fit_its_kind(effect, amount, target, message):
    card = AlfonsCard(key="karte", text="Eine Karte.", effect=effect, amount=amount, target=target)
    with pytest.raises(ValidationError) as exc:
        card.full_clean()
    assert message in messages(exc.value)


def test_every_effect_kind_of_the_engines_is_a_choice():
    from cards.models import AlfonsEffect

    assert set(AlfonsEffect.values) == {
        "move", "chips", "pay_each", "collect_each", "swap", "overtake", "to_start", "to_level",
    }


def test_the_database_refuses_an_incomplete_alfons_effect():
    with pytest.raises(IntegrityError), transaction.atomic():
        AlfonsCard.objects.create(key="x", text="Tausche.", effect="swap", target="")
    assert not AlfonsCard.objects.exists()


# --- Sign ----------------------------------------------------------------------------------


def test_the_deck_has_each_symbol_in_each_colour_once():
    anchor = SignSymbol.objects.create(key="anker", name="Anker", icon="anchor")
    red = SignColour.objects.create(key="rot", name="Rot", hex="#D62828", mark="●")
    SignCard.objects.create(key="anker-rot", symbol=anchor, colour=red)
    with pytest.raises(ValidationError) as exc:
        SignCard(key="anker-rot-2", symbol=anchor, colour=red).full_clean()
    assert "already has this symbol in this colour" in messages(exc.value)


def test_it_rejects_a_colour_that_is_not_hex():
    with pytest.raises(ValidationError) as exc:
        SignColour(key="rot", name="Rot", hex="red", mark="R").full_clean()
    assert "#RRGGBB" in messages(exc.value)


# --- symbol pictures ---------------------------------------------------------------------


def tile(**kwargs):
    return SymbolTile(key="sonne", name="Sonne", position=1, **kwargs)


def test_a_real_picture_is_accepted():
    tile(image=png()).full_clean()


def test_it_rejects_a_file_that_is_not_a_picture():
    with pytest.raises(ValidationError) as exc:
        tile(image=ContentFile(b"%PDF-1.4 not a picture", name="sonne.png")).full_clean()
    assert "not a picture that can be opened" in messages(exc.value)


def test_it_rejects_a_truncated_picture():
    data = png().read()[:60]
    with pytest.raises(ValidationError) as exc:
        tile(image=ContentFile(data, name="sonne.png")).full_clean()
    assert "not a picture that can be opened" in messages(exc.value)


def test_it_rejects_a_tiny_picture():
    with pytest.raises(ValidationError) as exc:
        tile(image=png(16, 16)).full_clean()
    assert "at least 64 px a side" in messages(exc.value)


def test_it_rejects_a_decompression_bomb_before_decoding_it():
    # A 30000 × 30000 PNG compresses to a few kilobytes but would need 2.7 GB to decode.
    buffer = io.BytesIO()
    Image.new("1", (30000, 30000)).save(buffer, "PNG")
    assert buffer.tell() < 200_000
    with pytest.raises(ValidationError) as exc:
        tile(image=ContentFile(buffer.getvalue(), name="bomb.png")).full_clean()
    assert "too large to open safely" in messages(exc.value)


def test_it_rejects_a_picture_larger_than_4096_px_a_side():
    with pytest.raises(ValidationError) as exc:
        tile(image=png(5000, 100)).full_clean()
    assert "5000 × 100 px; at most 4096 px a side" in messages(exc.value)


def test_a_tile_needs_a_picture_or_an_icon():
    with pytest.raises(ValidationError) as exc:
        tile().full_clean()
    assert "needs a picture" in messages(exc.value)


# --- translations --------------------------------------------------------------------------


@pytest.fixture
def oma():
    return ConceptCard.objects.create(key="oma", text="Oma")


def translate(obj, text, state=TranslationState.APPROVED, language="en", field="text"):
    row = Translation(content_object=obj, field=field, language=language, text=text, state=state)
    row.full_clean()
    row.save()
    return row


def test_it_rejects_a_translation_into_an_unconfigured_language(oma):
    with pytest.raises(ValidationError) as exc:
        translate(oma, "Mamie", language="fr")
    assert "'fr' is not a target language; configured: en" in messages(exc.value)
    assert not Translation.objects.exists()


def test_it_rejects_an_approved_empty_translation(oma):
    with pytest.raises(ValidationError) as exc:
        translate(oma, "")
    assert "An empty translation cannot be translated or approved" in messages(exc.value)


def test_it_rejects_a_translation_of_a_field_that_is_not_translatable(oma):
    with pytest.raises(ValidationError) as exc:
        translate(oma, "granny", field="key")
    assert "has no translatable field 'key'" in messages(exc.value)


def test_a_translation_remembers_the_source_it_was_made_from(oma):
    row = translate(oma, "Grandmother")
    assert row.source_text == "Oma"
    assert not row.is_outdated


def test_a_source_change_drops_its_translations_to_needs_editing(oma):
    translate(oma, "Grandmother")
    oma.text = "Großmutter"
    oma.save()
    row = Translation.objects.get()
    assert row.state == TranslationState.NEEDS_EDITING
    assert row.source_text == "Oma"  # the previous source, for the translator to compare
    assert row.current_source == "Großmutter"


def test_reverting_the_source_restores_the_state_the_translation_had(oma):
    translate(oma, "Grandmother", state=TranslationState.APPROVED)
    oma.text = "Großmutter"
    oma.save()
    oma.text = "Oma"
    oma.save()
    row = Translation.objects.get()
    assert row.state == TranslationState.APPROVED
    assert row.state_before_change == ""


def test_confirming_an_edited_translation_takes_the_new_source(oma):
    row = translate(oma, "Grandmother")
    oma.text = "Großmutter"
    oma.save()
    row.refresh_from_db()
    row.text = "Grandmother (formal)"
    row.state = TranslationState.TRANSLATED
    row.save()
    row.refresh_from_db()
    assert row.source_text == "Großmutter"
    assert not row.is_outdated


def test_saving_a_card_without_changing_its_text_leaves_translations_alone(oma):
    translate(oma, "Grandmother")
    card = ConceptCard.objects.get()
    card.save()
    assert Translation.objects.get().state == TranslationState.APPROVED
