"""cards/text.py: keys, the normalised form duplicates are found in, and clean texts.

Each rule is pinned by texts on both sides of it; these tests are also what the mutation
check (tools/mutate.py) runs against cards/text.py.
"""

from __future__ import annotations

import polib
import pytest
from django.core.exceptions import ValidationError

from cards.models import ConceptCard, SloganOption, Translation, TranslationState
from cards.po import export_po, import_po
from cards.text import (
    KEY_MAX_LENGTH,
    hidden_characters,
    make_key,
    mixed_script_words,
    normalise,
    validate_clean_text,
    validate_key,
)
from cards.translation import save_translation
from cards.translation_resources import translation_resource_for


def refusal(text: str) -> str:
    with pytest.raises(ValidationError) as exc:
        validate_clean_text(text)
    return " ".join(exc.value.messages)


# --- keys -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["oma", "bermuda-dreieck", "a1-b2-c3", "7", "x" * KEY_MAX_LENGTH])
def test_a_slug_is_a_key(key):
    validate_key(key)


@pytest.mark.parametrize(
    "key",
    ["oma\n", "oma\r\n", "Oma", "oma lisa", "oma--lisa", "-oma", "oma-", "", "öma", "oma_lisa",
     "\noma"],
)
def test_a_key_with_a_trailing_newline_or_anything_but_a_slug_is_refused(key):
    with pytest.raises(ValidationError, match="lowercase ASCII letters and digits"):
        validate_key(key)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Bermuda-Dreieck", "bermuda-dreieck"),
        ("  Größe ", "groesse"),
        ("Äpfel", "aepfel"),
        ("Öl", "oel"),
        ("Übermut", "uebermut"),
        ("STRAẞE", "strasse"),
        ("Café au lait!", "cafe-au-lait"),
        ("„Just do it.“", "just-do-it"),
    ],
)
def test_a_key_is_the_slug_of_the_german_text(text, key):
    assert make_key(text) == key


def test_a_long_key_is_cut_at_a_word_boundary_within_the_limit():
    text = " ".join(["Donaudampfschiff"] * 10)  # 16 letters a word
    key = make_key(text)
    assert len(key) <= KEY_MAX_LENGTH
    assert key == "-".join(["donaudampfschiff"] * 3)  # 50 characters; a fourth word would be 67
    assert make_key("a" * KEY_MAX_LENGTH) == "a" * KEY_MAX_LENGTH
    assert make_key("abc def", max_length=5) == "abc"


def test_a_text_without_letters_or_digits_has_no_key():
    with pytest.raises(ValidationError, match="has no letters or digits"):
        make_key("…!?")


# --- the normalised form ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    ["Oma", " oma ", "OMA!", "„Oma“", "Óma", "ＯＭＡ", "Оma", "ОМА", "ΟΜΑ",
     "O\u0301ma"],
)
def test_case_accents_punctuation_and_look_alike_letters_do_not_make_a_new_text(variant):
    assert normalise(variant) == "oma"


@pytest.mark.parametrize(
    ("a", "b"),
    [("Größe", "Groesse"), ("Straße", "STRASSE"), ("Äpfel", "aepfel"), ("Ünd", "uend"),
     ("Öl", "oel"), ("STRAẞE", "strasse")],
)
def test_german_letters_compare_like_their_spelled_out_forms(a, b):
    assert normalise(a) == normalise(b)


def test_words_and_digits_are_kept_apart_by_single_spaces():
    assert normalise("Ein   Ei,  5 Gramm") == "ein ei 5 gramm"
    assert normalise("Ein Ei – 5 Gramm") == "ein ei 5 gramm"
    assert normalise("Mühle–Dame") == "muehle dame"
    assert normalise("Oma") != normalise("Opa")
    assert normalise("Omas") != normalise("Oma")


def test_blank_looking_characters_do_not_count_as_text():
    assert normalise("O\u3164ma") == "o ma"
    assert normalise("\u3164") == ""


# --- clean texts --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["Oma", "Straße", "Café", "5 × 3 m²", "Oma – Opa", "5\u00a0kg", "Москва", "Ωμέγα",
     "α-Strahlung", "Just do it.", "„Quadratisch. Praktisch. Gut.“", "東京", "x"],
)
def test_ordinary_texts_in_any_one_alphabet_are_clean(text):
    validate_clean_text(text)
    assert hidden_characters(text) == []
    assert mixed_script_words(text) == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("O\u200dma", "U+200D"),       # zero-width joiner (format)
        ("O\u200bma", "U+200B"),       # zero-width space (format)
        ("Oma\u00ad", "U+00AD"),       # soft hyphen (format)
        ("Oma\u202e", "U+202E"),       # right-to-left override (format)
        ("\ufeffOma", "U+FEFF"),       # byte order mark (format)
        ("Oma\u2060", "U+2060"),       # word joiner (format)
        ("Oma\u2028Opa", "U+2028"),    # line separator
        ("Oma\u2029Opa", "U+2029"),    # paragraph separator
        ("\u3164", "U+3164"),          # Hangul filler: the card looks blank
        ("O\u115fma", "U+115F"),
        ("O\u1160ma", "U+1160"),
        ("O\uffa0ma", "U+FFA0"),
        ("O\u034fma", "U+034F"),       # combining grapheme joiner
        ("Oma\ufe0f", "U+FE0F"),       # variation selector
        ("O\u2800ma", "U+2800"),       # braille blank
        ("O\ue000ma", "U+E000"),       # private use
        ("O\U000f0000ma", "U+F0000"),  # supplementary private use
        ("O\u0378ma", "U+0378"),       # unassigned
        ("Oma\x00", "U+0000"),         # control
        ("Oma\x7f", "U+007F"),
        ("Oma\tOpa", "U+0009"),
    ],
)
def test_invisible_and_non_printing_characters_are_refused_by_code_point(text, code):
    message = refusal(text)
    assert f"invisible control characters ({code})" in message
    assert f"{code}:" in message  # and named, so the curator knows what to look for


def test_every_hidden_character_is_listed_once_in_code_point_order():
    message = refusal("\u200dO\u3164m\u200d\u2028a")
    assert message == ("This text contains invisible control characters (U+200D, U+2028, "
                       "U+3164). Remove them (U+200D: zero width joiner; U+2028: line separator; "
                       "U+3164: hangul filler).")


def test_a_private_use_and_an_unassigned_character_are_named_as_such():
    assert "U+E000: private use" in refusal("O\ue000ma")
    assert "U+0378: unassigned" in refusal("O\u0378ma")
    assert "U+200D: zero width joiner" in refusal("O\u200dma")


@pytest.mark.parametrize(
    ("text", "word", "scripts"),
    [
        ("Оma", "Оma", "Cyrillic and Latin"),      # Cyrillic О
        ("Liebe Omа", "Omа", "Cyrillic and Latin"),  # Cyrillic а at the end
        ("Ρizza", "Ρizza", "Greek and Latin"),       # Greek Rho
        ("Вär", "Вär", "Cyrillic and Latin"),
    ],
)
def test_a_word_mixing_latin_with_cyrillic_or_greek_is_refused(text, word, scripts):
    message = refusal(text)
    assert f"The word “{word}” mixes {scripts} letters" in message


def test_words_of_different_alphabets_side_by_side_are_fine():
    assert mixed_script_words("Москва ist Moskau") == []
    assert mixed_script_words("Оma Оma") == [("Оma", ["CYRILLIC", "LATIN"])] * 2


@pytest.mark.parametrize(("text", "message"), [
    ("", "This text is empty."), ("   ", "This text is empty."), ("\u00a0", "This text is empty."),
    (" Oma", "Remove the spaces"), ("Oma ", "Remove the spaces"), ("Oma\n", "Remove the spaces"),
])
def test_empty_texts_and_stray_spaces_are_refused(text, message):
    assert refusal(text) == (message if message.endswith(".") else
                             "Remove the spaces at the start or end of this text.")


# --- the rules where texts are stored ------------------------------------------------------


@pytest.mark.django_db
def test_a_card_that_only_looks_like_an_existing_one_is_a_duplicate():
    ConceptCard.objects.create(key="oma", text="Oma")
    twin = ConceptCard(key="oma-2", text="ОМА")  # all Cyrillic: one alphabet, same look
    with pytest.raises(ValidationError, match="already in the catalogue as 'oma'"):
        twin.full_clean()
    look_alike = ConceptCard(key="oma-3", text="Оma")
    with pytest.raises(ValidationError, match="mixes Cyrillic and Latin"):
        look_alike.full_clean()


@pytest.mark.django_db
def test_a_card_with_a_zero_width_joiner_is_refused():
    ConceptCard.objects.create(key="oma", text="Oma")
    with pytest.raises(ValidationError, match="U\\+200D"):
        ConceptCard(key="oma-2", text="O\u200dma").full_clean()


# --- translation lengths: the source field's limit everywhere --------------------------------


@pytest.mark.django_db
def test_a_translation_may_be_as_long_as_its_source_field_and_no_longer(mini_catalogue):
    card = ConceptCard.objects.get(key="liebe")  # text: max_length 120
    save_translation(card, "text", "en", "L" * 120)
    with pytest.raises(ValidationError, match="121 characters long; the concept card's text "
                                              "allows at most 120"):
        save_translation(card, "text", "en", "L" * 121)
    assert Translation.objects.get(object_id=card.pk, field="text", language="en",
                                   content_type__model="conceptcard").text == "L" * 120


@pytest.mark.django_db
def test_a_200000_character_translation_in_a_po_file_is_refused_and_nothing_saved(mini_catalogue):
    before = list(Translation.objects.order_by("pk").values_list("pk", "text", "state"))
    po = polib.pofile(export_po("symbols", "en"))
    for entry in po:
        if entry.msgctxt == "liebe:text":
            entry.msgstr = "Love " * 40_000
    report = import_po(str(po), "symbols", "en")
    assert not report.saved
    assert report.errors == 1
    assert report.messages == [
        "error: liebe:text: the translation is 200,000 characters long; this text allows at "
        "most 120 (as its German source)"
    ]  # and the huge text is not echoed back
    assert list(Translation.objects.order_by("pk").values_list("pk", "text", "state")) == before


@pytest.mark.django_db
def test_a_too_long_option_translation_is_refused_by_the_spreadsheet_import(mini_catalogue):
    import tablib

    from cards.models import Slogan

    dataset = tablib.Dataset(headers=["key", "field", "language", "text", "state"])
    dataset.append(["just-do-it", "option_4", "en", "N" * 121, "translated"])  # option: 120
    result = translation_resource_for(Slogan)().import_data(dataset, dry_run=False)
    assert result.has_validation_errors()
    errors = [str(m) for row in result.invalid_rows for ms in row.error_dict.values() for m in ms]
    assert any("at most 120" in e for e in errors), errors
    option = SloganOption.objects.get(slogan__key="just-do-it", position=4)
    assert not option.translations.filter(text="N" * 121).exists()


@pytest.mark.django_db
def test_a_translation_of_a_long_source_field_gets_that_fields_limit(mini_catalogue):
    from cards.models import AlfonsCard

    card = AlfonsCard.objects.get(key="kopierer")  # text: max_length 400
    save_translation(card, "text", "en", "x" * 400, TranslationState.TRANSLATED)
    with pytest.raises(ValidationError, match="at most 400"):
        save_translation(card, "text", "en", "x" * 401)


# --- edges the mutation check asked about ------------------------------------------------------

# Look-alike letters, found by their Unicode names (independent of cards/text.py's own table).
LOOK_ALIKES = [
    ("CYRILLIC CAPITAL LETTER " + name, latin) for name, latin in [
        ("A", "a"), ("VE", "b"), ("IE", "e"), ("KA", "k"), ("EM", "m"), ("EN", "h"), ("O", "o"),
        ("ER", "p"), ("ES", "c"), ("TE", "t"), ("HA", "x"), ("U", "y"), ("STRAIGHT U", "y"),
        ("BYELORUSSIAN-UKRAINIAN I", "i"), ("JE", "j"), ("DZE", "s"), ("KOMI DE", "d"),
        ("QA", "q"), ("WE", "w"),
    ]
] + [("CYRILLIC LETTER PALOCHKA", "i")] + [
    ("CYRILLIC SMALL LETTER " + name, latin) for name, latin in [
        ("A", "a"), ("IE", "e"), ("O", "o"), ("ER", "p"), ("ES", "c"), ("U", "y"), ("HA", "x"),
        ("BYELORUSSIAN-UKRAINIAN I", "i"), ("JE", "j"), ("DZE", "s"), ("SHHA", "h"),
        ("KOMI DE", "d"), ("QA", "q"), ("WE", "w"), ("PALOCHKA", "l"), ("STRAIGHT U", "y"),
    ]
] + [
    ("GREEK CAPITAL LETTER " + name, latin) for name, latin in [
        ("ALPHA", "a"), ("BETA", "b"), ("EPSILON", "e"), ("ZETA", "z"), ("ETA", "h"),
        ("IOTA", "i"), ("KAPPA", "k"), ("MU", "m"), ("NU", "n"), ("OMICRON", "o"), ("RHO", "p"),
        ("TAU", "t"), ("UPSILON", "y"), ("CHI", "x"),
    ]
] + [
    ("GREEK SMALL LETTER " + name, latin) for name, latin in [
        ("ALPHA", "a"), ("IOTA", "i"), ("KAPPA", "k"), ("NU", "v"), ("OMICRON", "o"),
        ("RHO", "p"), ("UPSILON", "u"),
    ]
]


@pytest.mark.parametrize(("name", "latin"), LOOK_ALIKES, ids=[n for n, _ in LOOK_ALIKES])
def test_each_look_alike_letter_compares_as_its_latin_twin(name, latin):
    import unicodedata

    letter = unicodedata.lookup(name)
    assert normalise(letter) == latin
    assert normalise(f"Z{letter}Z") == f"z{latin}z"


@pytest.mark.parametrize("code", [0x180B, 0x180C, 0x180D, 0x180F, 0xFE00, 0xFE01, 0xFE0E])
def test_variation_selectors_are_refused(code):
    assert f"U+{code:04X}" in refusal(f"Oma{chr(code)}")


@pytest.mark.parametrize("text", ["Oma\ufe10", "Xylophon", "XX", "Ὀδυσσεύς"])
def test_visible_neighbours_of_the_refused_ranges_are_fine(text):
    validate_clean_text(text)


def test_unnamed_characters_are_described_by_their_category():
    assert "U+D800: surrogate" in refusal("O\ud800ma")
    assert "U+0000: control" in refusal("Oma\x00")
    assert "U+0085: control" in refusal("O\x85ma")


def test_a_slug_of_exactly_the_limit_keeps_its_last_word():
    text = "-".join(["abcde"] * 10)  # 59 characters
    assert make_key(text + "f") == text + "f"  # 60: whole
    assert make_key(text + "fg") == "-".join(["abcde"] * 9)  # 61: the last word goes
    assert make_key("a" * (KEY_MAX_LENGTH + 1)) == "a" * KEY_MAX_LENGTH


def test_the_first_mixed_word_is_named_after_clean_ones():
    assert "“Omа”" in refusal("Oma Opa Omа")
    assert mixed_script_words("Ωmega Оma") == [("Ωmega", ["GREEK", "LATIN"]),
                                              ("Оma", ["CYRILLIC", "LATIN"])]
    assert mixed_script_words("Café Ωμέγα 東京") == []


def test_a_refused_key_gets_the_whole_explanation():
    with pytest.raises(ValidationError) as exc:
        validate_key("Oma Lisa")
    assert exc.value.messages == [
        "A key is lowercase ASCII letters and digits in words joined by single hyphens "
        "(like 'bermuda-dreieck')."
    ]
    with pytest.raises(ValidationError) as exc:
        make_key("…")
    assert exc.value.messages == ["Cannot make a key from '…': it has no letters or digits."]


def test_a_hidden_character_is_reported_in_one_exact_sentence():
    assert refusal("O\u200dma") == ("This text contains invisible control characters (U+200D). "
                                    "Remove them (U+200D: zero width joiner).")
    assert refusal("Оma") == ("The word “Оma” mixes Cyrillic and Latin letters that look alike; "
                             "type it in one alphabet.")
