"""The curators' admin: every content type, its translations, imports and exports.

Every list page prefetches what its columns show, so it runs the same number of queries for
ten rows as for ten thousand (pinned by a test).
"""

from __future__ import annotations

from functools import lru_cache

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.contenttypes.admin import GenericTabularInline
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.text import Truncator, slugify
from import_export.admin import ImportExportActionModelAdmin
from simple_history.admin import SimpleHistoryAdmin

from cards import resources
from cards.admin_brands import OptionFindingsMixin
from cards.admin_curator import CuratorWordsMixin, is_revert
from cards.admin_filters import SentenceChoicesFilter, language_filter, market_label
from cards.admin_import import SafeImportMixin
from cards.admin_lists import CardKindFilter, kind_name
from cards.admin_preview import CardPreviewMixin
from cards.admin_translation_files import review_notes, translation_file_resources
from cards.colour_vision import ColourSpec, colour_problems
from cards.concurrency import VERSION_FIELD, VersionedAdminMixin, VersionedInlineMixin
from cards.history import deletion_time, restore_related
from cards.models import (
    EMPTY,
    AlfonsCard,
    ConceptCard,
    Game,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SloganCard,
    SloganOption,
    SymbolTile,
    Translatable,
    Translation,
    TranslationState,
    cards_in_market,
    describe_market,
    market_codes_allowed,
    market_list,
    option_problems,
)
from cards.pictures import tabler_icon_path
from cards.resources import write_options
from cards.text import normalise, validate_clean_text
from cards.translation import reviewed_state
from cards.validation import validate_unit
from cards.weights import WeightField, show_weight
from exports.print_views import print_selected_action
from games.admin import PlayDifficultyMixin
from kartothek.permissions import WriteChecks

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
    stored = Translation.objects.filter(pk=row.pk).first() if row.pk else None
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


class TranslationInline(VersionedInlineMixin, GenericTabularInline):
    """The card's translations, each with its state and the German source beside it (as in
    the translation editor); what a translation needing edits was made from is shown too."""

    model = Translation
    form = TranslationInlineForm
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
        js = ("cards/key-from-text.js", *CardPreviewMixin.Media.js)
        css = {"all": ("cards/curator.css", *CardPreviewMixin.Media.css["all"])}

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).prefetch_related("translations")

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


# --- Sag's mit Symbolen ------------------------------------------------------------------


@admin.register(ConceptCard)
class ConceptCardAdmin(PlayDifficultyMixin, ContentAdmin):
    resource_classes = [resources.ConceptCardResource]
    list_display = ("text", "key", "play_difficulty")
    play_game = "symbols"
    search_fields = ("text", "key", "translations__text")
    fields = ("text", "key", "created_at", "updated_at")


@admin.register(SymbolTile)
class SymbolTileAdmin(ContentAdmin):
    resource_classes = [resources.SymbolTileResource]
    list_display = ("thumbnail", "name", "key", "position", "is_extra")
    list_display_links = ("thumbnail", "name")
    list_filter = ("is_extra",)
    search_fields = ("name", "key", "icon", "translations__text")
    fields = (
        "name", "key", "position", "is_extra", "preview", "image", "icon",
        "image_source", "image_licence", "created_at", "updated_at",
    )
    readonly_fields = ("preview", "created_at", "updated_at")

    @admin.display(description="picture")
    def thumbnail(self, tile: SymbolTile):  # type: ignore[no-untyped-def]
        if not tile.image:
            return "—"
        return format_html(
            '<img src="{}" alt="{}" width="48" height="48" class="tile-thumb">',
            tile.image.url, tile.name,
        )

    @admin.display(description="picture")
    def preview(self, tile: SymbolTile):  # type: ignore[no-untyped-def]
        if not tile.image:
            return "—"
        return format_html(
            '<img src="{}" alt="{}" width="160" height="160" class="tile-preview">',
            tile.image.url, tile.name,
        )


# --- Sign --------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _icon_svg(icon: str, colour: str, size: int) -> str:
    try:
        svg = tabler_icon_path(icon).read_text(encoding="utf-8")
    except ValidationError:
        return ""
    svg = svg[svg.index("<svg"):]  # drop the licence comment block
    svg = svg.replace('width="24"', f'width="{size}"').replace('height="24"', f'height="{size}"')
    return svg.replace("currentColor", colour)


def sign_face(symbol: SignSymbol, colour: SignColour, size: int = 36):  # type: ignore[no-untyped-def]
    """A small picture of a Sign card: the symbol in its colour, with the colour's mark."""
    svg = _icon_svg(symbol.icon, colour.hex, size) if symbol.icon else ""
    # The colour goes into SVG attributes (fill, stroke), which the Content-Security-Policy
    # allows, where a style="" attribute would be blocked.
    return format_html(
        '<span class="sign-face">{}<svg width="16" height="18" viewBox="0 0 16 18" role="img" '
        'aria-label="{}"><text x="8" y="14" text-anchor="middle" font-size="14" font-weight="700" '
        'fill="{}">{}</text></svg></span>',
        mark_safe(svg), colour.mark, colour.hex, colour.mark,
    )


@admin.register(SignSymbol)
class SignSymbolAdmin(ContentAdmin):
    resource_classes = [resources.SignSymbolResource]
    list_display = ("shape", "name", "key", "icon", "position")
    list_display_links = ("shape", "name")
    search_fields = ("name", "key", "icon", "translations__text")

    @admin.display(description="shape")
    def shape(self, symbol: SignSymbol):  # type: ignore[no-untyped-def]
        return mark_safe(_icon_svg(symbol.icon, "#1f2a44", 32)) if symbol.icon else "—"


class SignColourForm(forms.ModelForm):
    """Refuses a colour or mark that some player could not tell from another Sign colour."""

    class Meta:
        model = SignColour
        fields = ("key", "name", "hex", "mark", "position")

    def clean(self):  # type: ignore[no-untyped-def]
        data = super().clean()
        key, name, hex_, mark = (data.get(f) for f in ("key", "name", "hex", "mark"))
        key = key or self.instance.key  # a saved colour's key is read-only: not in the form
        if not (key and name and hex_ and mark):
            return data  # the field errors say what is missing
        others = SignColour.objects.exclude(pk=self.instance.pk) if self.instance.pk else (
            SignColour.objects.all())
        palette = [ColourSpec(c.key, c.name, c.hex, c.mark) for c in others]
        palette.append(ColourSpec(key, name, hex_, mark))
        mine = [p.message for p in colour_problems(palette) if key in p.keys]
        if mine:
            raise ValidationError(mine)
        return data


@admin.register(SignColour)
class SignColourAdmin(ContentAdmin):
    form = SignColourForm
    resource_classes = [resources.SignColourResource]
    list_display = ("swatch", "name", "key", "hex", "mark", "position")
    list_display_links = ("swatch", "name")
    search_fields = ("name", "key", "translations__text")

    @admin.display(description="colour")
    def swatch(self, colour: SignColour):  # type: ignore[no-untyped-def]
        return format_html(
            '<svg class="swatch" width="28" height="20" viewBox="0 0 28 20" aria-hidden="true">'
            '<rect x="0.5" y="0.5" width="27" height="19" rx="4" fill="{}" stroke="#333"/></svg> '
            '<b>{}</b>',
            colour.hex, colour.mark,
        )


@admin.register(SignCard)
class SignCardAdmin(ContentAdmin):
    resource_classes = [resources.SignCardResource]
    inlines = []
    list_display = ("face", "key", "symbol", "colour")
    list_display_links = ("face", "key")
    list_filter = ("symbol", "colour")
    list_select_related = ("symbol", "colour")
    search_fields = ("key", "symbol__name", "colour__name")
    autocomplete_fields = ("symbol", "colour")
    fields = ("key", "symbol", "colour", "created_at", "updated_at")

    @admin.display(description="card")
    def face(self, card: SignCard):  # type: ignore[no-untyped-def]
        return sign_face(card.symbol, card.colour)


# --- Slogan ------------------------------------------------------------------------------


class OptionFormSet(BaseInlineFormSet):
    """A slogan's four options, checked together: distinct, exactly one correct."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        rows = [
            f.cleaned_data for f in self.forms
            if f.cleaned_data and not f.cleaned_data.get("DELETE")
        ]
        problems = option_problems(
            [r.get("text", "") for r in rows], [bool(r.get("is_correct")) for r in rows]
        )
        positions = sorted(r.get("position") for r in rows)
        if positions != list(range(1, len(rows) + 1)):
            problems.append("Number the options 1, 2, 3 and 4.")
        if problems:
            raise ValidationError(problems)

    def save(self, commit: bool = True):  # type: ignore[no-untyped-def]
        # Unmark the old correct option before marking the new one (one correct at a time).
        for form in self.forms:
            instance = form.instance
            if instance.pk and "is_correct" in form.changed_data and not instance.is_correct:
                SloganOption.objects.filter(pk=instance.pk).update(is_correct=False)
        return super().save(commit)


class SloganOptionInline(VersionedInlineMixin, admin.TabularInline):
    model = SloganOption
    formset = OptionFormSet
    fields = ("position", "text", "is_correct")
    extra = 4
    min_num = 4
    max_num = 4
    can_delete = False
    ordering = ("position",)

    def get_extra(self, request, obj=None, **kwargs):  # type: ignore[no-untyped-def]
        return 0 if obj is not None else 4

    def get_formset(self, request, obj=None, **kwargs):  # type: ignore[no-untyped-def]
        formset = super().get_formset(request, obj, **kwargs)
        if obj is None:
            formset.form.base_fields["position"].initial = None
        return formset


def _unit_checked_revert(view, request, object_id, version_id, extra_context, cards):  # type: ignore[no-untyped-def]
    """A revert from the history saves one row and none of its inlines: check the card it
    leaves behind as a unit, and undo the revert (with a message) if the card is incomplete."""
    with transaction.atomic():
        response = view(request, object_id, version_id, extra_context)
        if request.method != "POST" or response.status_code != 302:
            return response
        card = cards().first()
        try:
            if card is not None:
                validate_unit(card)
        except ValidationError as exc:
            transaction.set_rollback(True)
            list(messages.get_messages(request))  # drop the "changed successfully" note
            messages.error(request, "Nothing was reverted: " + " ".join(exc.messages))
            return HttpResponseRedirect(request.path)
    return response


class SloganCompletesCardForm(forms.ModelForm):
    """A slogan added on its own page must complete a card that lacks that side."""

    def clean(self) -> dict:  # type: ignore[type-arg]
        data = super().clean()
        card, side = data.get("card"), data.get("side")
        if card is not None and side in (1, 2):
            others = set(card.slogans.values_list("side", flat=True))
            if others != {3 - side}:
                raise ValidationError(
                    f"Slogan card {card.key} has no gap on side {side}: add a new card with "
                    "both slogans on the slogan card page."
                )
        return data


class MarketFilter(admin.SimpleListFilter):
    """Slogans marked with one market code (stored as "de,en" or "de,en-US")."""

    title = "market"
    parameter_name = "market"

    def lookups(self, request, model_admin):  # type: ignore[no-untyped-def]
        # the codes as stored: "en" is the UK and the US, "en-GB" the UK only
        return [(code, market_label(code)) for code in market_codes_allowed()]

    def queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        code = self.value()
        if not code:
            return queryset
        return queryset.filter(
            Q(markets=code) | Q(markets__startswith=f"{code},") | Q(markets__endswith=f",{code}")
            | Q(markets__contains=f",{code},")
        )


@admin.register(Slogan)
class SloganAdmin(ContentAdmin):
    resource_classes = [resources.SloganResource]
    inlines = [SloganOptionInline, TranslationInline]
    # Narrow columns (side "1", markets "de, en"; "stays German" is the EN column's own
    # "⇢ stays German" and a filter): the list fits 1280 px with its texts' words whole.
    list_display = ("text", "answer", "card", "side_number", "market_list")
    list_filter = (MarketFilter, "keep_german", ("side", SentenceChoicesFilter))
    list_select_related = ("card",)
    search_fields = ("text", "key", "options__text", "translations__text")
    autocomplete_fields = ("card",)
    fields = ("card", "side", "text", "key", "markets", "keep_german", "source", "created_at",
              "updated_at")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).prefetch_related("options")

    def get_readonly_fields(self, request, obj=None):  # type: ignore[no-untyped-def]
        # Moving a slogan to another card or side would leave its card with a gap.
        fixed = ("card", "side") if obj is not None else ()
        return (*super().get_readonly_fields(request, obj), *fixed)

    def get_form(self, request, obj=None, change=False, **kwargs):  # type: ignore[no-untyped-def]
        form = super().get_form(request, obj, change, **kwargs)
        if obj is None:
            form = type("SloganAddForm", (SloganCompletesCardForm, form), {})
        return form

    def save_related(self, request, form, formsets, change):  # type: ignore[no-untyped-def]
        super().save_related(request, form, formsets, change)
        validate_unit(form.instance.card)  # the card as one unit, in the same transaction

    def history_form_view(self, request, object_id, version_id, extra_context=None):  # type: ignore[no-untyped-def]
        return _unit_checked_revert(
            super().history_form_view, request, object_id, version_id, extra_context,
            lambda: SloganCard.objects.filter(slogans__pk=object_id),
        )

    def get_actions(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # a slogan goes with its card
        return actions

    def delete_view(self, request, object_id, extra_context=None):  # type: ignore[no-untyped-def]
        slogan = self.get_object(request, object_id)
        if slogan is None or not self.has_delete_permission(request, slogan):
            return super().delete_view(request, object_id, extra_context)
        self.message_user(
            request,
            f"A slogan cannot be deleted on its own: its card {slogan.card.key} needs both "
            "slogans. Delete the slogan card, or change this slogan's text.",
            messages.ERROR,
        )
        return HttpResponseRedirect(reverse("admin:cards_slogancard_change", args=[slogan.card_id]))

    @admin.display(description="side", ordering="side")
    def side_number(self, slogan: Slogan) -> int:
        return slogan.side

    @admin.display(description="markets", ordering="markets")
    def market_list(self, slogan: Slogan) -> str:
        return ", ".join(code for code in slogan.markets.split(",") if code)

    @admin.display(description="answer ★")
    def answer(self, slogan: Slogan) -> str:
        option = slogan.correct_option
        return option.text if option else "—"


SLOGAN_OPTION_LENGTH = SloganOption._meta.get_field("text").max_length
SLOGAN_OPTION_FIELDS = ("option_1", "option_2", "option_3", "option_4")


class SloganUnitForm(forms.ModelForm):
    """One slogan of a card with its four answer options, edited in one row."""

    option_1 = forms.CharField(label="option 1", max_length=SLOGAN_OPTION_LENGTH,
                               validators=[validate_clean_text])
    option_2 = forms.CharField(label="option 2", max_length=SLOGAN_OPTION_LENGTH,
                               validators=[validate_clean_text])
    option_3 = forms.CharField(label="option 3", max_length=SLOGAN_OPTION_LENGTH,
                               validators=[validate_clean_text])
    option_4 = forms.CharField(label="option 4", max_length=SLOGAN_OPTION_LENGTH,
                               validators=[validate_clean_text])
    correct = forms.TypedChoiceField(
        label="correct answer", coerce=int, widget=forms.RadioSelect(attrs={"class": "correct-choice"}),
        choices=[(n, f"option {n}") for n in range(1, 5)],
        help_text="Exactly one of the four options is the brand the slogan belongs to.")

    class Meta:
        model = Slogan
        fields = ("side", "text", "key", "markets", "keep_german", "source")

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            # A saved slogan's key is fixed (imports match on it): a disabled field ignores
            # whatever a POST sends for it. A new slogan on a saved card still gets one.
            self.fields["key"].disabled = True
            self.fields["key"].help_text = "Fixed once saved: imports match rows on it."
            for option in self.instance.options.all():
                self.initial[f"option_{option.position}"] = option.text
                if option.is_correct:
                    self.initial["correct"] = option.position
        else:
            self.fields["key"].help_text = ("Filled from the slogan's text as you type (ä→ae, "
                                            "ö→oe, ü→ue, ß→ss); fixed once saved.")

    def clean(self) -> dict:  # type: ignore[type-arg]
        data = super().clean()
        texts = [data.get(f"option_{n}") for n in range(1, 5)]
        if all(texts) and data.get("correct"):
            problems = option_problems(texts, [n == data["correct"] for n in range(1, 5)])
            if problems:
                raise ValidationError(problems)
        return data

    def pending_options(self) -> list[tuple[str, bool]]:
        data = self.cleaned_data
        return [(data[f"option_{n}"], n == data["correct"]) for n in range(1, 5)]


class SloganUnitFormSet(BaseInlineFormSet):
    """A card's two slogans, checked together: both sides, each with four options."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        rows = [f.cleaned_data for f in self.forms if f.cleaned_data]
        sides = sorted(r["side"] for r in rows)
        if sides != [1, 2]:
            missing = [str(n) for n in (1, 2) if n not in sides]
            raise ValidationError(
                "A slogan card needs both slogans, each with its four answer options"
                + (f" (missing: slogan {', '.join(missing)})." if missing else ".")
            )
        first, second = (normalise(r["text"]) for r in rows)
        if first == second:
            raise ValidationError("The two slogans of a card must differ.")


class SloganInline(VersionedInlineMixin, admin.StackedInline):
    """Both slogans of a card on the card's page, each with its four numbered options, the
    correct one chosen by a radio button, and its source: one page, one save."""

    model = Slogan
    form = SloganUnitForm
    formset = SloganUnitFormSet
    fieldsets = (
        (None, {"fields": (("side", "key"), "text", ("markets", "keep_german"), "source")}),
        ("Answer options", {"fields": (("option_1", "option_2"), ("option_3", "option_4"),
                                       "correct", "edit")}),
    )
    readonly_fields = ("edit",)
    extra = 0
    min_num = 2  # a card is saved with both slogans or not at all
    max_num = 2
    can_delete = False
    show_change_link = True

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).prefetch_related("options")

    @admin.display(description="translations")
    def edit(self, slogan: Slogan):  # type: ignore[no-untyped-def]
        if not slogan.pk:
            return "after saving: on the slogan's own page"
        url = reverse("admin:cards_slogan_change", args=[slogan.pk])
        return format_html('<a href="{}">this slogan\'s translations…</a>', url)


@admin.register(SloganCard)
class SloganCardAdmin(OptionFindingsMixin, PlayDifficultyMixin, ContentAdmin):
    inlines = [SloganInline]
    list_display = ("key", "first_slogan", "second_slogan", "editions", "play_difficulty")
    play_game = "slogan"
    search_fields = ("key", "slogans__text")
    # Exported with the project's resource; imported only whole, through a slogans file.
    resource_classes = [resources.SloganCardResource]

    def has_import_permission(self, request: HttpRequest) -> bool:
        return False

    def get_formset_kwargs(self, request, obj, inline, prefix):  # type: ignore[no-untyped-def]
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        if isinstance(inline, SloganInline) and request.method != "POST" and not obj.pk:
            kwargs["initial"] = [{"side": 1}, {"side": 2}]  # numbered for the curator
        return kwargs

    def get_changeform_initial_data(self, request: HttpRequest) -> dict:  # type: ignore[type-arg]
        # A new card gets the next free number in the catalogue's "karte-NNN" series.
        initial = super().get_changeform_initial_data(request)
        if "key" not in initial:
            numbers = [int(k[6:]) for k in SloganCard.objects.filter(key__regex=r"^karte-[0-9]+$")
                       .values_list("key", flat=True)]
            initial["key"] = f"karte-{max(numbers, default=0) + 1:03d}"
        return initial

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).prefetch_related("slogans")

    def save_formset(self, request, form, formset, change):  # type: ignore[no-untyped-def]
        super().save_formset(request, form, formset, change)
        if isinstance(formset, SloganUnitFormSet):
            for slogan_form in formset.forms:
                if slogan_form.cleaned_data:
                    write_options(slogan_form.instance, slogan_form.pending_options())

    def save_related(self, request, form, formsets, change):  # type: ignore[no-untyped-def]
        super().save_related(request, form, formsets, change)
        # The forms checked the unit; this checks what is stored, inside the same
        # transaction, so no path through the forms can leave half a card behind.
        validate_unit(form.instance)

    def history_form_view(self, request, object_id, version_id, extra_context=None):  # type: ignore[no-untyped-def]
        return _unit_checked_revert(super().history_form_view, request, object_id, version_id,
                                    extra_context, lambda: SloganCard.objects.filter(pk=object_id))

    def _side(self, card: SloganCard, side: int) -> str:
        return next((s.text for s in card.slogans.all() if s.side == side), "—")

    @admin.display(description="slogan 1")
    def first_slogan(self, card: SloganCard) -> str:
        return self._side(card, 1)

    @admin.display(description="slogan 2")
    def second_slogan(self, card: SloganCard) -> str:
        return self._side(card, 2)

    @admin.display(description="in the decks of")
    def editions(self, card: SloganCard) -> str:
        # a card is printed where both its slogans are known
        shared = cards_in_market([(card.key, s.markets) for s in card.slogans.all()])
        return (", ".join(describe_market(c) for c in market_list(sorted(shared.get(card.key, set()))))
                or "— (no common market)")


@admin.register(AlfonsCard)
class AlfonsCardAdmin(ContentAdmin):
    resource_classes = [resources.AlfonsCardResource]
    list_display = ("text", "effect", "amount", "target")
    list_filter = (("effect", SentenceChoicesFilter), ("target", SentenceChoicesFilter))
    search_fields = ("text", "key", "translations__text")
    fields = ("text", "key", "effect", "amount", "target", "created_at", "updated_at")


# --- Sauschwer ---------------------------------------------------------------------------


class SauschwerObjectForm(forms.ModelForm):
    weight_g = WeightField(label="Weight")

    class Meta:
        model = SauschwerObject
        fields = ("name", "key", "weight_g", "source")


@admin.register(SauschwerObject)
class SauschwerObjectAdmin(PlayDifficultyMixin, ContentAdmin):
    form = SauschwerObjectForm
    resource_classes = [resources.SauschwerObjectResource]
    list_display = ("name", "weight", "short_source", "play_difficulty")
    play_game = "sauschwer"
    search_fields = ("name", "key", "source", "translations__text")
    fields = ("name", "key", "weight_g", "source", "created_at", "updated_at")

    @admin.display(description="source")
    def short_source(self, obj: SauschwerObject) -> str:
        return Truncator(obj.source).chars(60)

    @admin.display(description="weight", ordering="weight_g")
    def weight(self, obj: SauschwerObject) -> str:
        # Exact, as the form shows it (the card's rounded "1 kg" would hide 1.030 g).
        return show_weight(obj.weight_g)


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
    # review kept on import; see cards/admin_translation_files.py.
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

    def get_export_filename(self, request, queryset, file_format):  # type: ignore[no-untyped-def]
        return f"translations-{timezone.localdate():%Y-%m-%d}.{file_format.get_extension()}"

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
from cards.admin_glossary import add_translation_actions  # noqa: E402

add_translation_actions(TranslationAdmin)
