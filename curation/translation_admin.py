"""The Translations list: every translation with its card's kind and game, filters by state
and language, its file import and export, and the glossary's actions (approve).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.contenttypes.models import ContentType
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from import_export.admin import ImportExportActionModelAdmin
from simple_history.admin import SimpleHistoryAdmin

from cards.concurrency import VersionedAdminMixin
from cards.models import (
    Game,
    Translation,
)
from curation.content_admin import review_translation, state_badge
from curation.filters import language_filter
from curation.safe_import import SafeImportMixin
from curation.translation_files import (
    FileNamedTranslationResource,
    review_notes,
    translation_file_resources,
)
from curation.translation_lists import CardKindFilter, kind_name
from curation.write_checks import WriteChecks

# --- translations ------------------------------------------------------------------------


class GameFilter(admin.SimpleListFilter):
    title = "game"
    parameter_name = "game"

    def lookups(self, request, model_admin):  # type: ignore[no-untyped-def]
        return Game.choices

    def queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        if not self.value():
            return queryset
        from cards.models import TRANSLATABLE_MODELS

        models = [m for m in TRANSLATABLE_MODELS if self.value() == m.GAME]
        types = ContentType.objects.get_for_models(*models).values()
        return queryset.filter(content_type__in=types)


class TranslationForm(forms.ModelForm):
    class Meta:
        model = Translation
        fields = ("text", "state")
        widgets = {"text": forms.Textarea(attrs={"rows": 3, "cols": 80})}


@admin.register(Translation)
class TranslationAdmin(SafeImportMixin, WriteChecks, VersionedAdminMixin, SimpleHistoryAdmin,
                       ImportExportActionModelAdmin):
    form = TranslationForm
    # Export (as filtered, or the selected rows) and import: a kind's translation file, with
    # review kept on import; see curation/translation_files.py.
    resource_classes = translation_file_resources()
    import_export_change_list_template = "admin/import_export/change_list_import_export.html"
    # Short columns (the card's kind, not "Cards | concept card"): the list fits 1280 px.
    list_display = ("source", "text", "lang", "state_badge", "kind")
    list_filter = (GameFilter, language_filter(targets_only=True), "state", CardKindFilter)
    search_fields = ("text", "source_text")
    list_select_related = ("content_type",)
    list_per_page = 100
    show_full_result_count = False
    fields = ("card", "field", "language", "current_source", "previous_source", "text", "state")
    readonly_fields = ("card", "field", "language", "current_source", "previous_source")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).prefetch_related("content_object")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # translations are added under their card, or imported

    def get_import_resource_classes(self, request: HttpRequest) -> list[type]:
        # First and chosen unless changed: the kind the file names (issue 37.5)
        return [FileNamedTranslationResource, *super().get_import_resource_classes(request)]

    def get_data_for_export(self, request, queryset, **kwargs):  # type: ignore[no-untyped-def]
        dataset = super().get_data_for_export(request, queryset, **kwargs)
        request.kartothek_export_stem = getattr(dataset, "kartothek_stem", "translations")
        return dataset

    def get_export_filename(self, request, queryset, file_format):  # type: ignore[no-untyped-def]
        # Named after the kind ("sauschwer-objects-translations-en-…"), as the sheet is.
        stem = getattr(request, "kartothek_export_stem", "translations")
        return f"{stem}-{timezone.localdate():%Y-%m-%d}.{file_format.get_extension()}"

    def has_import_permission(self, request: HttpRequest) -> bool:
        # Importing adds and changes translations: the editor's permissions (Translators
        # too); approving through a file is the reviewer's (see TranslationFileResource).
        return bool(request.user.has_perm("cards.add_translation")
                    and request.user.has_perm("cards.change_translation"))

    def preview_notes(self, request, result):  # type: ignore[no-untyped-def]
        return {"import_notes": review_notes(result)}

    def add_success_message(self, result, request) -> None:  # type: ignore[no-untyped-def]
        super().add_success_message(result, request)
        for note in review_notes(result):
            messages.warning(request, note)

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        review_translation(self, request, form)
        super().save_model(request, obj, form, change)

    @admin.display(description="source (de)")
    def source(self, row: Translation) -> str:
        return row.current_source if row.content_object is not None else "—"

    @admin.display(description="state", ordering="state")
    def state_badge(self, row: Translation):  # type: ignore[no-untyped-def]
        return state_badge(row.effective_state)

    @admin.display(description="lang.", ordering="language")
    def lang(self, row: Translation) -> str:
        return row.language

    @admin.display(description="kind of card", ordering="content_type")
    def kind(self, row: Translation) -> str:
        return kind_name(row.content_type)

    @admin.display(description="card")
    def card(self, row: Translation) -> str:
        return str(row.content_object)

    @admin.display(description="source now")
    def current_source(self, row: Translation) -> str:
        return row.current_source

    @admin.display(description="source it was made from")
    def previous_source(self, row: Translation) -> str:
        return row.source_text if row.is_outdated else "(the same)"



# The glossary, dismissed checks and the Translations list's "approve" action.
from curation.glossary_admin import add_translation_actions  # noqa: E402

add_translation_actions(TranslationAdmin)
