"""gettext PO files per game and language, for translators who work in Poedit, Weblate & co.

Export (:func:`export_po`)
    One entry per translatable text of the game, in a fixed order (content types in catalogue
    order, then by key, then field; a slogan's answer options follow its text):

    - ``msgctxt`` is ``"<key>:<field>"``; a slogan's answer options are the fields
      ``option_1`` … ``option_4`` of the slogan's key (as in translation spreadsheets). Keys
      are unique per content type only, so when two content types of one game share a key
      and field (a Sign symbol and a Sign colour both called ``rot``), both entries are
      written as ``"<type>/<key>:<field>"`` (``sign_symbols/rot:name``); import accepts this
      form always.
    - ``msgid`` is the current German source, ``msgstr`` the translation (``""`` when there is
      none); a translation that needs editing is flagged ``fuzzy`` and, when its source
      changed, carries the source it was made from as ``#| msgid``.
    - a translator comment names the content type; the header gives ``Project-Id-Version:
      Kartothek <game>``, ``Language`` and UTF-8. No dates: the same content gives the same file.
    - texts that deliberately stay German (a slogan marked "stays German") are left out.
    - a translation that a translation check questions (``cards/checks.py``; not dismissed
      by a curator) carries the flag ``kartothek-check-<check>`` (``#, kartothek-check-
      placeholder``), and its message as a translator comment line (``# check placeholder:
      The German has “…” …``), so translators see it in their tool.

Import (:func:`import_po`), entry by entry
    - empty ``msgstr``: left alone (an existing translation is not removed);
    - ``fuzzy``: saved as *needs editing*;
    - ``msgid`` differs from today's German source (the file is older than a source change):
      saved as *needs editing*, remembering the file's ``msgid`` as the source it was made
      from, and reported; but if the stored translation was made from today's source, the
      older entry does not replace it (a conflict);
    - otherwise *translated*; removing the fuzzy flag of an unchanged text confirms a
      translation that needed editing;
    - an *approved* translation is never changed: the same text is "unchanged", a different
      text is a conflict naming the key;
    - an unknown or ambiguous ``msgctxt``, a missing one, a plural entry, a text the
      translation rules reject, a file for another language or game: errors.
    - the ``kartothek-check-…`` flags and comments are ignored (the checks run again on what
      is stored), so a file exported and imported unchanged reports every entry unchanged.

    Transactions: **errors are all or nothing** (any error and nothing is saved, so the
    translator can fix the file and import it again), **conflicts are not**: a conflict
    keeps the stored translation, is reported, and the rest of the file is saved. A conflict
    is an editorial situation (someone approved or re-translated the text meanwhile), not a
    broken file, and should not hold back the rest of the translator's work.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

import polib
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import transaction

from cards.checks import Dismissals, TextUnit, load_glossary, open_findings
from cards.columns import TYPE_LABELS
from cards.models import (
    TRANSLATABLE_MODELS,
    Content,
    Game,
    Slogan,
    SloganOption,
    Translatable,
    Translation,
    TranslationState,
    translation_max_length,
)

#: The flag of an entry a translation check questions: ``kartothek-check-placeholder``.
CHECK_FLAG_PREFIX = "kartothek-check-"
OPTION_FIELDS = ("option_1", "option_2", "option_3", "option_4")
_CONTEXT = re.compile(r"(?:(?P<type>[a-z0-9_]+)/)?(?P<key>[^:/\s]+):(?P<field>[a-z0-9_]+)")


class PoProblem(ValueError):
    """The game or language asked for does not exist."""


@dataclass
class PoReport:
    """What an import did (or, for a dry run or a file with errors, would have done)."""

    updated: int = 0
    unchanged: int = 0
    skipped: int = 0  # empty msgstr, or a text that stays German
    conflicts: int = 0
    errors: int = 0
    messages: list[str] = field(default_factory=list)
    dry_run: bool = False
    saved: bool = False  # whether the changes were written to the database

    def error(self, context: str, text: str) -> None:
        self.errors += 1
        self.messages.append(f"error: {context}: {text}" if context else f"error: {text}")

    def conflict(self, context: str, text: str) -> None:
        self.conflicts += 1
        self.messages.append(f"conflict: {context}: {text}")

    def note(self, context: str, text: str) -> None:
        self.messages.append(f"note: {context}: {text}")

    def summary(self) -> str:
        line = (
            f"{self.updated} updated, {self.unchanged} unchanged, {self.skipped} left alone, "
            f"{_count(self.conflicts, 'conflict')}, {_count(self.errors, 'error')}"
        )
        if self.errors:
            return line + "; nothing was saved."
        if self.dry_run:
            return line + " (dry run: nothing was saved)."
        return line + "."


class _Text(NamedTuple):
    """One translatable text of a game: where it is and how PO files address it."""

    type_label: str  # e.g. "concepts"; slogans and their options: "slogans"
    key: str
    field: str  # as PO files name it: "text", "name", "option_1" …
    obj: Translatable
    model_field: str  # the field on ``obj`` ("text" for an option)
    comment: str


def _type_label(model: type[Content]) -> str:
    return TYPE_LABELS[model]


def _check(game: str, language: str) -> None:
    if game not in Game.values:
        raise PoProblem(f"unknown game “{game}”; use one of: {', '.join(Game.values)}")
    targets = list(settings.KARTOTHEK_LANGUAGES[1:])
    if language == settings.KARTOTHEK_LANGUAGES[0]:
        raise PoProblem(f"“{language}” is the source language; translate into: {', '.join(targets)}")
    if language not in targets:
        raise PoProblem(f"“{language}” is not a target language; configured: {', '.join(targets)}")


def _keeps_source(obj: Translatable, field_name: str) -> bool:
    keeps = getattr(obj, "keeps_source", None)
    if keeps is not None:
        return bool(keeps(field_name))
    return isinstance(obj, Slogan) and field_name == "text" and obj.keep_german


def _texts(game: str) -> list[_Text]:
    """Every translatable text of a game, translations prefetched, in export order."""
    texts: list[_Text] = []
    for model in TRANSLATABLE_MODELS:
        if model is SloganOption or game != model.GAME:
            continue
        label = _type_label(model)  # type: ignore[arg-type]
        queryset = model._default_manager.prefetch_related("translations").order_by("key")
        if model is Slogan:
            queryset = queryset.prefetch_related("options__translations")
        for obj in queryset:
            for name in model.TRANSLATABLE_FIELDS:
                texts.append(_Text(label, obj.key, name, obj, name, str(model._meta.verbose_name)))
            if model is Slogan:
                options = sorted(obj.options.all(), key=lambda o: o.position)
                for option in options:
                    option.slogan = obj  # the option's key is its slogan's
                    texts.append(
                        _Text(
                            label,
                            obj.key,
                            f"option_{option.position}",
                            option,
                            "text",
                            f"{SloganOption._meta.verbose_name} of a slogan",
                        )
                    )
    return texts


def _contexts(texts: list[_Text]) -> dict[str, _Text]:
    """msgctxt -> text; ``key:field`` where that is unique in the game, else qualified."""
    counts = Counter(f"{t.key}:{t.field}" for t in texts)
    contexts: dict[str, _Text] = {}
    for t in texts:
        short = f"{t.key}:{t.field}"
        contexts[short if counts[short] == 1 else f"{t.type_label}/{short}"] = t
    return contexts


# --- export ---------------------------------------------------------------------------------


def export_po(game: str, language: str) -> str:
    """The PO file of a game's texts in one language (see the module docstring)."""
    _check(game, language)
    po = polib.POFile(wrapwidth=78)
    po.header = f"Kartothek: {Game(game).label}, German → {language}."
    po.metadata = {
        "Project-Id-Version": f"Kartothek {game}",
        "Language": language,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
    }
    glossary = load_glossary(language)[game]
    dismissals = Dismissals.load(language)
    for context, text in _contexts(_texts(game)).items():
        source = getattr(text.obj, text.model_field)
        if not source or _keeps_source(text.obj, text.model_field):
            continue
        row = text.obj.translation(text.model_field, language)
        translated = row.text if row is not None and row.text.strip() else ""
        entry = polib.POEntry(msgctxt=context, msgid=source, msgstr=translated, tcomment=text.comment)
        if translated and row is not None and row.state == TranslationState.NEEDS_EDITING:
            entry.flags.append("fuzzy")
            if row.source_text and row.source_text != source:
                entry.previous_msgid = row.source_text
        if translated and row is not None:
            unit = TextUnit(text.obj, text.model_field, language, source, translated, row.state,
                            False, glossary)
            type_id = ContentType.objects.get_for_model(type(text.obj)).pk
            for finding in open_findings(unit, dismissals, type_id):
                entry.flags.append(f"{CHECK_FLAG_PREFIX}{finding.check}")
                entry.tcomment += f"\ncheck {finding.check}: {finding.message}"
        po.append(entry)
    return str(po) + "\n"


# --- import ---------------------------------------------------------------------------------


class _Rollback(Exception):
    pass


def _resolve(context: str, contexts: dict[str, _Text], texts: list[_Text]) -> _Text | str:
    """The text a msgctxt addresses, or a message saying why there is none."""
    if context in contexts:
        return contexts[context]
    match = _CONTEXT.fullmatch(context)
    if match is None:
        return "not a Kartothek msgctxt (expected “key:field”, like “oma:text”)"
    found = [
        t
        for t in texts
        if t.key == match["key"]
        and t.field == match["field"]
        and match["type"] in (None, t.type_label)
    ]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        return "more than one text has this key and field; write it as " + " or ".join(
            f"“{t.type_label}/{t.key}:{t.field}”" for t in found
        )
    keyed = [t for t in texts if t.key == match["key"] and match["type"] in (None, t.type_label)]
    if keyed:
        fields = sorted({t.field for t in keyed})
        return f"“{match['key']}” has no translatable field “{match['field']}” (fields: {', '.join(fields)})"
    return f"no text of this game has the key “{match['key']}”"


def _game_label(game: str) -> str:
    return str(Game(game).label)


def _file_game(po: polib.POFile, entries: list[polib.POEntry], game: str) -> str | None:
    """The game a file holds the texts of, when that is another game than ``game``: from its
    ``Project-Id-Version`` (“Kartothek sauschwer”), or, where a tool rewrote that header,
    from its entries (most of them address another game's texts and few this game's)."""
    project = (po.metadata.get("Project-Id-Version") or "").strip()
    if project.startswith("Kartothek "):
        file_game = project.removeprefix("Kartothek ").strip()
        if file_game in Game.values:
            return file_game if file_game != game else None
    sample = [e.msgctxt for e in entries[:200] if e.msgctxt]
    if not sample:
        return None

    def hits(other: str) -> int:
        contexts = _contexts(_texts(other))
        return sum(1 for c in sample if c in contexts)

    if hits(game) * 2 >= len(sample):
        return None
    best = max((g for g in Game.values if g != game), key=hits)
    return best if hits(best) * 2 > len(sample) else None


def _check_header(po: polib.POFile, entries: list[polib.POEntry], game: str, language: str,
                  report: PoReport) -> bool:
    """Whether the file is for this game and language; if not, one error says what it is
    for (instead of an error for every entry)."""
    header_language = (po.metadata.get("Language") or "").strip()
    primary = header_language.replace("-", "_").split("_")[0].lower()
    if primary and primary != language.lower():
        report.error("", f"the file is for the language “{header_language}”, not “{language}”")
    file_game = _file_game(po, entries, game)
    if file_game is not None:
        here = _game_label(game)
        row = f"the row of {here}" if "'" in here else f"{here}'s row"
        report.error("", f"this file is for {_game_label(file_game)}, you uploaded it on {row}: "
                         f"upload it on the row of {_game_label(file_game)} ({language})")
        return False
    return True


def import_po(text: str, game: str, language: str, *, dry_run: bool = False) -> PoReport:
    """Read a translated PO file back in (see the module docstring for the rules)."""
    _check(game, language)
    report = PoReport(dry_run=dry_run)
    try:
        # polib reads a *path* when given one; a newline makes sure ``text`` is read as content.
        po = polib.pofile(text if "\n" in text else text + "\n")
    except (OSError, ValueError) as exc:
        report.error("", f"the file cannot be read as a PO file ({exc})")
        return report
    entries = [e for e in po if not e.obsolete]
    if not entries:
        report.error("", "the file holds no entries")
        return report
    if not _check_header(po, entries, game, language, report):
        return report  # a file for another game: one error, not one per entry
    try:
        with transaction.atomic():
            texts = _texts(game)
            contexts = _contexts(texts)
            seen: set[tuple[str, str]] = set()
            for entry in entries:
                _import_entry(entry, language, texts, contexts, seen, report)
            if report.errors or dry_run:
                raise _Rollback
            report.saved = True
    except _Rollback:
        pass
    return report


def _import_entry(
    entry: polib.POEntry,
    language: str,
    texts: list[_Text],
    contexts: dict[str, _Text],
    seen: set[tuple[str, str]],
    report: PoReport,
) -> None:
    context = entry.msgctxt or ""
    if not context:
        report.error(f"msgid “{entry.msgid[:40]}”", "the entry has no msgctxt (“key:field”)")
        return
    if entry.msgid_plural:
        report.error(context, "plural entries are not used by Kartothek")
        return
    target = _resolve(context, contexts, texts)
    if isinstance(target, str):
        report.error(context, f"unknown msgctxt: {target}")
        return
    address = (target.type_label, f"{target.key}:{target.field}")
    if address in seen:
        report.error(context, "this text appears twice in the file")
        return
    seen.add(address)

    obj, model_field = target.obj, target.model_field
    if _keeps_source(obj, model_field):
        report.skipped += 1
        report.note(context, "this text stays German; the entry was ignored")
        return
    if not entry.msgstr.strip():
        report.skipped += 1
        return
    limit = translation_max_length(type(obj), model_field)
    if limit is not None and len(entry.msgstr) > limit:
        # Checked before anything is compared or echoed: the report never repeats a huge text.
        report.error(context, f"the translation is {len(entry.msgstr):,} characters long; "
                              f"this text allows at most {limit} (as its German source)")
        return
    current = getattr(obj, model_field)
    stale = entry.msgid != current
    state = TranslationState.NEEDS_EDITING if entry.fuzzy or stale else TranslationState.TRANSLATED
    row = obj.translation(model_field, language)
    has_text = row is not None and bool(row.text.strip())

    if row is not None and has_text and row.state == TranslationState.APPROVED:
        if row.text == entry.msgstr:
            report.unchanged += 1
        else:
            report.conflict(
                context,
                f"the approved translation “{row.text}” was kept; the file has “{entry.msgstr}”",
            )
        return
    if stale:
        if row is not None and has_text and row.text != entry.msgstr and not row.is_outdated:
            report.conflict(
                context,
                "the file was made from an older German text "
                f"(“{entry.msgid}”, now “{current}”); the translation “{row.text}”, made from "
                "the current text, was kept",
            )
            return
        report.note(
            context,
            f"the German text changed since the file was made (“{entry.msgid}”, now "
            f"“{current}”): the translation needs editing",
        )
    if row is not None and row.text == entry.msgstr and row.state == state:
        report.unchanged += 1
        return

    if row is None:
        row = Translation(content_object=obj, field=model_field, language=language)
    if row.text != entry.msgstr:
        row.state_before_change = ""  # a new text: reverting the source no longer restores it
    row.text = entry.msgstr
    row.state = state
    if state == TranslationState.NEEDS_EDITING and stale:
        row.source_text = entry.msgid  # made from the file's source; the next export shows it
    try:
        row.full_clean()
    except ValidationError as exc:
        report.error(context, " ".join(exc.messages))
        return
    row.save()
    report.updated += 1


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
