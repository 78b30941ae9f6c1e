"""History of the content (django-simple-history): deleted cards and bringing them back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import transaction

from cards.models import (
    CONTENT_MODELS,
    Content,
    Slogan,
    SloganCard,
    SloganOption,
    Translatable,
    Translation,
)

# Rows deleted with a card (its translations, a slogan's options) are recorded a moment before
# the card's own deletion record.
_SLACK = timedelta(seconds=5)


@dataclass(frozen=True)
class DeletedCard:
    model: type[Content]
    pk: int
    key: str
    label: str
    deleted_at: datetime
    deleted_by: str
    restore_id: int | None = None  # the history record to revert to: the last one before deletion
    restore_version: int | None = None
    restore_date: datetime | None = None
    with_card: str | None = None  # a slogan deleted with its card: the card's key (restore that)


def deleted_cards(limit: int = 200) -> list[DeletedCard]:
    """Cards whose last historical record is a deletion, newest first."""
    found: list[DeletedCard] = []
    for model in CONTENT_MODELS:
        history = model.history.model  # type: ignore[attr-defined]
        existing = model._default_manager.values("pk")
        rows = (
            history.objects.filter(history_type="-")
            .exclude(id__in=existing)
            .select_related("history_user")
            .order_by("-history_date")[:limit]
        )
        seen: set[int] = set()
        deleted = []
        for row in rows:
            if row.id in seen:
                continue
            seen.add(row.id)
            deleted.append(row)
        # The version to bring back: each card's last record before its deletion (one query).
        last: dict[int, Any] = {}
        for before in (history.objects.filter(id__in=seen).exclude(history_type="-")
                       .order_by("id", "-history_date", "-history_id")
                       .only("id", "history_id", "history_date", "version")):
            last.setdefault(before.id, before)
        cards_gone: dict[int, str] = {}
        if model is Slogan:
            card_ids = {row.card_id for row in deleted}
            alive = set(SloganCard.objects.filter(pk__in=card_ids).values_list("pk", flat=True))
            for card in SloganCard.history.filter(id__in=card_ids - alive).order_by("history_date"):
                cards_gone[card.id] = card.key
        for row in deleted:
            before = last.get(row.id)
            found.append(
                DeletedCard(
                    model=model,
                    pk=row.id,
                    key=row.key,
                    label=str(row.instance),
                    deleted_at=row.history_date,
                    deleted_by=str(row.history_user or "an import or command"),
                    restore_id=before.history_id if before is not None else row.history_id,
                    restore_version=(before or row).version,
                    restore_date=(before or row).history_date,
                    with_card=cards_gone.get(row.card_id) if model is Slogan else None,
                )
            )
    found.sort(key=lambda card: card.deleted_at, reverse=True)
    return found[:limit]


def _restore_translations(obj: Translatable, deleted_since: datetime) -> int:
    """Bring back the translations that were deleted with obj."""
    history = Translation.history.model  # type: ignore[attr-defined]
    content_type = ContentType.objects.get_for_model(type(obj))
    restored = 0
    rows = history.objects.filter(
        content_type_id=content_type.pk, object_id=obj.pk, history_type="-",
        history_date__gte=deleted_since,
    )
    for row in rows:
        if Translation.objects.filter(pk=row.id).exists():
            continue
        translation = row.instance
        translation.save()
        restored += 1
    return restored


@transaction.atomic
def restore_related(obj: Content, deleted_at: datetime) -> int:
    """After a deleted card is saved again, restore what was deleted together with it."""
    restored = _restore_translations(obj, deleted_at)
    if isinstance(obj, SloganCard):
        # A card is one unit: its slogans (with their options) come back with it.
        restored += _restore_children(Slogan, {"card_id": obj.pk}, deleted_at, restore_related)
    if isinstance(obj, Slogan):
        restored += _restore_children(SloganOption, {"slogan_id": obj.pk}, deleted_at,
                                      _restore_translations)
    return restored


def _restore_children(model: Any, link: dict[str, int], deleted_at: datetime,
                      then: Callable[[Any, datetime], int]) -> int:
    """Save again the rows of ``model`` deleted with their parent (``link``: the parent's
    key), then what ``then`` restores of each; returns how many rows came back."""
    restored = 0
    for row in model.history.model.objects.filter(**link, history_type="-",
                                                  history_date__gte=deleted_at):
        if model.objects.filter(pk=row.id).exists():
            continue
        child = row.instance
        child.save()
        restored += 1 + then(child, deleted_at)
    return restored


def deletion_time(obj: Content) -> datetime | None:
    """When obj was deleted, if its last historical record is a deletion."""
    last = obj.history.order_by("-history_date").first()  # type: ignore[attr-defined]
    if last is not None and last.history_type == "-":
        return last.history_date - _SLACK
    return None
