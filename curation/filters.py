"""List filters whose choices read alike on every list: in sentence case ("First slogan",
"Move ±n spaces", "Lobby"), languages by name with their code ("English (en)").

Models keep their choice labels as the rules word them (lowercase, inside sentences); only
the filters' lists capitalise them. ``tests/test_admin_filters.py`` holds every list's filters
to this."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.utils.translation import get_language_info


def sentence_case(label: Any) -> str:
    text = str(label)
    return text[:1].upper() + text[1:]


def language_label(code: str) -> str:
    """ "English (en)"; a code Django does not know stays as it is."""
    try:
        name = get_language_info(code)["name"]
    except KeyError:
        return code
    return f"{name} ({code})"


def market_label(code: str) -> str:
    """ "English, UK only (en-GB)": a market code as the filters name it (``describe_market``
    says what the code covers)."""
    from cards.models import describe_market

    language, _, _region = code.partition("-")
    named = language_label(language)
    if named == language:
        return describe_market(code)
    covers = describe_market(code).removeprefix(code).strip(" ()")
    name = named.removesuffix(f" ({language})")
    return f"{name}, {covers} ({code})" if covers else f"{name} ({code})"


class SentenceChoicesFilter(admin.ChoicesFieldListFilter):
    """A field's choices, each label starting with a capital."""

    def choices(self, changelist: Any):  # type: ignore[no-untyped-def]
        for choice in super().choices(changelist):
            yield {**choice, "display": sentence_case(choice["display"])}


class LanguageFilter(admin.SimpleListFilter):
    """The configured languages by name ("German (de)", "English (en)"). Subclassed per field
    (``language_filter``)."""

    title = "language"
    parameter_name = "language__exact"  # the links the field's own filter made still work
    field_name = "language"
    targets_only = False  # translations and glossary terms exist only in target languages

    def lookups(self, request: Any, model_admin: Any) -> list[tuple[str, str]]:
        codes = list(settings.KARTOTHEK_LANGUAGES)
        return [(code, language_label(code)) for code in (codes[1:] if self.targets_only
                                                          else codes)]

    def queryset(self, request: Any, queryset: Any) -> Any:
        value = self.value()
        return queryset.filter(**{self.field_name: value}) if value else queryset


def language_filter(*, targets_only: bool = False) -> type[LanguageFilter]:
    return type("TargetLanguageFilter" if targets_only else "LanguageFilter", (LanguageFilter,),
                {"targets_only": targets_only})
