"""Translation checks: what a translator should look at again before a text is printed.

A check is a function over one :class:`TextUnit` (an object's field in one language: its
German source, the translation, the state, whether it stays German, the glossary of the
language) that returns a message a translator understands, or ``None``. Checks are kept in
a registry (:data:`REGISTRY`, filled by :func:`register`); :func:`run_checks` runs them all
over one unit, :func:`open_findings` leaves out the findings a curator dismissed
(``CheckDismissal``) for the texts as they are now, and :func:`catalogue_findings` does both
for every translated text of a game and language (a few queries in all).

Checks only look at texts that have a translation; a missing translation is counted by the
progress page, not reported here.

The *does not fit* check measures the text with the card's real print layout; it lives
with the card previews (``exports.preview.fit_problem(obj, field, language, text)``), a floor
above the content model, and the exports app registers it when Django starts
(``register_fit_check(fit_problem)`` in exports/apps.py), after every check of this module.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.contrib.contenttypes.models import ContentType

ELLIPSIS = "…"


@dataclass(frozen=True)
class GlossaryEntry:
    term: str
    translation: str
    note: str
    required: re.Pattern[str]  # finds the required translation (with plural -s) in a text


@dataclass
class TextUnit:
    """One text to check: the object's field in one language."""

    obj: Any  # the Translatable the text belongs to (None for a text checked on its own)
    field: str
    language: str
    source: str
    text: str
    state: str = ""
    keeps_source: bool = False  # "stays German": the German is printed on purpose
    glossary: Glossary = field(default_factory=lambda: Glossary())

    @property
    def is_name(self) -> bool:
        """A slogan's answer option names a brand, product or company: names keep their
        spelling, so "unchanged" is expected and only the glossary's kept names apply."""
        return type(self.obj).__name__ == "SloganOption"

    @property
    def known_as_written(self) -> bool:
        """A slogan already known in this language's market as the German edition prints it
        (an English slogan in the English market)."""
        return self.language in (getattr(self.obj, "market_languages", None) or ())


@dataclass(frozen=True)
class Finding:
    check: str  # the check's slug, e.g. "placeholder"
    message: str

    @property
    def title(self) -> str:
        spec = REGISTRY.get(self.check)
        return spec.title if spec else self.check


CheckFunction = Callable[[TextUnit], str | None]


@dataclass(frozen=True)
class CheckSpec:
    slug: str
    title: str  # a short name for lists and counts ("placeholder …")
    function: CheckFunction


REGISTRY: dict[str, CheckSpec] = {}


def register(slug: str, title: str) -> Callable[[CheckFunction], CheckFunction]:
    """Add a check to the registry under a slug (used in PO flags, dismissals and counts)."""
    if not re.fullmatch(r"[a-z][a-z0-9-]*", slug):
        raise ValueError(f"a check's slug is lowercase words joined by hyphens, not {slug!r}")

    def add(function: CheckFunction) -> CheckFunction:
        REGISTRY[slug] = CheckSpec(slug, title, function)
        return function

    return add


def run_checks(unit: TextUnit, checks: Iterable[CheckSpec] | None = None) -> list[Finding]:
    """Every finding of the registered checks (or of ``checks``) on one unit."""
    if not unit.text.strip():
        return []
    found = []
    for spec in REGISTRY.values() if checks is None else checks:
        message = spec.function(unit)
        if message:
            found.append(Finding(spec.slug, message))
    return found


# --- the checks ------------------------------------------------------------------------


def _times(n: int) -> str:
    return {0: "not at all", 1: "once", 2: "twice"}.get(n, f"{n} times")


@register("placeholder", "placeholder …")
def check_placeholder(unit: TextUnit) -> str | None:
    """A slogan's “…” stands for the brand the players guess: it must survive translation."""
    want, have = unit.source.count(ELLIPSIS), unit.text.count(ELLIPSIS)
    if want == have:
        return None
    if want and not have and "..." in unit.text:
        return ("The German has “…” (where the brand goes); the translation writes “...” "
                "(three dots) instead: use the single character “…”.")
    if want and not have:
        return ("The German has “…” where the brand goes; the translation has none. "
                "Put “…” where the brand goes in your language.")
    if have and not want:
        return ("The translation has “…”, the German none: a “…” tells the players to guess a "
                "brand here. Remove it, or check the German.")
    return f"The German has “…” {_times(want)}, the translation {_times(have)}."


_CLOSERS = "\"'”“„»«›‹’‘)]"
_ENDINGS = {".": "a full stop “.”", "!": "“!”", "?": "“?”", ELLIPSIS: "“…”", ":": "“:”",
            ";": "“;”", ",": "a comma"}


def _ending(text: str) -> str:
    text = text.rstrip().rstrip(_CLOSERS).rstrip()
    if text.endswith("..."):
        return ELLIPSIS
    return text[-1] if text and text[-1] in _ENDINGS else ""


@register("ending-punctuation", "ending punctuation")
def check_ending_punctuation(unit: TextUnit) -> str | None:
    want, have = _ending(unit.source), _ending(unit.text)
    if want == have:
        return None
    said = {"": "no punctuation mark", **_ENDINGS}
    return f"The German ends with {said[want]}, the translation with {said[have]}."


@register("spaces-at-ends", "spaces at the start or end")
def check_spaces_at_ends(unit: TextUnit) -> str | None:
    where = [name for name, stray in (("starts", unit.text[:1].isspace()),
                                      ("ends", unit.text[-1:].isspace())) if stray]
    if not where:
        return None
    return f"The translation {' and '.join(where)} with a space; remove it."


_DOUBLE_SPACE = re.compile(r"\S( {2,})\S")


@register("double-space", "doubled spaces")
def check_double_space(unit: TextUnit) -> str | None:
    found = _DOUBLE_SPACE.search(unit.text)
    if found is None or _DOUBLE_SPACE.search(unit.source):
        return None
    before = unit.text[max(0, found.start() - 12):found.start() + 1]
    return f"The translation has {len(found.group(1))} spaces in a row (after “{before}”); one is enough."


@register("unchanged", "unchanged from the German")
def check_unchanged(unit: TextUnit) -> str | None:
    if unit.keeps_source or unit.text.strip() != unit.source.strip():
        return None
    if unit.is_name or unit.known_as_written:
        return None
    if any(entry.translation == entry.term and entry.term == unit.source.strip()
           for entry in unit.glossary):
        return None  # the glossary says this name stays as it is
    return ("The translation is the German text unchanged. If that is right (a name), a curator "
            "can dismiss this; if the text should stay German everywhere, mark it “stays German”.")


#: A length outside these ratios (and this many characters apart) is worth a second look.
LENGTH_RATIOS = (0.5, 2.0)
LENGTH_SLACK = 10


@register("length", "length far from the German")
def check_length(unit: TextUnit) -> str | None:
    want, have = len(unit.source.strip()), len(unit.text.strip())
    if not want or abs(have - want) < LENGTH_SLACK:
        return None
    ratio = have / want
    low, high = LENGTH_RATIOS
    if low <= ratio <= high:
        return None
    longer = "longer" if ratio > 1 else "shorter"
    return (f"The translation has {have} characters, the German {want} ({ratio:.2f}× as long): "
            f"much {longer} than the German; check that nothing was added or left out.")


@register("glossary", "glossary")
def check_glossary(unit: TextUnit) -> str | None:
    if not unit.glossary:
        return None
    present = unit.glossary.terms_in(unit.source)
    if unit.is_name:
        present = [e for e in present if e.term == e.translation]
    missing = [entry for entry in present if not entry.required.search(unit.text)]
    if not missing:
        return None
    parts = [f"“{e.term}” is “{e.translation}”" + (f" ({e.note})" if e.note else "")
             for e in missing]
    return "The glossary says: " + "; ".join(parts) + ". The translation does not use it."


# --- the glossary, compiled once per language ----------------------------------------------

# German inflection, kept simple: a term also matches with one of these endings (Chef,
# Chefs, Chefe, Chefen; Feld, Felder, Feldern), at word boundaries on both sides, ignoring
# case. Compounds (Startfeld) are not the term (they get their own entry), and umlaut plurals
# (Stuhl → Stühle) need their own entry too. The required translation is found with an
# optional plural or possessive ending (chip, chips, boss's, bosses).
GERMAN_ENDINGS = ("e", "en", "er", "ern", "es", "n", "s", "ns")
_ENGLISH_ENDINGS = r"(?:s|es|'s|’s)?"


def _translation_pattern(translation: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(translation)}{_ENGLISH_ENDINGS}(?!\w)", re.IGNORECASE)


class Glossary(tuple[GlossaryEntry, ...]):
    """The entries that apply to one game's texts, with one pattern that finds all their
    terms in a source at once (a few hundred terms cost one scan per text, not hundreds)."""

    _any: re.Pattern[str] | None
    _by_term: dict[str, GlossaryEntry]

    def __new__(cls, entries: Iterable[GlossaryEntry] = ()) -> Glossary:
        self = super().__new__(cls, entries)
        self._by_term = {entry.term.casefold(): entry for entry in self}
        # Longest first: of two terms starting at one place (Karriere, Karriere-Knick) the
        # longer one is the word that stands there.
        terms = sorted({entry.term for entry in self}, key=len, reverse=True)
        endings = "|".join(GERMAN_ENDINGS)
        self._any = re.compile(
            rf"(?<!\w)({'|'.join(re.escape(t) for t in terms)})(?:{endings})?(?!\w)",
            re.IGNORECASE) if terms else None
        return self

    def terms_in(self, source: str) -> list[GlossaryEntry]:
        if self._any is None:
            return []
        found: dict[str, GlossaryEntry] = {}
        for match in self._any.finditer(source):
            entry = self._by_term.get(match.group(1).casefold())
            if entry is not None:
                found.setdefault(entry.term, entry)
        return list(found.values())


def compile_glossary(rows: Iterable[tuple[str, str, str, str]]) -> dict[str, Glossary]:
    """(term, translation, note, game) rows -> game -> the entries that apply there."""
    from cards.models import Game

    by_game: dict[str, list[GlossaryEntry]] = {game: [] for game in Game.values}
    for term, translation, note, game in rows:
        entry = GlossaryEntry(term, translation, note, _translation_pattern(translation))
        for name in ([game] if game else Game.values):
            by_game[name].append(entry)
    return {game: Glossary(entries) for game, entries in by_game.items()}


def load_glossary(language: str) -> dict[str, Glossary]:
    from cards.models import GlossaryTerm

    rows = GlossaryTerm.objects.filter(language=language).values_list(
        "term", "translation", "note", "game")
    return compile_glossary(rows)


# --- many texts at once: dismissals and units from the database ------------------------------


@dataclass
class Dismissals:
    """The dismissals of one language: (content type id, object id, field) -> check -> rows."""

    rows: dict[tuple[int, int, str], dict[str, list[tuple[str, str]]]] = field(default_factory=dict)

    @classmethod
    def load(cls, language: str, object_ids: dict[int, Iterable[int]] | None = None) -> Dismissals:
        from cards.models import CheckDismissal

        queryset = CheckDismissal.objects.filter(language=language)
        result = cls()
        if object_ids is not None:
            selected = []
            for type_id, ids in object_ids.items():
                ids = list(ids)
                for start in range(0, len(ids), 900):
                    selected.append(queryset.filter(content_type_id=type_id,
                                                    object_id__in=ids[start:start + 900]))
        else:
            selected = [queryset]
        for part in selected:
            for type_id, object_id, field_name, check, source, text in part.values_list(
                    "content_type_id", "object_id", "field", "check_name", "source", "text"):
                result.rows.setdefault((type_id, object_id, field_name), {}).setdefault(
                    check, []).append((source, text))
        return result

    def covers(self, type_id: int, object_id: int, field_name: str, finding: Finding,
               source: str, text: str) -> bool:
        made_on = self.rows.get((type_id, object_id, field_name), {}).get(finding.check, ())
        return (source, text) in made_on


def open_findings(unit: TextUnit, dismissals: Dismissals, type_id: int) -> list[Finding]:
    """The findings on a unit that no dismissal covers for the texts as they are now."""
    pk = getattr(unit.obj, "pk", None)
    return [finding for finding in run_checks(unit)
            if pk is None or not dismissals.covers(type_id, pk, unit.field, finding,
                                                   unit.source, unit.text)]


@dataclass
class CheckedText:
    """A text of the catalogue with its open findings."""

    obj: Any
    field: str
    language: str
    label: str
    findings: list[Finding]


def catalogue_findings(game: str, language: str, only: dict[type, Iterable[int]] | None = None,
                       ) -> Iterator[CheckedText]:
    """Every translated text of a game in one language, with its open findings (with
    ``only``: of those objects alone, model -> primary keys).

    A few queries per content type, whatever the catalogue's size: the objects, their
    translations and the dismissals are each read once (per 900 objects with ``only``).
    """
    from cards.models import models_of

    glossary = load_glossary(language)[game]
    every_dismissal = Dismissals.load(language) if only is None else None
    for model in models_of(game):
        if only is None:
            yield from _model_findings(model, language, glossary, None, every_dismissal)
        elif model in only:
            ids = sorted(set(only[model]))
            for start in range(0, len(ids), 900):  # SQLite's limit of parameters per statement
                yield from _model_findings(model, language, glossary, ids[start:start + 900])


def _model_findings(model: Any, language: str, glossary: Glossary, ids: list[int] | None,
                    dismissals: Dismissals | None = None) -> Iterator[CheckedText]:
    from cards.models import Slogan, SloganOption, Translation

    content_type = ContentType.objects.get_for_model(model)
    translations = Translation.objects.filter(content_type=content_type, language=language)
    queryset = model._default_manager.all()
    if ids is not None:
        translations = translations.filter(object_id__in=ids)
        queryset = queryset.filter(pk__in=ids)
    found_texts = {
        (object_id, field_name): (text, state)
        for object_id, field_name, text, state in translations.exclude(text="").values_list(
            "object_id", "field", "text", "state")
    }
    if not found_texts:
        return
    if dismissals is None:
        dismissals = Dismissals.load(language, None if ids is None else {content_type.pk: ids})
    if model is SloganOption:
        queryset = queryset.select_related("slogan").order_by("slogan__key", "position")
    else:
        queryset = queryset.order_by("key")
    for obj in queryset.iterator(chunk_size=2000):
        for name in model.TRANSLATABLE_FIELDS:
            found = found_texts.get((obj.pk, name))
            if found is None:
                continue
            keeps = isinstance(obj, Slogan) and obj.keep_german
            unit = TextUnit(obj, name, language, str(getattr(obj, name)), found[0], found[1],
                            keeps, glossary)
            findings = open_findings(unit, dismissals, content_type.pk)
            label = (f"{obj.slogan.key}:option_{obj.position}" if isinstance(obj, SloganOption)
                     else f"{obj.key}:{name}")
            yield CheckedText(obj, name, language, label, findings)


def finding_counts(game: str, language: str) -> dict[str, int]:
    """check slug -> number of texts with an open finding of that check."""
    counts = dict.fromkeys(REGISTRY, 0)
    for checked in catalogue_findings(game, language):
        for finding in checked.findings:
            counts[finding.check] = counts.get(finding.check, 0) + 1
    return counts


# --- does it fit on the card? ------------------------------------------------------------

FitProblem = Callable[[Any, str, str, str], "str | None"]


def fit_check(fit_problem: FitProblem) -> CheckFunction:
    """A check from the card previews' ``fit_problem(obj, field, language, text)``, which
    measures the text with the card's real print layout (None: it fits)."""

    def check_fits(unit: TextUnit) -> str | None:
        if unit.obj is None or unit.keeps_source:
            return None
        return fit_problem(unit.obj, unit.field, unit.language, unit.text)

    return check_fits


def register_fit_check(fit_problem: FitProblem) -> None:
    register("does-not-fit", "does not fit on the card")(fit_check(fit_problem))
