"""How far each game's translation into each language has come, and what is left to do."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.db.models import QuerySet

from cards.findings import count_by_state
from cards.markets import cards_in_market, editions_of, in_edition
from cards.models import (
    EMPTY,
    Game,
    Slogan,
    SloganOption,
    Translatable,
    Translation,
    TranslationState,
    models_of,
)
from cards.search import matching, translated_matching

#: The count of texts that no deck of the language prints (see :func:`unprinted`).
NOT_PRINTED = "not_printed"


@dataclass
class Progress:
    game: str
    language: str
    counts: dict[str, int] = field(default_factory=dict)
    #: check slug -> texts with an open (not dismissed) finding of that check
    findings: dict[str, int] = field(default_factory=dict)

    @property
    def open_findings(self) -> int:
        return sum(self.findings.values())

    @property
    def finding_list(self) -> list[tuple[str, str, int]]:
        """(slug, title, count) of the checks that found something, most first."""
        from cards.checks import REGISTRY

        return sorted(((slug, REGISTRY[slug].title if slug in REGISTRY else slug, n)
                       for slug, n in self.findings.items() if n), key=lambda item: -item[2])

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def done(self) -> int:
        return self.counts.get(TranslationState.TRANSLATED, 0) + self.counts.get(
            TranslationState.APPROVED, 0
        )

    @property
    def percent(self) -> int:
        """Done of the texts a deck of the language prints, rounded down: 100 % only when
        nothing is missing or needs editing."""
        wanted = self.total - self.counts.get("untranslated", 0) - self.counts.get(NOT_PRINTED, 0)
        return 100 * self.done // wanted if wanted else 100


def progress(game: str, language: str, *, stored: bool = True) -> Progress:
    """Counts of empty, needs editing, translated, approved, deliberately German texts, and
    of the texts no deck of the language prints (``NOT_PRINTED``, whatever their state: they
    are neither missing nor done).

    The counts per state are read from the stored ones (``cards.findings`` keeps them with the
    findings, one query), or with ``stored=False`` counted in the translations."""
    result = Progress(game, language, {EMPTY: 0, "untranslated": 0, **dict.fromkeys(
        TranslationState.values, 0), NOT_PRINTED: 0})
    from cards.findings import stored_counts, target_languages

    stored = stored and language in target_languages()  # the source language has none stored
    kept_counts = stored_counts(game, language) if stored else {}
    skipped = unprinted(game, language)
    for model in models_of(game):
        type_id = ContentType.objects.get_for_model(model).pk
        for name in model.TRANSLATABLE_FIELDS:
            total = model._default_manager.count()
            if model is Slogan and name == "text":
                kept = Slogan.objects.filter(keep_german=True).count()
                result.counts["untranslated"] += kept
                total -= kept
            by_state = dict(kept_counts.get((type_id, name), {}) if stored
                            else count_by_state(model, name, language))
            skip = skipped.get((model, name), set())
            if skip:
                result.counts[NOT_PRINTED] += len(skip)
                total -= len(skip)
                for state, n in _states_of(type_id, name, language, skip).items():
                    by_state[state] = by_state.get(state, 0) - n
            for state, n in by_state.items():
                result.counts[state] += n
            result.counts[EMPTY] += total - sum(by_state.values())
    return result


def unprinted_cards(language: str) -> set[str]:
    """The keys of the Slogan cards that no deck of ``language`` prints: their slogans share
    no market of it (a card known only in Germany never reaches an English deck), as the
    slogan pack builds its editions (``cards.markets``)."""
    rows = Slogan.objects.values_list("card__key", "markets")
    editions = editions_of(language)
    return {card for card, shared in cards_in_market(list(rows)).items()
            if not any(in_edition(shared, edition) for edition in editions)}


def unprinted(game: str, language: str) -> dict[tuple[type[Translatable], str], set[int]]:
    """(kind, field) -> the objects whose text no deck of ``language`` prints: the slogans of
    the cards :func:`unprinted_cards` names (but those that stay German, counted apart) and
    their answer options. Every other game prints every text in every language."""
    if game != Game.SLOGAN:
        return {}
    cards = unprinted_cards(language)
    if not cards:
        return {}
    slogans = {pk: keep for pk, card, keep in Slogan.objects.values_list(
        "pk", "card__key", "keep_german") if card in cards}
    options = {pk for pk, slogan in SloganOption.objects.values_list("pk", "slogan_id")
               if slogan in slogans}
    return {(Slogan, "text"): {pk for pk, keep in slogans.items() if not keep},
            (SloganOption, "text"): options}


def _states_of(type_id: int, name: str, language: str, ids: set[int]) -> dict[str, int]:
    """The filled translations of these objects' field, counted by state."""
    counts: dict[str, int] = {}
    for object_id, state in Translation.objects.filter(
            content_type_id=type_id, field=name, language=language).exclude(
            text="").values_list("object_id", "state"):
        if object_id in ids:
            counts[state] = counts.get(state, 0) + 1
    return counts


def all_progress(languages: list[str], *, checks: bool = False) -> list[Progress]:
    """Every game's progress per language; with ``checks``, the open findings counted too
    (from the stored findings, cards/findings.py: one query, whatever the catalogue's size)."""
    from cards.findings import stored_finding_counts

    result = [progress(game, language) for game in Game.values for language in languages]
    if checks:
        counts = stored_finding_counts(languages)
        for item in result:
            item.findings = counts[(item.game, item.language)]
    return result


@dataclass
class Unit:
    """One text to translate: an object's field, its source and its translation (if any)."""

    obj: Translatable
    field: str
    translation: Translation | None
    #: no deck of the language prints this text (its card's slogans share no market of it)
    not_printed: bool = False

    @property
    def source(self) -> str:
        return str(getattr(self.obj, self.field))

    @property
    def state(self) -> str:
        return self.translation.effective_state if self.translation else EMPTY

    @property
    def ident(self) -> str:
        return f"{type(self.obj)._meta.model_name}-{self.obj.pk}-{self.field}"

    @property
    def label(self) -> str:
        if isinstance(self.obj, SloganOption):
            return f"{self.obj.slogan.key} · option {self.obj.position}"
        return f"{self.obj.key}"  # type: ignore[attr-defined]

    @property
    def context(self) -> str:
        """What a translator needs beside the text: the slogan an option answers."""
        if isinstance(self.obj, SloganOption):
            return f"answer to: {self.obj.slogan.text}"
        return ""


class UnitList:
    """The texts of a game for a language as a lazy, sliceable list (what ``Paginator``
    takes), filtered by state and a search in the database.

    A slice reads only the objects it holds (``LIMIT``/``OFFSET`` per content type and
    field) and their translations: a page costs the same few queries whatever the size of
    the catalogue. Order: content types as the game lists them, then key (answer options:
    their slogan's key and position), then field.
    """

    def __init__(self, game: str, language: str, state: str = "", search: str = "") -> None:
        self.language = language
        self.parts: list[tuple[type[Translatable], str, QuerySet]] = []
        self._counters: list[Callable[[], int]] = []
        # A text no deck prints is not missing (the progress page counts it apart).
        self.unprinted = unprinted_cards(language) if game == Game.SLOGAN else set()
        for model in models_of(game):
            content_type = ContentType.objects.get_for_model(model)
            for name in model.TRANSLATABLE_FIELDS:
                queryset = _filtered(model, name, content_type, language, state, search)
                if state == EMPTY and self.unprinted and model in CARD_KEY:
                    queryset = queryset.exclude(**{CARD_KEY[model] + "__in": self.unprinted})
                self.parts.append((model, name, queryset))
                self._counters.append(_counter(model, name, content_type, language, state,
                                               search, queryset))
        self._counts: list[int] | None = None

    def counts(self) -> list[int]:
        if self._counts is None:
            self._counts = [count() for count in self._counters]
        return self._counts

    def count(self) -> int:
        return sum(self.counts())

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: slice | int) -> list[Unit]:
        if isinstance(index, int):
            return self[index:index + 1]
        start, stop = index.start or 0, index.stop if index.stop is not None else self.count()
        picked: list[tuple[type[Translatable], str, list[Translatable]]] = []
        offset = 0
        for (model, name, queryset), count in zip(self.parts, self.counts(), strict=True):
            low, high = max(start - offset, 0), min(stop - offset, count)
            if low < high:
                picked.append((model, name, list(queryset[low:high])))
            offset += count
            if offset >= stop:
                break
        rows = _translations_of(picked, self.language)
        return [Unit(obj, name, rows.get((model, obj.pk, name)),
                     not_printed=self._card_of(obj) in self.unprinted)
                for model, name, objs in picked for obj in objs]

    def _card_of(self, obj: Translatable) -> str | None:
        if not self.unprinted:
            return None
        slogan = obj.slogan if isinstance(obj, SloganOption) else obj
        return slogan.card.key if isinstance(slogan, Slogan) else None


#: The lookup of the Slogan card's key from a slogan and from an answer option.
CARD_KEY: dict[type[Translatable], str] = {Slogan: "card__key", SloganOption: "slogan__card__key"}


def _filtered(model: type[Translatable], name: str, content_type: ContentType, language: str,
              state: str, search: str) -> QuerySet:
    queryset = model._default_manager.all()
    if model is SloganOption:
        queryset = queryset.select_related("slogan__card").order_by("slogan__key", "position")
    else:
        queryset = queryset.order_by("key")
    if model is Slogan:
        queryset = queryset.select_related("card")
    if model is Slogan:
        queryset = queryset.filter(keep_german=False)
    rows = Translation.objects.filter(content_type=content_type, field=name, language=language)
    if state == EMPTY:
        queryset = queryset.exclude(pk__in=rows.exclude(text="").values("object_id"))
    elif state:
        queryset = queryset.filter(pk__in=rows.filter(state=state).exclude(text="").values("object_id"))
    if search:
        queryset = queryset.filter(matching(model, name, search) | translated_matching(
            content_type.pk, name, language, search))
    return queryset


def _counter(model: type[Translatable], name: str, content_type: ContentType, language: str,
             state: str, search: str, queryset: QuerySet) -> Callable[[], int]:
    """How to count a part cheaply: a state's texts are counted on the translations' index
    (their number, not the catalogue's size, is what the database reads)."""
    if search or model is Slogan or state not in TranslationState.values:
        return queryset.count
    rows = Translation.objects.filter(content_type=content_type, field=name, language=language,
                                      state=state).exclude(text="")
    return rows.count


def _translations_of(picked: list[tuple[type[Translatable], str, list[Translatable]]],
                     language: str) -> dict[tuple[type[Translatable], int, str], Translation]:
    found: dict[tuple[type[Translatable], int, str], Translation] = {}
    for model, name, objs in picked:
        if not objs:
            continue
        by_pk = {obj.pk: obj for obj in objs}
        rows = Translation.objects.filter(
            content_type=ContentType.objects.get_for_model(model), field=name, language=language,
            object_id__in=list(by_pk))
        for row in rows:
            row.content_object = by_pk[row.object_id]  # its source, without a query per row
            found[(model, row.object_id, row.field)] = row
    return found


def units(game: str, language: str, state: str = "", search: str = "") -> UnitList:
    """Every text of a game for a language, optionally only those in one state or matching
    a search (in the German source or the translation, ignoring case)."""
    return UnitList(game, language, state, search)
