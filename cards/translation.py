"""The life of a translation: made from a source text, outdated when the source changes.

The states follow Weblate: a missing translation is *empty*; a translator's work is
*translated*; a reviewer's is *approved*; a translation whose source changed *needs editing*.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.models import ContentType

from cards.models import EMPTY, Translatable, Translation, TranslationState


def target_languages() -> list[str]:
    return list(settings.KARTOTHEK_LANGUAGES[1:])


def source_changed(obj: Translatable, field: str, new_source: str) -> None:
    """Drop the translations of a changed source text to *needs editing*.

    A translation keeps the source it was made from in ``source_text``; when the source is
    changed back to exactly that text, the translation gets back the state it had.
    """
    rows = Translation.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=obj.pk,
        field=field,
    )
    for row in rows:
        if row.source_text == new_source:
            if row.state == TranslationState.NEEDS_EDITING and row.state_before_change:
                row.state = row.state_before_change
                row.state_before_change = ""
                row.save(update_fields=["state", "state_before_change", "updated_at"])
        elif row.state != TranslationState.NEEDS_EDITING:
            row.state_before_change = row.state
            row.state = TranslationState.NEEDS_EDITING
            row.save(update_fields=["state", "state_before_change", "updated_at"])


def save_translation(
    obj: Translatable,
    field: str,
    language: str,
    text: str,
    state: str = TranslationState.TRANSLATED,
) -> Translation:
    """Create or update a translation after checking it (see ``Translation.save``)."""
    row = Translation.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=obj.pk,
        field=field,
        language=language,
    ).first() or Translation(content_object=obj, field=field, language=language)
    row.text = text
    row.state = state
    row.full_clean()
    row.save()
    return row


def state_of(obj: Translatable, field: str, language: str) -> str:
    row = obj.translation(field, language)
    return row.effective_state if row is not None else EMPTY
