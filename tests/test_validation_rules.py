"""cards/validation.py: every catalogue-wide rule, each broken by a small catalogue of its own.

``catalogue`` builds the smallest catalogue that obeys every rule, straight through the ORM
(no files, so each test stays fast); each test breaks one rule the way a bad migration, an SQL
session or an old import could, and checks the exact problems ``find_problems`` reports —
nothing missing, nothing extra. These tests are what the mutation check (tools/mutate.py)
runs against cards/validation.py.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.files.base import ContentFile
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from PIL import Image

from cards.models import (
    AlfonsCard,
    BrandOwnership,
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
)
from cards.validation import (
    MIN_BASE_SYMBOLS,
    MIN_COLOURS_PER_SIGN_SYMBOL,
    MIN_CONCEPTS,
    MIN_SIGN_CARDS,
    IncompleteUnit,
    Problem,
    find_problems,
    incomplete_slogan_cards,
    slogan_card_problems,
    slogan_units,
    validate_unit,
)

pytestmark = pytest.mark.django_db

CONCEPTS = ["Oma", "Liebe", "China", "Italien", "Goethe", "Papst", "Brot", "Mond"]
TILES = ["sun", "moon", "star", "heart", "cloud", "bolt", "leaf"]
SYMBOLS = ["Anker", "Krone", "Schlüssel", "Glocke", "Feder"]
# Five of the starter palette: colours every player tells apart (cards/colour_vision.py).
COLOURS = [("Rot", "#EB0045", "●"), ("Grau", "#58555B", "■"), ("Blau", "#1654FF", "★"),
           ("Grün", "#3E855C", "◆"), ("Schwarz", "#140902", "♥")]


def slogan(card: SloganCard, side: int, key: str, text: str, options: list[str],
           correct: int = 1) -> Slogan:
    made = Slogan.objects.create(card=card, side=side, key=key, text=text)
    for position, option in enumerate(options, start=1):
        SloganOption.objects.create(slogan=made, position=position, text=option,
                                    is_correct=position == correct)
        # every brand has an owner (cards/option_checks.py finds one without)
        BrandOwnership.objects.get_or_create(brand=option, defaults={
            "group": option, "source": "https://example.org/owners"})
    return made


def translate(obj, text: str, *, field: str = "text", language: str = "en",
              state: str = TranslationState.APPROVED) -> Translation:
    return Translation.objects.create(content_object=obj, field=field, language=language,
                                      text=text, state=state)


@pytest.fixture
def catalogue() -> dict:
    """The smallest catalogue that obeys every rule: each count exactly at its minimum."""
    concepts = [ConceptCard.objects.create(key=text.lower(), text=text) for text in CONCEPTS]
    for position, icon in enumerate(TILES, start=1):
        SymbolTile.objects.create(key=icon, name=icon.title(), icon=icon, position=position)
    SymbolTile.objects.create(key="extra", name="Extra", icon="flag", position=20, is_extra=True)
    symbols = [SignSymbol.objects.create(key=f"s{n}", name=name, position=n)
               for n, name in enumerate(SYMBOLS)]
    colours = [SignColour.objects.create(key=f"c{n}", name=name, hex=hex_, mark=mark, position=n)
               for n, (name, hex_, mark) in enumerate(COLOURS)]
    for symbol in symbols:
        for colour in colours:
            SignCard.objects.create(key=f"{symbol.key}-{colour.key}", symbol=symbol, colour=colour)
    card = SloganCard.objects.create(key="karte-001")
    first = slogan(card, 1, "just-do-it", "Just do it.", ["Adidas", "Puma", "Reebok", "Nike"], 4)
    slogan(card, 2, "quadratisch", "Quadratisch. Praktisch. Gut.",
           ["Milka", "Ritter Sport", "Lindt", "Hachez"], 2)
    AlfonsCard.objects.create(key="kaffee", text="Kaffee verschüttet.", effect="move", amount=-3)
    SauschwerObject.objects.create(key="ei", name="Ein Ei", weight_g=60, source="Küchenwaage")
    translate(concepts[0], "Grandma")
    translate(concepts[1], "Love")
    translate(first, "Just do it.")
    translate(first.options.get(position=4), "Nike")
    return {"concepts": concepts, "symbols": symbols, "colours": colours, "card": card,
            "slogan": first}


def problems() -> list[str]:
    return [str(p) for p in find_problems()]


@contextlib.contextmanager
def without_check_constraints(model):
    """Let rows past the database's CHECK constraints, as an old schema or raw SQL would."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA ignore_check_constraints = ON")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA ignore_check_constraints = OFF")
    else:  # PostgreSQL: dropped inside the test's transaction, which rolls back
        with connection.cursor() as cursor:
            # Deferred foreign-key checks of the rows just made must run before an ALTER TABLE
            # ("pending trigger events").
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            for constraint in model._meta.constraints:
                if hasattr(constraint, "condition") and not hasattr(constraint, "fields"):
                    cursor.execute(f'ALTER TABLE "{model._meta.db_table}" '
                                   f'DROP CONSTRAINT "{constraint.name}"')
        yield


# --- the clean catalogue and its boundaries -------------------------------------------------


def test_the_smallest_sound_catalogue_has_no_problems(catalogue):
    assert problems() == []


def test_the_minimums_are_the_rulebooks():
    assert (MIN_CONCEPTS, MIN_BASE_SYMBOLS, MIN_COLOURS_PER_SIGN_SYMBOL, MIN_SIGN_CARDS) == (
        8, 7, 5, 25)


def test_seven_concepts_are_too_few_for_a_board(catalogue):
    catalogue["concepts"][-1].delete()
    assert problems() == ["concept cards: only 7; a board needs at least 8."]


def test_six_base_tiles_are_too_few_and_extra_tiles_do_not_count(catalogue):
    SymbolTile.objects.filter(key="leaf").update(is_extra=True)
    assert problems() == ["symbol tiles: only 6 base tiles; a round needs at least 7."]


def test_a_sign_deck_of_24_cards_is_too_small(catalogue):
    SignCard.objects.filter(key="s0-c0").delete()
    assert problems() == [
        "Sign deck: only 24 cards; four players need at least 25.",
        "Sign symbol 's0': appears in 4 colours; a quintet needs 5.",
    ]


def test_a_symbol_in_four_colours_cannot_make_a_quintet_even_in_a_big_deck(catalogue):
    extra = SignColour.objects.create(key="c9", name="Violett", hex="#5603AB", mark="✚",
                                       position=9)
    for symbol in catalogue["symbols"][1:]:
        SignCard.objects.create(key=f"{symbol.key}-c9", symbol=symbol, colour=extra)
    SignCard.objects.filter(key="s0-c0").delete()  # 28 cards; s0 in 4 colours
    assert problems() == ["Sign symbol 's0': appears in 4 colours; a quintet needs 5."]


def test_a_symbol_without_cards_is_named(catalogue):
    SignSymbol.objects.create(key="s9", name="Stern", position=9)
    assert problems() == ["Sign symbol 's9': appears in 0 colours; a quintet needs 5."]


def test_four_colours_are_too_few_for_a_quintet(catalogue):
    SignCard.objects.filter(colour__key="c4").delete()
    SignColour.objects.filter(key="c4").delete()
    assert problems() == [
        "Sign deck: only 20 cards; four players need at least 25.",
        *(f"Sign symbol 's{n}': appears in 4 colours; a quintet needs 5." for n in range(5)),
        "Sign colours: a quintet needs at least five colours.",
    ]


def test_colours_alone_without_symbols_need_no_quintet(catalogue):
    SignCard.objects.all().delete()
    SignSymbol.objects.all().delete()
    SignColour.objects.filter(key="c4").delete()
    assert problems() == ["Sign deck: only 0 cards; four players need at least 25."]


# --- rows checked again ------------------------------------------------------------------


def test_a_tile_without_a_picture_is_named(catalogue):
    SymbolTile.objects.filter(key="sun").update(icon="")
    assert problems() == ["symbol tile 'sun': has no picture."]


def test_a_tile_whose_picture_file_is_gone_is_named(catalogue):
    buffer = io.BytesIO()
    Image.new("RGB", (128, 128), "white").save(buffer, "PNG")
    tile = SymbolTile.objects.get(key="moon")
    tile.image.save("moon.png", ContentFile(buffer.getvalue()))
    assert problems() == []  # an uploaded picture that is there
    tile.image.storage.delete(tile.image.name)
    assert problems() == [f"symbol tile 'moon': its picture file {tile.image.name} is missing."]


@pytest.mark.parametrize(
    ("effect", "amount", "target", "message"),
    [
        ("move", 0, "", "amount: A 'move' effect needs a number other than 0 (negative goes back)."),
        ("to_level", 7, "", "amount: A 'to_level' effect needs a career level from 1 to 6."),
        ("swap", None, "", "target: A 'swap' effect needs a target: leader, last or next."),
        ("to_start", 2, "", "amount: A 'to_start' effect takes no number; leave it empty."),
    ],
)
def test_an_alfons_card_whose_effect_lacks_its_amount_or_target_is_named(
    catalogue, effect, amount, target, message
):
    with without_check_constraints(AlfonsCard):
        AlfonsCard.objects.filter(key="kaffee").update(effect=effect, amount=amount, target=target)
    assert problems() == [f"Spießer Alfons card 'kaffee': {message}"]


def test_an_alfons_card_with_two_wrong_parts_gets_both_named(catalogue):
    with without_check_constraints(AlfonsCard):
        AlfonsCard.objects.filter(key="kaffee").update(effect="overtake", amount=1, target="next")
    assert problems() == [
        "Spießer Alfons card 'kaffee': amount: A 'overtake' effect takes no number; leave it empty.",
        "Spießer Alfons card 'kaffee': target: Only a 'swap' effect has a target, not 'overtake'.",
    ]


def test_field_rules_are_checked_again_for_every_row(catalogue):
    SauschwerObject.objects.filter(key="ei").update(source="")
    ConceptCard.objects.filter(key="goethe").update(text="Go\u200dethe")
    assert problems() == [
        "concept card 'goethe': text: This text contains invisible control characters (U+200D). "
        "Remove them (U+200D: zero width joiner).",
        "Sauschwer object 'ei': source: This field cannot be blank.",
    ]


def test_a_sign_card_is_checked_with_its_symbol_and_colour(catalogue):
    SignCard.objects.filter(key="s1-c1").update(key="Bad Key")
    assert problems() == [
        "Sign card 'Bad Key': key: A key is lowercase ASCII letters and digits in words joined "
        "by single hyphens (like 'bermuda-dreieck')."
    ]


def test_cards_of_a_kind_that_read_the_same_are_duplicates(catalogue):
    ConceptCard.objects.filter(key="china").update(text="OMA!")
    ConceptCard.objects.filter(key="papst").update(text="ОМА")  # Cyrillic: looks the same
    assert problems() == ["concept cards: the same text after normalisation: china, oma, papst"]


def test_the_same_text_in_two_kinds_is_no_duplicate(catalogue):
    SignSymbol.objects.filter(key="s0").update(name="Oma")
    SauschwerObject.objects.filter(key="ei").update(name="Oma")
    assert problems() == []


# --- a slogan card as one unit -------------------------------------------------------------------


def test_a_slogan_card_missing_a_side_is_named(catalogue):
    Slogan.objects.filter(key="quadratisch").delete()
    assert problems() == ["slogan card 'karte-001': slogan 2 is missing."]


def test_a_slogan_card_without_slogans_misses_both(catalogue):
    SloganCard.objects.create(key="karte-002")
    assert problems() == ["slogan card 'karte-002': slogan 1 is missing.",
                          "slogan card 'karte-002': slogan 2 is missing."]


def test_a_slogan_without_its_four_options_is_named(catalogue):
    SloganOption.objects.filter(slogan__key="quadratisch", position__gte=3).delete()
    SloganOption.objects.filter(slogan__key="just-do-it", position=1).update(text="nike")
    assert problems() == [
        "slogan card 'karte-001': slogan 1 (just-do-it): The answer options must differ; the same "
        "option appears twice: “Nike”, “nike”.",
        "slogan card 'karte-001': slogan 2 (quadratisch) has 2 of 4 options.",
    ]


def test_a_slogan_with_no_correct_option_is_named(catalogue):
    SloganOption.objects.filter(slogan__key="just-do-it").update(is_correct=False)
    assert problems() == [
        "slogan card 'karte-001': slogan 1 (just-do-it): Exactly one answer option must be "
        "correct, not 0."
    ]


def test_a_slogan_on_a_third_side_is_named(catalogue):
    with without_check_constraints(Slogan):
        Slogan.objects.filter(key="quadratisch").update(side=3)
    assert problems() == [
        "slogan 'quadratisch': side: Value 3 is not a valid choice.",
        "slogan card 'karte-001': slogan 2 is missing.",
        "slogan card 'karte-001': has a slogan on side 3; a card has sides 1 and 2 only.",
    ]


def test_the_unit_of_one_card_is_read_alone(catalogue):
    other = SloganCard.objects.create(key="karte-002")
    card = catalogue["card"]
    assert set(slogan_units([card.pk])) == {card.pk}
    units = slogan_units([other.pk])
    assert card.pk not in units
    assert incomplete_slogan_cards([card.pk]) == {}
    assert incomplete_slogan_cards([other.pk]) == {
        "karte-002": ["slogan 1 is missing", "slogan 2 is missing"]}
    assert incomplete_slogan_cards() == incomplete_slogan_cards([other.pk])
    three = [("A", True), ("B", False), ("C", False)]
    assert slogan_card_problems({1: ("a", three)}) == ["slogan 1 (a) has 3 of 4 options",
                                                       "slogan 2 is missing"]
    units = slogan_units()
    assert units[card.pk][1] == ("just-do-it", [("Adidas", False), ("Puma", False),
                                                ("Reebok", False), ("Nike", True)])
    validate_unit(card)
    with pytest.raises(IncompleteUnit) as exc:
        validate_unit(other)
    assert exc.value.messages == ["slogan card karte-002: slogan 1 is missing.",
                                  "slogan card karte-002: slogan 2 is missing."]


# --- translations ------------------------------------------------------------------------------


def test_a_translation_marked_done_but_empty_is_named(catalogue):
    Translation.objects.filter(text="Love").update(text="  ")
    assert problems() == ["concept card 'liebe' [text, en]: is empty but marked as done."]


def test_an_empty_translation_that_needs_editing_is_only_reported_as_needing_editing(catalogue):
    oma = catalogue["concepts"][0]
    row = Translation.objects.get(text="Grandma")
    Translation.objects.filter(pk=row.pk).update(text="", state=TranslationState.NEEDS_EDITING,
                                                 source_text="Omi")
    assert problems() == [
        f"concept card '{oma.key}' [text, en]: needs editing: the source changed from “Omi” to "
        "“Oma”."
    ]


def test_a_translation_made_from_an_older_source_is_named(catalogue):
    Translation.objects.filter(text="Love").update(source_text="Die Liebe")
    assert problems() == [
        "concept card 'liebe' [text, en]: was made from “Die Liebe”, but the source is now "
        "“Liebe”."
    ]


def test_translations_that_read_the_same_are_duplicates_but_options_may_repeat(catalogue):
    concepts = catalogue["concepts"]
    translate(concepts[2], "GRANDMA!")
    translate(concepts[3], "Grаndma")  # with a Cyrillic а: refused, and a duplicate
    translate(concepts[4], "Grandma", language="fr")
    other = Slogan.objects.get(key="quadratisch")
    translate(other.options.get(position=1), "Nike")  # the same brand in two slogans is fine
    with override_settings(KARTOTHEK_LANGUAGES=["de", "en", "fr"]):
        found = problems()
    assert found == [
        "concept card 'italien' [text, en]: The word “Grаndma” mixes Cyrillic and Latin letters "
        "that look alike; type it in one alphabet.",
        "concept cards [text, en]: the same translation after normalisation: concept card "
        "'china', concept card 'italien', concept card 'oma'",
    ]


def test_a_translation_in_an_unknown_language_or_the_source_language_is_named(catalogue):
    concepts = catalogue["concepts"]
    translate(concepts[2], "Chine", language="fr")
    translate(concepts[3], "Italien", language="de")
    assert problems() == [
        "concept card 'china' [text, fr]: 'fr' is not a configured language.",
        "concept card 'italien' [text, de]: 'de' is not a configured language.",
    ]


def test_checking_goes_on_after_an_unknown_field_and_a_deleted_card(catalogue):
    concepts = catalogue["concepts"]
    concept_type = ContentType.objects.get_for_model(ConceptCard)
    gone = Translation.objects.create(content_type=concept_type, object_id=999_999, field="text",
                                      language="en", text="Ghost")
    Translation.objects.create(content_object=concepts[2], field="name", language="en",
                               text="China")  # concepts have no field "name"
    translate(concepts[5], "Pope", state=TranslationState.TRANSLATED)
    Translation.objects.filter(text="Pope").update(text="")  # a problem after the others
    egg = SauschwerObject.objects.get(key="ei")
    translate(egg, "Ei", field="name")
    Translation.objects.filter(text="Ei").update(text=" ")  # after the deleted card's row
    assert problems() == [
        "concept card 'china' [name, en]: 'name' is not a translatable field.",
        "concept card 'papst' [text, en]: is empty but marked as done.",
        f"translation #{gone.pk}: belongs to a card that no longer exists.",
        "Sauschwer object 'ei' [name, en]: is empty but marked as done.",
    ]


def test_an_option_translation_names_its_slogan_and_position(catalogue):
    Translation.objects.filter(text="Nike").update(text="", state=TranslationState.TRANSLATED)
    assert problems() == ["answer option 4 of slogan 'just-do-it' [text, en]: is empty but marked "
                          "as done."]


def test_a_translation_longer_than_its_source_field_is_named(catalogue):
    Translation.objects.filter(text="Love").update(text="L" * 121)
    Translation.objects.filter(text="Grandma").update(text="G" * 120)
    assert problems() == ["concept card 'liebe' [text, en]: is 121 characters long; at most 120 "
                          "fit where its source is printed."]


def test_a_problem_reads_as_where_and_what():
    assert str(Problem("concept cards", "only 7.")) == "concept cards: only 7."


# --- cost ---------------------------------------------------------------------------------------


def test_checking_runs_the_same_number_of_queries_for_any_catalogue_size(catalogue):
    def queries() -> int:
        with CaptureQueriesContext(connection) as context:
            assert find_problems() == []
        return len(context.captured_queries)

    before = queries()
    for n in range(12):
        concept = ConceptCard.objects.create(key=f"begriff-{n}", text=f"Begriff {n}")
        translate(concept, f"Concept {n}")
        SauschwerObject.objects.create(key=f"ding-{n}", name=f"Ding {n}", weight_g=n + 1,
                                       source="Waage")
        SymbolTile.objects.create(key=f"tile-{n}", name=f"Kachel {n}", icon="sun",
                                  position=30 + n)
        AlfonsCard.objects.create(key=f"alfons-{n}", text=f"Alfons {n}", effect="to_start")
        card = SloganCard.objects.create(key=f"karte-{n + 100}")
        for side in (1, 2):
            made = slogan(card, side, f"slogan-{n}-{side}", f"Slogan {n} {side}",
                          [f"Marke {n} {side} {i}" for i in range(4)])
            translate(made, f"Slogan {n} {side} en")
            translate(made.options.get(position=1), f"Brand {n} {side}")
    assert queries() == before


def test_two_cards_or_two_translations_that_read_the_same_are_already_duplicates(catalogue):
    ConceptCard.objects.filter(key="china").update(text="Mond!")
    translate(catalogue["concepts"][3], "Love?")
    assert problems() == [
        "concept cards: the same text after normalisation: china, mond",
        "concept cards [text, en]: the same translation after normalisation: concept card "
        "'italien', concept card 'liebe'",
    ]


def test_an_option_that_gives_the_answer_away_is_named_with_its_slogan_and_field(catalogue):
    # Reebok recorded as a Nike brand: beside the answer Nike it would be a second right answer
    BrandOwnership.objects.filter(brand="Reebok").update(group="Nike")
    assert problems() == [
        "slogan 'just-do-it' [option_3]: Option from the answer's company group: “Reebok” and the "
        "answer “Nike” belong to the same group today (nike): a player who knows it can argue for "
        "both; use a competitor of another group."]
    BrandOwnership.objects.filter(brand="Reebok").delete()
    assert problems() == [
        "slogan 'just-do-it' [option_3]: Brand without an owner group: “Reebok” has no owner group "
        "in the brand table: add a row (Brand owners) with its group, since when, and a source."]
