"""The model admin every content type shares (``ContentAdmin``): translations inline with their
states, a column and a filter per language, change reasons in the history, reverts shown as a
diff, card previews, safe imports, write checks.

Every list page prefetches what its columns show, so it runs the same number of queries for
ten rows as for ten thousand (pinned by a test). The content types' own admins are in
curation/game_admins.py and curation/slogan_admin.py; the Translations list in
curation/translation_admin.py.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.contenttypes.admin import GenericTabularInline
from django.contrib.contenttypes.forms import BaseGenericInlineFormSet
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator, slugify
from import_export.admin import ImportExportActionModelAdmin
from simple_history.admin import SimpleHistoryAdmin

from cards.concurrency import VERSION_FIELD, VersionedAdminMixin, VersionedInlineMixin
from cards.history import deletion_time, restore_related
from cards.models import (
    EMPTY,
    Slogan,
    Translatable,
    Translation,
    TranslationState,
)
from cards.translation import reviewed_state
from curation.card_previews import CardPreviewMixin
from curation.curator_words import CuratorWordsMixin, is_revert
from curation.key_errors import with_taken_key_message
from curation.print_pages import print_selected_action
from curation.safe_import import SafeImportMixin
from curation.write_checks import WriteChecks

UNTRANSLATED = "untranslated"
STATE_BADGES = {
    EMPTY: ("—", "#9ca3af", "empty"),
    UNTRANSLATED: ("⇢", "#6b7280", "stays German"),
    TranslationState.NEEDS_EDITING: ("✎", "#b45309", "needs editing"),
    TranslationState.TRANSLATED: ("✓", "#2563eb", "translated"),
    TranslationState.APPROVED: ("✔✔", "#15803d", "approved"),
}


def state_badge(state: str):  # type: ignore[no-untyped-def]
    symbol, _colour, label = STATE_BADGES[state]
    return format_html(
        '<span title="{}" class="state state-{}">{} {}</span>',
        label, state, symbol, label,
    )


# --- translation state, as a filter and a column per language ---------------------------


def translation_state_filter(language: str) -> type[admin.SimpleListFilter]:
    class TranslationStateFilter(admin.SimpleListFilter):
        title = f"translation ({language})"
        parameter_name = f"translation_{language}"

        def lookups(self, request, model_admin):  # type: ignore[no-untyped-def]
            return [(EMPTY, "Missing"), *TranslationState.choices]  # sentence case, as the others

        def queryset(self, request, queryset):  # type: ignore[no-untyped-def]
            value = self.value()
            if not value:
                return queryset
            done = Translation.objects.filter(
                content_type=ContentType.objects.get_for_model(queryset.model),
                language=language,
            ).exclude(text="")
            if value == EMPTY:
                missing = queryset.exclude(pk__in=done.values("object_id"))
                if queryset.model is Slogan:
                    missing = missing.exclude(keep_german=True)  # deliberately German
                return missing
            return queryset.filter(pk__in=done.filter(state=value).values("object_id"))

    TranslationStateFilter.__name__ = f"TranslationStateFilter_{language}"
    return TranslationStateFilter


def _translation_column(language: str, field: str):  # type: ignore[no-untyped-def]
    def column(self, obj: Translatable):  # type: ignore[no-untyped-def]
        row = obj.translation(field, language)
        state = row.effective_state if row is not None else EMPTY
        if state == EMPTY and obj.keeps_source(field):
            state = UNTRANSLATED
        symbol, _colour, label = STATE_BADGES[state]
        text = row.text if row is not None and row.text else label
        return format_html(
            '<span title="{}" class="state-{}"><b>{}</b> {}</span>',
            label, state, symbol, Truncator(text).chars(48),
        )

    column.short_description = language.upper()  # type: ignore[attr-defined]
    return column


def admin_change_reason(request: HttpRequest, obj, form, change: bool) -> str:  # type: ignore[no-untyped-def]
    """What a card's history says about a save in the admin: added, the fields changed, or the
    version a revert brought back."""
    match = getattr(request, "resolver_match", None)
    if match is not None and match.url_name and match.url_name.endswith("_simple_history"):
        version_id = match.kwargs.get("version_id") or (match.args[-1] if match.args else None)
        record = type(obj).history.filter(history_id=version_id).first()
        if record is not None:
            when = timezone.localtime(record.history_date).strftime("%Y-%m-%d %H:%M")
            return f"Reverted to version {record.version} of {when}"
        return "Reverted in the admin"
    if not change:
        return "Added in the admin"
    fields = [name for name in form.changed_data if name != VERSION_FIELD]
    return ("Changed in the admin: " + ", ".join(fields)) if fields else "Saved in the admin"


def inline_change_reason(form) -> str:  # type: ignore[no-untyped-def]
    fields = [name for name in form.changed_data if name not in (VERSION_FIELD, "DELETE")]
    instance = form.instance
    what = (f"{instance.language} translation" if isinstance(instance, Translation)
            else str(instance._meta.verbose_name))
    if not instance.pk:
        return f"Added in the admin ({what})"
    return f"Changed in the admin ({what}): " + ", ".join(fields)


#: Fields a revert diff does not show (bookkeeping, not content).
_DIFF_SKIPPED = {"id", "norm", "created_at", "updated_at", "version", "state_before_change"}


def revert_diff(model, object_id, version_id) -> dict | None:  # type: ignore[no-untyped-def, type-arg]
    """What reverting to ``version_id`` would change in today's version: field, today, then."""
    try:
        record = model.history.filter(id=object_id, history_id=version_id).first()
    except (ValueError, TypeError, ValidationError):  # not ids at all: the view answers 404
        return None
    if record is None:
        return None
    current = model._default_manager.filter(pk=object_id).first()
    rows = []
    for field in model._meta.concrete_fields:
        if field.name in _DIFF_SKIPPED or not field.editable:
            continue
        then = getattr(record, field.attname, None)
        now = getattr(current, field.attname, None) if current is not None else None
        if current is None or then != now:
            label = str(field.verbose_name)
            if isinstance(field, models.ForeignKey):
                then = field.related_model._default_manager.filter(pk=then).first() or then
                now = field.related_model._default_manager.filter(pk=now).first() or now
            rows.append({"field": label, "now": "—" if current is None else now, "then": then})
    return {"rows": rows, "deleted": current is None, "version": record.version,
            "date": record.history_date}


def review_translation(model_admin: admin.ModelAdmin, request: HttpRequest, form: forms.ModelForm) -> None:
    """Give a translation form's instance the state review allows (``reviewed_state``)."""
    row = form.instance
    # As the page showed it: this same save may have moved the stored row already (a new
    # German text drops it to "needs editing"), and the version check guards the rest.
    stored = Translation(text=form.initial.get("text", ""), state=form.initial.get("state", "")) \
        if row.pk else None
    row.state, note = reviewed_state(request.user, stored, row.text, row.state,
                                     chosen="state" in form.changed_data)
    if note:
        model_admin.message_user(request, f"{row.language}: {note}", messages.WARNING)


class TranslationInlineForm(forms.ModelForm):
    """A translation on its card's page: language and field are choices (the configured
    target languages, the card's translatable fields), the text box fits the page."""

    language = forms.ChoiceField(choices=())
    field = forms.ChoiceField(choices=())

    class Meta:
        model = Translation
        fields = ("language", "field", "text", "state")
        widgets = {"text": forms.Textarea(attrs={"rows": 2, "class": "translation-text"})}

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        targets = list(settings.KARTOTHEK_LANGUAGES[1:])
        fields = list(self.translatable_fields)
        # A stored row keeps its own value as a choice, so saving the page never moves it
        # silently to another language or field (its model check then names the problem).
        if self.instance.pk and self.instance.language not in targets:
            targets.append(self.instance.language)
        if self.instance.pk and self.instance.field not in fields:
            fields.append(self.instance.field)
        self.fields["language"].choices = [(code, code) for code in targets]
        self.fields["field"].choices = [(name, name) for name in fields]
        if not self.instance.pk:
            self.fields["language"].initial = targets[0] if targets else None
            self.fields["field"].initial = fields[0] if fields else None

    translatable_fields: tuple[str, ...] = ()


class TranslationInlineFormSet(BaseGenericInlineFormSet):
    """Each translation is saved against the card as this save leaves it: a translation typed
    in the same save as a new German text is made from that new text (its ``source_text``),
    not from the German the form was checked against."""

    def clean(self) -> None:
        """One translation per field and language: a second row for the same pair (a new row,
        or a row moved to another language) is a form error, not the database's refusal."""
        super().clean()
        kept: dict[tuple[str, str], forms.Form] = {}
        on_page = set()
        for form in self.forms:
            if form.instance.pk:
                on_page.add(form.instance.pk)
            if not hasattr(form, "cleaned_data") or self._should_delete_form(form):
                continue
            pair = (form.cleaned_data.get("field"), form.cleaned_data.get("language"))
            if None in pair or (not form.instance.pk and not form.has_changed()):
                continue
            if pair in kept:
                form.add_error("language", f"Another row here already translates its {pair[0]} "
                                           f"into {pair[1]}: edit that row instead.")
            kept[pair] = form
        if self.instance.pk is None or not kept:
            return
        others = Translation.objects.filter(
            content_type=ContentType.objects.get_for_model(self.instance),
            object_id=self.instance.pk).exclude(pk__in=on_page)
        for field, language in others.values_list("field", "language"):
            form = kept.get((field, language))
            if form is not None:  # saved by someone else since this page was opened
                form.add_error("language", f"Someone added a translation of its {field} into "
                                           f"{language} after you opened this page: reload to "
                                           f"edit it.")

    def save_new(self, form, commit=True):  # type: ignore[no-untyped-def]
        form.instance.content_object = self.instance
        return super().save_new(form, commit=commit)

    def save_existing(self, form, obj, commit=True):  # type: ignore[no-untyped-def]
        form.instance.content_object = self.instance
        return super().save_existing(form, obj, commit=commit)


class TranslationInline(VersionedInlineMixin, GenericTabularInline):
    """The card's translations, each with its state and the German source beside it (as in
    the translation editor); what a translation needing edits was made from is shown too."""

    model = Translation
    form = TranslationInlineForm
    formset = TranslationInlineFormSet
    extra = 0
    fields = ("language", "field", "german", "text", "state")
    readonly_fields = ("german",)
    verbose_name_plural = "translations (the German source beside each, with its state)"

    def get_formset(self, request, obj=None, **kwargs):  # type: ignore[no-untyped-def]
        formset = super().get_formset(request, obj, **kwargs)
        # The field choices are the parent's translatable fields.
        formset.form = type(formset.form.__name__, (formset.form,),
                            {"translatable_fields": tuple(self.parent_model.TRANSLATABLE_FIELDS)})
        return formset

    @admin.display(description="German source · state")
    def german(self, row: Translation):  # type: ignore[no-untyped-def]
        if not row.pk:
            return "—"
        state = row.effective_state
        badge = state_badge(state)
        if row.is_outdated and row.source_text:
            return format_html('{}<div class="source-now">{}</div>'
                               '<div class="source-was">made from: <del>{}</del></div>',
                               badge, row.current_source, row.source_text)
        return format_html('{}<div class="source-now">{}</div>', badge, row.current_source)


class ContentAdmin(CuratorWordsMixin, SafeImportMixin, CardPreviewMixin, WriteChecks,
                   VersionedAdminMixin, SimpleHistoryAdmin, ImportExportActionModelAdmin):
    """Common ground of the content admins: translations, history, columns and filters.

    Import shows a preview of every row (new, update, unchanged, errors) and imports only
    after the curator confirms; any error and nothing is imported. Export writes all rows
    or, as an action, the selected ones.
    """

    inlines = [TranslationInline]
    # ImportMixin's list template shows only Import; this one shows Import and Export.
    import_export_change_list_template = "admin/import_export/change_list_import_export.html"
    actions = [print_selected_action]
    readonly_fields = ("created_at", "updated_at")
    list_per_page = 100
    show_full_result_count = False

    # One Media for the class (it replaces, not extends, the preview mixin's): both sets here.
    class Media:
        js = ("curation/key-from-text.js", *CardPreviewMixin.Media.js)
        css = {"all": ("curation/curator.css", *CardPreviewMixin.Media.css["all"])}

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        # Every content form's base: a taken key names the card that has it.
        self.form = with_taken_key_message(self.form)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).prefetch_related("translations")

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):  # type: ignore[no-untyped-def]
        # A refused save's heading and breadcrumb name the card as stored: the form has put
        # the typed (refused) text into ``obj`` while checking it.
        if change and obj is not None and obj.pk and request.method == "POST":
            stored = type(obj)._default_manager.filter(pk=obj.pk).first()
            if stored is not None:
                context.update(subtitle=str(stored), original=stored)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        # A saved card's key is fixed: imports match rows on it. Read-only fields are not
        # in the form, so a forged POST cannot change it either.
        fixed = ("key",) if obj is not None else ()
        return (*super().get_readonly_fields(request, obj), *fixed)

    def get_form(self, request, obj=None, change=False, **kwargs):  # type: ignore[no-untyped-def]
        form = super().get_form(request, obj, change, **kwargs)
        key = form.base_fields.get("key")
        if key is not None and self.model.TEXT_FIELD:
            key.help_text = (
                "Filled from the German text as you type (ä→ae, ö→oe, ü→ue, ß→ss); you may "
                "change it until the card is saved. Imports match rows on it, so it is fixed "
                "once saved."
            )
        elif key is not None:
            key.help_text = ("The card's stable identifier (imports match rows on it); fixed "
                             "once saved.")
        return form

    def get_export_filename(self, request, queryset, file_format):  # type: ignore[no-untyped-def]
        # "sauschwer-objects-2026-12-02.xlsx", the list's own name, not the class name
        plural = slugify(str(self.model._meta.verbose_name_plural))
        return f"{plural}-{timezone.localdate():%Y-%m-%d}.{file_format.get_extension()}"

    def save_formset(self, request, form, formset, change):  # type: ignore[no-untyped-def]
        # The card's translations (and other inline rows) say in their history why they changed.
        for row in formset.forms:
            if row.has_changed() and not getattr(row.instance, "_change_reason", None):
                row.instance._change_reason = inline_change_reason(row)
            if row.has_changed() and isinstance(row.instance, Translation):
                review_translation(self, request, row)
        super().save_formset(request, form, formset, change)

    def history_form_view(self, request, object_id, version_id, extra_context=None):  # type: ignore[no-untyped-def]
        # Only for who may see the card (the library checks again, and 404s bad ids).
        diff = (revert_diff(self.model, object_id, version_id)
                if self.has_view_or_change_permission(request) else None)
        extra = {"revert_diff": diff, **(extra_context or {})}
        return super().history_form_view(request, object_id, version_id, extra)

    history_list_display = ("version",)

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        # Reverting a deleted card from its history saves it again: bring back what was
        # deleted with it (translations, a slogan's options).
        deleted_at = None
        if change and obj.pk and not type(obj).objects.filter(pk=obj.pk).exists():
            deleted_at = deletion_time(obj)
        obj._change_reason = admin_change_reason(request, obj, form, change)
        if is_revert(request):
            match = request.resolver_match
            version_id = match.kwargs.get("version_id") or (match.args[-1] if match.args else None)
            request._kartothek_reverted_to = (  # type: ignore[attr-defined]
                type(obj).history.filter(history_id=version_id).first())
        super().save_model(request, obj, form, change)
        if deleted_at is not None:
            # response_change says it, in one message with the revert's
            request._kartothek_restored = restore_related(obj, deleted_at)  # type: ignore[attr-defined]

    def get_list_filter(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        own = list(super().get_list_filter(request))
        if self.model.TRANSLATABLE_FIELDS:
            own += [translation_state_filter(lang) for lang in settings.KARTOTHEK_LANGUAGES[1:]]
        return own

    def get_list_display(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        columns = list(super().get_list_display(request))
        if self.model.TRANSLATABLE_FIELDS:
            field = self.model.TRANSLATABLE_FIELDS[0]
            for language in settings.KARTOTHEK_LANGUAGES[1:]:
                name = f"translation_{language}"
                if not hasattr(self, name):
                    setattr(type(self), name, _translation_column(language, field))
                columns.append(name)
        return columns
