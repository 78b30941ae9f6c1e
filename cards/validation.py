"""Rules for the catalogue as a whole, checked by ``manage.py validate_content``.

Each model checks its own row when it is saved (admin, import); this module checks what no
single row can see (counts, duplicates, decks, translations whose source moved on) and reruns
the row checks, so content that reached the database some other way is caught too.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError

from cards.colour_vision import ColourSpec, colour_problems
from cards.models import (
    CONTENT_MODELS,
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
    alfons_effect_problems,
    cards_in_market,
    editions_of,
    in_edition,
    market_leaves,
    option_problems,
    translation_max_length,
)
from cards.option_findings import open_findings
from cards.pictures import stored_file_exists
from cards.text import normalise, validate_clean_text

MIN_CONCEPTS = 8  # one board of eight concept cards
MIN_BASE_SYMBOLS = 7  # up to seven markers a round, each on its own symbol
MIN_COLOURS_PER_SIGN_SYMBOL = 5  # a quintet is one symbol in five colours
MIN_SIGN_CARDS = 25  # four players' hands of five and the five table cards


@dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def _label(obj) -> str:  # type: ignore[no-untyped-def]
    return f"{obj._meta.verbose_name} '{obj.key}'"


def _row_problems(model) -> list[Problem]:  # type: ignore[no-untyped-def]
    problems = []
    queryset = model._default_manager.all()
    if model is SignCard:
        queryset = queryset.select_related("symbol", "colour")
    # A reference's validation asks the database about each row; the database's own foreign
    # keys already guarantee it, and leaving it out keeps the check at a fixed query count.
    references = [f.name for f in model._meta.concrete_fields if f.is_relation]
    for obj in queryset:
        # A picture whose file is gone cannot be opened to check it: reported below instead.
        gone = isinstance(obj, SymbolTile) and bool(obj.image) and not stored_file_exists(obj.image)
        try:
            obj.clean_fields(exclude=[*references, "image"] if gone else references)
        except ValidationError as exc:
            for name, messages in exc.message_dict.items():
                problems.extend(Problem(_label(obj), f"{name}: {m}") for m in messages)
        if isinstance(obj, SymbolTile):
            if not obj.image and not obj.icon:
                problems.append(Problem(_label(obj), "has no picture."))
            elif gone:
                problems.append(Problem(_label(obj), f"its picture file {obj.image.name} is missing."))
        if isinstance(obj, AlfonsCard):
            for name, message in alfons_effect_problems(obj.effect, obj.amount, obj.target).items():
                problems.append(Problem(_label(obj), f"{name}: {message}"))
    if model.TEXT_FIELD:
        seen: dict[str, list[str]] = defaultdict(list)
        for key, text in queryset.values_list("key", model.TEXT_FIELD):
            seen[normalise(text)].append(key)
        for keys in seen.values():
            if len(keys) > 1:
                problems.append(
                    Problem(
                        f"{model._meta.verbose_name_plural}",
                        "the same text after normalisation: " + ", ".join(sorted(keys)),
                    )
                )
    return problems


def _count_problems() -> list[Problem]:
    problems = []
    concepts = ConceptCard.objects.count()
    if concepts < MIN_CONCEPTS:
        problems.append(
            Problem("concept cards", f"only {concepts}; a board needs at least {MIN_CONCEPTS}.")
        )
    base = SymbolTile.objects.filter(is_extra=False).count()
    if base < MIN_BASE_SYMBOLS:
        problems.append(
            Problem("symbol tiles", f"only {base} base tiles; a round needs at least {MIN_BASE_SYMBOLS}.")
        )
    deck = SignCard.objects.count()
    if deck < MIN_SIGN_CARDS:
        problems.append(
            Problem("Sign deck", f"only {deck} cards; four players need at least {MIN_SIGN_CARDS}.")
        )
    colours_of: dict[int, set[int]] = defaultdict(set)
    for symbol_id, colour_id in SignCard.objects.values_list("symbol_id", "colour_id"):
        colours_of[symbol_id].add(colour_id)
    for symbol in SignSymbol.objects.all():
        n = len(colours_of[symbol.pk])
        if n < MIN_COLOURS_PER_SIGN_SYMBOL:
            problems.append(
                Problem(
                    _label(symbol),
                    f"appears in {n} colours; a quintet needs {MIN_COLOURS_PER_SIGN_SYMBOL}.",
                )
            )
    if SignSymbol.objects.exists() and SignColour.objects.count() < MIN_COLOURS_PER_SIGN_SYMBOL:
        problems.append(Problem("Sign colours", "a quintet needs at least five colours."))
    return problems


def sign_colour_specs() -> list[ColourSpec]:
    return [ColourSpec(c.key, c.name, c.hex, c.mark) for c in SignColour.objects.all()]


def _sign_colour_problems() -> list[Problem]:
    """Colours every player can tell apart, marks that survive a half turn, enough contrast."""
    return [
        Problem("Sign colours " + " / ".join(p.keys), p.message)
        for p in colour_problems(sign_colour_specs())
    ]


# --- a slogan card as one unit --------------------------------------------------------------

SLOGAN_SIDES = (1, 2)
OPTIONS_PER_SLOGAN = 4

#: side -> (the slogan's key, its options in position order as (text, correct))
SloganSides = Mapping[int, tuple[str, Sequence[tuple[str, bool]]]]


class IncompleteUnit(ValidationError):
    """A card would be stored without all of its parts."""


def slogan_card_problems(sides: SloganSides) -> list[str]:
    """What keeps a slogan card from being complete, empty when nothing does.

    A card is one unit: a slogan on side 1 and one on side 2, each with four distinct
    answer options of which exactly one is correct. Every path that writes slogans (the
    admin, imports, restoring a pack) and every path that reads them (packs, print, play)
    asks this one function.
    """
    problems = []
    for side in SLOGAN_SIDES:
        if side not in sides:
            problems.append(f"slogan {side} is missing")
            continue
        key, options = sides[side]
        if len(options) != OPTIONS_PER_SLOGAN:
            problems.append(
                f"slogan {side} ({key}) has {len(options)} of {OPTIONS_PER_SLOGAN} options"
            )
            continue
        for message in option_problems([t for t, _ in options], [c for _, c in options]):
            problems.append(f"slogan {side} ({key}): {message.rstrip('.')}")
    for side in sorted(set(sides) - set(SLOGAN_SIDES)):
        problems.append(f"has a slogan on side {side}; a card has sides 1 and 2 only")
    return problems


def _slogan_market_problems() -> list[Problem]:
    """The editions: every card in some deck, and a deck only of what its players can play."""
    problems = []
    slogans = list(Slogan.objects.order_by("card__key", "side").values_list(
        "pk", "key", "card__key", "markets", "keep_german"))
    shared = cards_in_market([(card, markets) for _pk, _key, card, markets, _keep in slogans])
    for card, markets in sorted(shared.items()):
        if not markets:
            problems.append(Problem(
                f"slogan card '{card}'",
                "its two slogans share no market, so no deck can print it; give them a common "
                "market or pair them differently."))
    option_pks: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for pk, slogan_id, position in SloganOption.objects.values_list("pk", "slogan_id", "position"):
        option_pks[slogan_id].append((position, pk))
    for language in settings.KARTOTHEK_LANGUAGES[1:]:
        done = _translated(Slogan, language)
        options_done = _translated(SloganOption, language)
        for pk, key, card, markets, keep in slogans:
            languages = {leaf.partition("-")[0] for leaf in market_leaves(markets)}
            where = f"slogan '{key}'"
            if keep and language in languages:
                problems.append(Problem(where, f"stays German but is marked as known in "
                                        f"'{language}': the {language} deck would print German."))
            if not any(in_edition(shared.get(card, set()), e) for e in editions_of(language)):
                continue
            if not keep and pk not in done:
                problems.append(Problem(where, f"its card is in the {language} deck, but the "
                                        f"slogan has no {language} text yet (it would print German)."))
            for position, option_pk in sorted(option_pks[pk]):
                if option_pk not in options_done:
                    problems.append(Problem(
                        where, f"its card is in the {language} deck, but option {position} has no "
                        f"{language} text yet (it would print German)."))
    markets_of = {key: market_leaves(m) for _pk, key, _c, m, _k in slogans}
    for rule in MARKET_RULES:
        problems.extend(rule(markets_of))
    return problems


MarketRule = Callable[[dict[str, set[str]]], list[Problem]]
# Rules over each slogan's market leaves that need more than the content model: the exports
# app adds the check of what was published (exports/release_checks.py) when Django starts.
MARKET_RULES: list[MarketRule] = []


def register_market_rule(rule: MarketRule) -> None:
    if rule not in MARKET_RULES:
        MARKET_RULES.append(rule)


def _translated(model: type, language: str) -> set[int]:
    """Primary keys of the objects whose ``text`` has a usable translation into a language."""
    return set(Translation.objects.filter(
        content_type=ContentType.objects.get_for_model(model), field="text", language=language,
    ).exclude(text="").exclude(state=TranslationState.NEEDS_EDITING).values_list(
        "object_id", flat=True))


Units = dict[int, dict[int, tuple[str, list[tuple[str, bool]]]]]


def slogan_units(card_ids: Iterable[int] | None = None) -> Units:
    """card id -> its sides as :func:`slogan_card_problems` reads them, in two queries."""
    slogans = Slogan.objects.all()
    if card_ids is not None:
        slogans = slogans.filter(card_id__in=list(card_ids))
    units: Units = defaultdict(dict)
    side_of: dict[int, tuple[int, int]] = {}
    for pk, card_id, side, key in slogans.values_list("pk", "card_id", "side", "key"):
        units[card_id][side] = (key, [])
        side_of[pk] = (card_id, side)
    options = SloganOption.objects.order_by("slogan_id", "position")
    if card_ids is not None:
        options = options.filter(slogan_id__in=list(side_of))
    for slogan_id, text, correct in options.values_list("slogan_id", "text", "is_correct"):
        card_id, side = side_of[slogan_id]
        units[card_id][side][1].append((text, correct))
    return units


def incomplete_slogan_cards(card_ids: Iterable[int] | None = None) -> dict[str, list[str]]:
    """Key -> problems of every stored slogan card (or of those given) that is incomplete."""
    cards = SloganCard.objects.order_by("key")
    if card_ids is not None:
        card_ids = list(card_ids)
        cards = cards.filter(pk__in=card_ids)
    units = slogan_units(card_ids)
    found = {}
    for pk, key in cards.values_list("pk", "key"):
        problems = slogan_card_problems(units.get(pk, {}))
        if problems:
            found[key] = problems
    return found


def validate_unit(card: SloganCard) -> None:
    """Raise IncompleteUnit naming the card and what it lacks, as stored now."""
    problems = incomplete_slogan_cards([card.pk]).get(card.key)
    if problems:
        raise IncompleteUnit([f"slogan card {card.key}: {p}." for p in problems])


def _slogan_problems() -> list[Problem]:
    return [
        Problem(f"slogan card '{key}'", f"{message}.")
        for key, messages in incomplete_slogan_cards().items()
        for message in messages
    ] + _slogan_market_problems() + _option_problems() + _repeated_option_set_problems()


def repeated_option_sets(
        slogans: Iterable[tuple[str, Sequence[str], int]]) -> list[list[str]]:
    """Keys of slogans that offer the same four options with the answer in the same place
    (names compared folded), each group sorted; a player who met one card knows the other's
    answer by its position."""
    from cards.brands import brand_keys

    seen: dict[tuple, list[str]] = defaultdict(list)
    for key, options, correct in slogans:
        seen[(tuple(brand_keys(o)[-1] for o in options), correct)].append(key)
    return sorted(sorted(keys) for keys in seen.values() if len(keys) > 1)


def _repeated_option_set_problems() -> list[Problem]:
    options: dict[str, list[tuple[int, str, bool]]] = defaultdict(list)
    for key, position, text, correct in SloganOption.objects.values_list(
            "slogan__key", "position", "text", "is_correct"):
        options[key].append((position, text, correct))
    slogans = []
    for key, rows in options.items():
        rows.sort()
        answer = next((n for n, (_p, _t, c) in enumerate(rows, start=1) if c), 0)
        slogans.append((key, [t for _p, t, _c in rows], answer))
    return [Problem("slogans " + ", ".join(f"'{k}'" for k in keys),
                    "offer the same four options with the answer in the same place: change one "
                    "slogan's options or their order.")
            for keys in repeated_option_sets(slogans)]


def _option_problems() -> list[Problem]:
    """What gives a slogan's answer away (cards/option_checks.py), unless dismissed."""
    return [Problem(f"slogan '{finding.slogan}' [{finding.field}]",
                    f"{finding.title}: {finding.message}")
            for _card, finding in open_findings()]


def _translation_problems() -> list[Problem]:
    problems = []
    languages = settings.KARTOTHEK_LANGUAGES[1:]
    rows = Translation.objects.select_related("content_type").prefetch_related("content_object")
    slogan_keys = dict(Slogan.objects.values_list("pk", "key"))  # to name options
    by_type_language: dict[tuple[int, str, str], list[tuple[str, str]]] = defaultdict(list)
    for row in rows:
        obj = row.content_object
        if obj is None:
            problems.append(
                Problem(f"translation #{row.pk}", "belongs to a card that no longer exists.")
            )
            continue
        where = f"{_label_of_translation(obj, slogan_keys)} [{row.field}, {row.language}]"
        if row.language not in languages:
            problems.append(Problem(where, f"'{row.language}' is not a configured language."))
        if row.field not in type(obj).TRANSLATABLE_FIELDS:
            problems.append(Problem(where, f"'{row.field}' is not a translatable field."))
            continue
        if row.state == TranslationState.NEEDS_EDITING:
            problems.append(
                Problem(where, f"needs editing: the source changed from “{row.source_text}” "
                        f"to “{row.current_source}”.")
            )
        elif row.is_outdated:
            problems.append(
                Problem(where, f"was made from “{row.source_text}”, but the source is now "
                        f"“{row.current_source}”.")
            )
        if row.state != TranslationState.NEEDS_EDITING and not row.text.strip():
            problems.append(Problem(where, "is empty but marked as done."))
        elif row.text.strip():
            # The rules a translation is saved with, for rows that reached the table otherwise.
            try:
                validate_clean_text(row.text)
            except ValidationError as exc:
                problems.extend(Problem(where, message) for message in exc.messages)
            limit = translation_max_length(type(obj), row.field)
            if limit is not None and len(row.text) > limit:
                problems.append(Problem(where, f"is {len(row.text):,} characters long; at most "
                                        f"{limit} fit where its source is printed."))
        if row.text.strip() and type(obj).__name__ != "SloganOption":
            by_type_language[(row.content_type_id, row.field, row.language)].append(
                (normalise(row.text), _label_of_translation(obj, slogan_keys))
            )
    for (type_id, field, language), entries in by_type_language.items():
        counts = Counter(norm for norm, _ in entries)
        for norm, n in counts.items():
            if n > 1:
                owners = sorted(label for m, label in entries if m == norm)
                model = ContentType.objects.get_for_id(type_id).model_class()
                problems.append(
                    Problem(
                        f"{model._meta.verbose_name_plural} [{field}, {language}]",
                        "the same translation after normalisation: " + ", ".join(owners),
                    )
                )
    return problems


def _label_of_translation(obj, slogan_keys: dict[int, str]) -> str:  # type: ignore[no-untyped-def]
    if hasattr(obj, "slogan_id"):
        return f"answer option {obj.position} of slogan '{slogan_keys.get(obj.slogan_id)}'"
    return _label(obj)


# A Sauschwer object made of other rows names them at the end of its source:
# "Teile: 20 × eine-volle-bierflasche-0-5-l-nrw-mehrwegflasche + 1500 g" (count × key of a
# row, or a weight in grams for a part without a row, joined by "+").
PARTS = re.compile(r"Teile:\s*(?P<parts>.+?)\s*$")
PART = re.compile(r"^(?:(?P<count>\d+)\s*[×x]\s*(?P<key>[a-z0-9-]+)|(?P<grams>\d+)\s*g)$")
COMPOSITE_TOLERANCE = 0.02  # rounding of the parts' published figures


def composite_weight_problems(rows: Mapping[str, tuple[int, str]]) -> list[tuple[str, str]]:
    """(key, message) for every object whose source names its parts ("Teile: …") and whose
    weight is not their sum (within 2 %), or whose parts cannot be read."""
    found = []
    for key, (weight, source) in sorted(rows.items()):
        match = PARTS.search(source or "")
        if not match:
            continue
        total, parts = 0, []
        for term in match.group("parts").split("+"):
            part = PART.match(term.strip())
            if part is None:
                found.append((key, f"cannot read the part “{term.strip()}” of “Teile: …” (write "
                                   "“20 × key-of-a-row” or “1500 g”)."))
                break
            if part.group("grams"):
                total += int(part.group("grams"))
                parts.append(f"{part.group('grams')} g")
            elif part.group("key") not in rows:
                found.append((key, f"names the part “{part.group('key')}”, which is no row."))
                break
            else:
                count, of = int(part.group("count")), part.group("key")
                total += count * rows[of][0]
                parts.append(f"{count} × {rows[of][0]} g ({of})")
        else:
            if abs(weight - total) > COMPOSITE_TOLERANCE * max(total, 1):
                found.append((key, f"weighs {weight} g, but its parts add up to {total} g "
                                   f"({' + '.join(parts)}): correct the weight or the parts."))
    return found


def _sauschwer_problems() -> list[Problem]:
    rows = {key: (weight, source) for key, weight, source in
            SauschwerObject.objects.values_list("key", "weight_g", "source")}
    return [Problem(f"sauschwer object '{key}'", message)
            for key, message in composite_weight_problems(rows)]


def find_problems() -> list[Problem]:
    """Every violation of the content rules across the catalogue."""
    problems: list[Problem] = []
    for model in CONTENT_MODELS:
        problems.extend(_row_problems(model))
    problems.extend(_count_problems())
    problems.extend(_sign_colour_problems())
    problems.extend(_slogan_problems())
    problems.extend(_sauschwer_problems())
    problems.extend(_translation_problems())
    return problems
