"""A key another card already has: the form names that card (and its own card, for a slogan),
instead of Django's "Slogan with this Key already exists."."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import Truncator


def taken_key_message(model: Any, key: str) -> str | None:
    """What to tell a curator whose new card's key is taken; None if it is free after all."""
    other = model._default_manager.filter(key=key).first()
    if other is None:
        return None
    label = model._meta.verbose_name
    what = f"The {label} “{Truncator(str(other)).chars(60)}”"
    card = getattr(other, "card", None)
    if card is not None:
        what += f" on card {card.key}"
    return (f"{what} already has the key {key}. Change the German text or type another key "
            f"(a key is the card's name in imports and packs, so it cannot be shared).")


class TakenKeyFormMixin:
    """For a ModelForm with a ``key``: a taken key's error names the card that holds it."""

    def validate_unique(self) -> None:
        super().validate_unique()  # type: ignore[misc]
        errors = self._errors.get("key") if self._errors else None  # type: ignore[attr-defined]
        if not errors:
            return
        codes = [getattr(e, "code", None) for e in errors.as_data()]
        key = getattr(self.instance, "key", None)  # type: ignore[attr-defined]  # (error: not in cleaned_data)
        if "unique" in codes and key:
            message = taken_key_message(self._meta.model, key)  # type: ignore[attr-defined]
            if message is not None:
                self._errors["key"] = self.error_class([message])  # type: ignore[attr-defined]


def with_taken_key_message(form_class: type[forms.BaseForm]) -> type[forms.BaseForm]:
    if issubclass(form_class, TakenKeyFormMixin):
        return form_class
    return type(form_class.__name__, (TakenKeyFormMixin, form_class), {"__module__": __name__})
