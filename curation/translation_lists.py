"""What the Translations list shows of a translation's card: its kind, named as the admin
index names it ("concept card", not "Cards | concept card"), as a short column and a filter."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.contenttypes.models import ContentType

from cards.text import whole_number


def kind_name(content_type: ContentType | None) -> str:
    model = content_type.model_class() if content_type is not None else None
    return str(model._meta.verbose_name) if model is not None else "—"


def _sentence(label: str) -> str:
    return label[:1].upper() + label[1:]  # "Spießer Alfons card", its name kept


class CardKindFilter(admin.SimpleListFilter):
    """The translations of one kind of card, in sentence case like the other filters."""

    title = "kind of card"
    parameter_name = "kind"

    def lookups(self, request: Any, model_admin: Any) -> list[tuple[str, str]]:
        from cards.models import TRANSLATABLE_MODELS

        types = ContentType.objects.get_for_models(*TRANSLATABLE_MODELS)
        return [(str(types[model].pk), _sentence(str(model._meta.verbose_name)))
                for model in TRANSLATABLE_MODELS]

    def queryset(self, request: Any, queryset: Any) -> Any:
        value = self.value()
        if not value:
            return queryset
        number = whole_number(value)
        if number is None:
            return queryset.none()
        return queryset.filter(content_type_id=number)
