"""The translation checks' findings, stored and kept up to date as texts change, and with them
the texts' counts per state (:class:`TranslationCount`, the progress page's figures).

What a finding is stays with :mod:`cards.checks` (``catalogue_findings``): this module only
stores what it finds, so the progress page counts findings with one query instead of
running every check over the catalogue on each load.

How they stay up to date:

* Every change a finding depends on writes a :class:`StaleFindings` mark **in the same
  transaction** as the change: a translation, a content object (its German source, "stays
  German", its markets, a symbol's icon), a dismissal, a card deleted or restored (signals,
  :func:`connect_signals`), and the batched imports that bypass signals (they call
  :func:`mark_objects`). A glossary entry marks its whole language (of its game, if it has
  one). A change that is rolled back takes its mark with it.
* :func:`refresh_findings` runs the checks again for what the marks name, from committed
  data, stores the result (and counts again the states of each kind it touched) and deletes
  those marks. It runs after each commit that wrote a
  mark, and before anything reads the stored findings (so a crash between a commit and its
  refresh only delays it).
* Refreshes take one lock (PostgreSQL: an advisory transaction lock; SQLite transactions are
  IMMEDIATE, so writers queue anyway). Two saves at once: each commits its change and its
  mark; the refresh that runs last reads both committed changes, and a mark is only deleted
  by a refresh that read the data after the mark was committed. So no refresh can store
  findings from data older than another refresh's.

``manage.py rebuild_findings`` runs every check afresh and stores the result (after an
upgrade that changes the checks or the card layouts, or a change of KARTOTHEK_LANGUAGES);
the migration that created the tables asks for it once (see :func:`on_post_migrate`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.db.models import Count, Max
from django.db.models.signals import post_delete, post_save, pre_save

if TYPE_CHECKING:
    from cards.models import Translatable

#: The advisory lock key on PostgreSQL (any fixed number; "kartothek findings").
LOCK_KEY = 4_172_001
#: The migrations whose application makes ``migrate`` rebuild the findings afterwards.
REBUILDING_MIGRATIONS = {("cards", "0012_translation_findings"), ("cards", "0015_translation_counts")}


def target_languages() -> list[str]:
    return list(settings.KARTOTHEK_LANGUAGES[1:])


# --- marks -----------------------------------------------------------------------------


def mark_objects(model: type, pks: Iterable[Any]) -> None:
    """The findings of these objects' texts (every field, every language) are stale."""
    from cards.models import StaleFindings, Translatable

    if not (isinstance(model, type) and issubclass(model, Translatable) and model.TRANSLATABLE_FIELDS):
        return
    content_type = ContentType.objects.get_for_model(model)
    rows = [StaleFindings(content_type=content_type, object_id=pk) for pk in set(pks) if pk is not None]
    if rows:
        StaleFindings.objects.bulk_create(rows, batch_size=500)
        _refresh_after_commit()


def mark_language(language: str, game: str = "") -> None:
    """Every text of a language (of one game, if given) may have other findings now."""
    from cards.models import StaleFindings

    StaleFindings.objects.create(language=language, game=game)
    _refresh_after_commit()


def _refresh_after_commit() -> None:
    if not connection.in_atomic_block:
        refresh_findings()
        return
    # One refresh per transaction however many marks it writes (a callback of a rolled-back
    # savepoint is dropped from this list, and so is its mark).
    if not any(func is _refresh_committed for _sids, func, _robust in connection.run_on_commit):
        transaction.on_commit(_refresh_committed, robust=True)


def _refresh_committed() -> None:
    refresh_findings()


# --- refresh ---------------------------------------------------------------------------


def _lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK_KEY])


def refresh_findings() -> int:
    """Bring the stored findings up to date with every committed mark; the number of marks
    handled (0, in one query, when there are none)."""
    from cards.models import StaleFindings

    if not StaleFindings.objects.exists():
        return 0
    with transaction.atomic():
        _lock()
        marks = list(StaleFindings.objects.values_list(
            "pk", "content_type_id", "object_id", "language", "game"))
        languages = target_languages()
        scopes: set[tuple[str, str]] = set()
        objects: dict[int, set[int]] = {}
        for _pk, type_id, object_id, language, game in marks:
            if type_id is not None:
                objects.setdefault(type_id, set()).add(object_id)
            elif language in languages:
                scopes.add((language, game))
        whole = {(lang, game) for lang, game in scopes if game} | {
            (lang, game) for lang, any_game in scopes if not any_game for game in _games()}
        for language, game in sorted(whole):
            _store(game, language, None)
        for type_id, ids in objects.items():
            model = ContentType.objects.get_for_id(type_id).model_class()
            if model is None:
                continue
            for language in languages:
                if (language, model.GAME) not in whole:
                    _store(model.GAME, language, {model: ids})
        pks = [mark[0] for mark in marks]
        for start in range(0, len(pks), 900):
            StaleFindings.objects.filter(pk__in=pks[start:start + 900]).delete()
    return len(marks)


def rebuild_findings() -> int:
    """Run every check over the whole catalogue and store what it finds (the number of
    findings); marks written before are handled by it."""
    from cards.models import StaleFindings, TranslationCount, TranslationFinding

    with transaction.atomic():
        _lock()
        StaleFindings.objects.all().delete()
        TranslationFinding.objects.exclude(language__in=target_languages()).delete()
        TranslationCount.objects.exclude(language__in=target_languages()).delete()
        for game in _games():
            for language in target_languages():
                _store(game, language, None)
        return TranslationFinding.objects.count()


def _games() -> list[str]:
    from cards.models import Game

    return list(Game.values)


def _store(game: str, language: str, only: dict[type, set[int]] | None) -> None:
    """Replace the stored findings of a game and language (or of some objects) with what
    the checks find now."""
    from cards.checks import catalogue_findings
    from cards.models import TranslationFinding, models_of

    stored = TranslationFinding.objects.filter(game=game, language=language)
    if only is None:
        stored.delete()
    else:
        for model, ids in only.items():
            ordered = sorted(ids)
            type_id = ContentType.objects.get_for_model(model).pk
            for start in range(0, len(ordered), 900):
                stored.filter(content_type_id=type_id,
                              object_id__in=ordered[start:start + 900]).delete()
    type_ids = {model: ContentType.objects.get_for_model(model).pk for model in models_of(game)}
    rows = [
        TranslationFinding(content_type_id=type_ids[type(checked.obj)], object_id=checked.obj.pk,
                           field=checked.field, language=language, game=game,
                           check_name=finding.check, message=finding.message)
        for checked in catalogue_findings(game, language, only)
        for finding in checked.findings
    ]
    TranslationFinding.objects.bulk_create(rows, batch_size=500)
    for model in (only or type_ids):
        _store_counts(model, language)


def _store_counts(model: type, language: str) -> None:
    """Replace the stored counts per state of every field of a kind in a language (one
    counting query per field: what the progress page would otherwise run on every load).

    Every state gets a row, 0 too, so each recount writes rows with new, larger ids (ids are
    never reused: AUTOINCREMENT on SQLite, a sequence on PostgreSQL): :func:`translations_stamp`
    relies on it."""
    from cards.models import TranslationCount, TranslationState

    type_id = ContentType.objects.get_for_model(model).pk
    TranslationCount.objects.filter(content_type_id=type_id, language=language).delete()
    rows = []
    for name in model.TRANSLATABLE_FIELDS:
        counted = count_by_state(model, name, language)
        rows += [TranslationCount(content_type_id=type_id, field=name, language=language,
                                  state=state, texts=counted.get(state, 0))
                 for state in TranslationState.values]
    TranslationCount.objects.bulk_create(rows)


# --- reading ---------------------------------------------------------------------------


def stored_finding_counts(languages: list[str]) -> dict[tuple[str, str], dict[str, int]]:
    """(game, language) -> check slug -> texts with an open finding of that check, as
    ``cards.checks.finding_counts`` would count them (one query once up to date)."""
    from cards.checks import REGISTRY
    from cards.models import TranslationFinding

    refresh_findings()
    counts = {(game, language): dict.fromkeys(REGISTRY, 0)
              for game in _games() for language in languages}
    rows = (TranslationFinding.objects.filter(language__in=languages)
            .values_list("game", "language", "check_name").annotate(n=Count("id")).order_by())
    for game, language, check, n in rows:
        if (game, language) in counts:
            counts[(game, language)][check] = n
    return counts


def stored_counts(game: str, language: str) -> dict[tuple[int, str], dict[str, int]]:
    """(content type id, field) -> state -> filled texts, for the kinds of a game, as
    ``count_by_state`` would count them (one query once up to date)."""
    from cards.models import TranslationCount, models_of

    refresh_findings()
    type_ids = [ContentType.objects.get_for_model(model).pk for model in models_of(game)]
    counts: dict[tuple[int, str], dict[str, int]] = {}
    rows = TranslationCount.objects.filter(content_type_id__in=type_ids, language=language)
    for type_id, name, state, n in rows.values_list("content_type_id", "field", "state", "texts"):
        counts.setdefault((type_id, name), {})[state] = n
    return counts


def translations_stamp(language: str) -> int | None:
    """A number that grows whenever a translation of ``language`` (or anything a mark names)
    has changed since it was last read: the largest id of its stored counts, which every
    refresh writes anew for what it touched. ``None`` for a language nothing is stored for
    (the source language). One small query once up to date, whatever the catalogue's size."""
    from cards.models import TranslationCount

    if language not in target_languages():
        return None
    refresh_findings()
    return TranslationCount.objects.filter(language=language).aggregate(top=Max("id"))["top"]


# --- what marks them stale -----------------------------------------------------------------


def _object_changed(sender: type, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    mark_objects(sender, [instance.pk])


def _text_changed(sender: type, instance: Any, **kwargs: Any) -> None:
    """A translation or a dismissal: the findings of the object it belongs to."""
    model = ContentType.objects.get_for_id(instance.content_type_id).model_class()
    if model is not None:
        mark_objects(model, [instance.object_id])


def _glossary_before(sender: type, instance: Any, **kwargs: Any) -> None:
    instance._stored_scope = None
    if instance.pk:
        instance._stored_scope = type(instance).objects.filter(pk=instance.pk).values_list(
            "language", "game").first()


def _glossary_changed(sender: type, instance: Any, **kwargs: Any) -> None:
    scopes = {(instance.language, instance.game), getattr(instance, "_stored_scope", None)}
    for scope in scopes - {None}:
        mark_language(*scope)  # type: ignore[misc]


def connect_signals() -> None:
    from cards.models import TRANSLATABLE_MODELS, CheckDismissal, GlossaryTerm, Translation

    for model in TRANSLATABLE_MODELS:
        for signal in (post_save, post_delete):
            signal.connect(_object_changed, sender=model, dispatch_uid=f"findings-{model.__name__}")
    for model in (Translation, CheckDismissal):
        for signal in (post_save, post_delete):
            signal.connect(_text_changed, sender=model, dispatch_uid=f"findings-{model.__name__}")
    pre_save.connect(_glossary_before, sender=GlossaryTerm, dispatch_uid="findings-glossary")
    for signal in (post_save, post_delete):
        signal.connect(_glossary_changed, sender=GlossaryTerm, dispatch_uid="findings-glossary")


def on_post_migrate(sender: Any, plan: Any = None, **kwargs: Any) -> None:
    """Rebuild the findings when ``migrate`` applied a migration that asks for it (the one
    that created the tables: an existing catalogue gets its findings), with every migration
    applied, so the checks read the models as the code has them."""
    applied = {(m.app_label, m.name) for m, backwards in (plan or ()) if not backwards}
    if applied & REBUILDING_MIGRATIONS:
        rebuild_findings()


def count_by_state(model: type[Translatable], name: str, language: str) -> dict[str, int]:
    """The filled texts (not empty) of one field of a kind in each state, counted in the
    translations (a slogan kept German is not counted: it is "untranslated")."""
    from cards.models import Slogan, Translation

    content_type = ContentType.objects.get_for_model(model)
    rows = Translation.objects.filter(content_type=content_type, field=name, language=language)
    if model is Slogan and name == "text":
        rows = rows.filter(object_id__in=Slogan.objects.filter(keep_german=False).values("pk"))
    by_state = rows.exclude(text="").values("state").annotate(n=Count("id")).order_by()
    return {row["state"]: row["n"] for row in by_state}
