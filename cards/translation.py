"""The life of a translation: made from a source text, outdated when the source changes.

When a source text changes, its translations follow it (``source_changed`` and
``follow_source``, kept beside the model in cards/models/base.py, which calls them on save).
The states follow Weblate: a missing translation is *empty*; a translator's work is
*translated*; a reviewer's is *approved*; a translation whose source changed *needs editing*.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType

from cards.models import EMPTY, Translatable, Translation, TranslationState
from cards.models.base import follow_source

#: Who may set a translation to *approved* (the README's roles table: Curators, not Translators).
APPROVE_PERMISSION = "cards.approve_translation"


def reviewed_state(user: Any, stored: Translation | None, text: str, state: str, *,
                   chosen: bool) -> tuple[str, str]:
    """The state a write by ``user`` gives a translation, and why it differs from ``state``.

    Review holds, as in Weblate with reviews on: only a reviewer (``APPROVE_PERMISSION``) sets
    *approved*, and a changed text whose state merely stayed *approved* (``chosen`` is False:
    nobody picked the state in this save) is *translated* again until a reviewer approves the
    new text. A reviewer who picks *approved* (or presses "Approve this page") approves.
    A stored approved text that is saved unchanged stays approved. The note is empty when the
    state is the one asked for.
    """
    if state != TranslationState.APPROVED:
        return state, ""
    was_approved = stored is not None and stored.state == TranslationState.APPROVED
    if was_approved and stored is not None and stored.text.strip() == text.strip():
        return state, ""
    if not user.has_perm(APPROVE_PERMISSION):
        if was_approved:
            return TranslationState.TRANSLATED, (
                "An approved text was changed: it is translated again until a reviewer approves it.")
        return TranslationState.TRANSLATED, (
            "Saved as translated: approving needs the reviewer's permission (Curators).")
    if was_approved and not chosen:
        return TranslationState.TRANSLATED, (
            "An approved text was changed: it is translated again until a reviewer approves it.")
    return state, ""


def target_languages() -> list[str]:
    return list(settings.KARTOTHEK_LANGUAGES[1:])


def save_translation(
    obj: Translatable,
    field: str,
    language: str,
    text: str,
    state: str = TranslationState.TRANSLATED,
    *,
    expected_version: int | None = None,
) -> Translation:
    """Create or update a translation after checking it (see ``Translation.save``).

    With ``expected_version`` (0: no translation yet) the write happens only if the stored
    translation is still at that version; otherwise ``EditConflict`` is raised.
    """
    row = Translation.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=obj.pk,
        field=field,
        language=language,
    ).first() or Translation(content_object=obj, field=field, language=language)
    row.text = text
    row.state = state
    row.full_clean()
    if expected_version is not None:
        row._expected_version = expected_version
    row.save()
    return row


def state_of(obj: Translatable, field: str, language: str) -> str:
    row = obj.translation(field, language)
    return row.effective_state if row is not None else EMPTY


def sources_changed_in_bulk(changes: list[tuple[Translatable, dict[str, tuple[str, str]]]]) -> None:
    """``source_changed`` for many objects at once (bulk imports): a few queries in all."""
    if not changes:
        return
    by_type: dict[int, dict[int, dict[str, str]]] = {}
    for obj, changed in changes:
        content_type = ContentType.objects.get_for_model(type(obj))
        by_type.setdefault(content_type.pk, {})[obj.pk] = {f: new for f, (_old, new) in changed.items()}
        obj._loaded_sources = {name: getattr(obj, name) for name in obj.TRANSLATABLE_FIELDS}
    touched = []
    for type_id, objects in by_type.items():
        ids = list(objects)
        for chunk in (ids[start:start + 900] for start in range(0, len(ids), 900)):
            rows = Translation.objects.filter(content_type_id=type_id, object_id__in=chunk)
            for row in rows:
                new_source = objects[row.object_id].get(row.field)
                if new_source is not None and follow_source(row, new_source):
                    touched.append(row)
    if touched:
        from simple_history.utils import bulk_update_with_history

        from cards.concurrency import bump_versions

        bump_versions(Translation, touched)
        bulk_update_with_history(touched, Translation, ["state", "state_before_change"],
                                 batch_size=500)
