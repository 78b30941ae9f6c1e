"""The Translations list's export: its rows as the catalogue's translation files (one kind of
card per file: key, field, language, text, state), as filtered, or the selected ones.

A file per kind because a translation file names its card by key, and keys are unique only
within a kind; the export page offers the kinds to choose from. Importing such a file is the
catalogue's ``import_catalogue`` or a PO upload on the progress page (both keep review: only
a reviewer's import approves)."""

from __future__ import annotations

from typing import Any

from django.contrib.contenttypes.models import ContentType

from cards.models import Slogan, SloganOption
from cards.resources import RESOURCES, TranslationResource


class TranslationFileResource(TranslationResource):
    """One kind's translations, from whatever the Translations list passes (other kinds left
    out, so a filtered or mixed selection still makes a file that imports again)."""

    def export(self, queryset: Any = None, **kwargs: Any):  # type: ignore[no-untyped-def]
        if queryset is not None and hasattr(queryset, "filter"):
            models = [self.content_model] + ([SloganOption] if self.content_model is Slogan
                                              else [])
            types = ContentType.objects.get_for_models(*models).values()
            queryset = queryset.filter(content_type__in=types).prefetch_related("content_object")
        return super().export(queryset, **kwargs)


def translation_file_resources() -> list[type[TranslationFileResource]]:
    """A resource per kind of card that has translations, named for the export page."""
    found = []
    for model in RESOURCES:
        if not getattr(model, "TRANSLATABLE_FIELDS", ()):
            continue
        name = f"{str(model._meta.verbose_name)[:1].upper()}{str(model._meta.verbose_name)[1:]} translations"
        meta = type("Meta", (TranslationResource.Meta,), {"name": name})
        found.append(type(f"{model.__name__}TranslationFileResource", (TranslationFileResource,),
                          {"content_model": model, "Meta": meta}))
    return found
