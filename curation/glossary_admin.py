"""Admin pages of the translation checks: the glossary per language, and dismissed findings.

Curators (every cards permission) edit the glossary and dismiss findings; Translators and
Viewers see both (view permission only).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator

from cards.checks import REGISTRY
from cards.models import CheckDismissal, Game, GlossaryTerm, Translation
from curation.filters import language_filter, sentence_case
from curation.write_checks import WriteChecks


class GlossaryForm(forms.ModelForm):
    language = forms.ChoiceField(choices=[])
    game = forms.ChoiceField(choices=[("", "every game"), *Game.choices], required=False)

    class Meta:
        model = GlossaryTerm
        fields = ("language", "term", "translation", "game", "note")
        widgets = {"note": forms.Textarea(attrs={"rows": 2, "cols": 60})}

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        targets = list(settings.KARTOTHEK_LANGUAGES[1:])
        self.fields["language"].choices = [(code, code.upper()) for code in targets]


@admin.register(GlossaryTerm)
class GlossaryTermAdmin(WriteChecks, admin.ModelAdmin):
    """The glossary: one list per language (the language filter), edited by curators."""

    form = GlossaryForm
    list_display = ("term", "translation", "game_label", "short_note")
    list_filter = (language_filter(targets_only=True), "game")
    search_fields = ("term", "translation", "note")
    ordering = ("language", "term")

    @admin.display(description="note")
    def short_note(self, row: GlossaryTerm) -> str:
        return Truncator(row.note).chars(60)

    @admin.display(description="game", ordering="game")
    def game_label(self, row: GlossaryTerm) -> str:
        return Game(row.game).label if row.game else "every game"


class DismissalForm(forms.ModelForm):
    class Meta:
        model = CheckDismissal
        fields = ("reason",)
        widgets = {"reason": forms.Textarea(attrs={"rows": 3, "cols": 60})}


class CheckFilter(admin.SimpleListFilter):
    """The dismissed checks by their titles ("Unchanged from the German"), not their slugs."""

    title = "check"
    parameter_name = "check_name__exact"

    def lookups(self, request, model_admin):  # type: ignore[no-untyped-def]
        used = set(CheckDismissal.objects.values_list("check_name", flat=True).distinct())
        return [(slug, sentence_case(REGISTRY[slug].title if slug in REGISTRY else slug))
                for slug in sorted(used)]

    def queryset(self, request, queryset):  # type: ignore[no-untyped-def]
        return queryset.filter(check_name=self.value()) if self.value() else queryset


@admin.register(CheckDismissal)
class CheckDismissalAdmin(WriteChecks, admin.ModelAdmin):
    """Who dismissed which finding on which text, why and when; made from the editor."""

    form = DismissalForm
    list_display = ("check_title", "card", "text_of", "short_reason", "dismissed_by",
                    "dismissed_at")
    list_filter = (language_filter(targets_only=True), CheckFilter)
    search_fields = ("reason", "text", "source")
    list_select_related = ("content_type", "dismissed_by")
    readonly_fields = ("check_title", "card", "field", "language", "source", "text",
                       "dismissed_by", "dismissed_at", "status")
    fields = ("check_title", "card", "field", "language", "source", "text", "reason",
              "dismissed_by", "dismissed_at", "status")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a finding is dismissed beside its text, in the translation editor

    def get_queryset(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).prefetch_related("content_object")

    @admin.display(description="check", ordering="check_name")
    def check_title(self, row: CheckDismissal) -> str:
        spec = REGISTRY.get(row.check_name)
        return spec.title if spec else row.check_name

    @admin.display(description="text")
    def text_of(self, row: CheckDismissal) -> str:
        return f"{row.field} ({row.language})"

    @admin.display(description="reason")
    def short_reason(self, row: CheckDismissal) -> str:
        return Truncator(row.reason).chars(60)

    @admin.display(description="card")
    def card(self, row: CheckDismissal) -> str:
        obj = row.content_object
        return str(getattr(obj, "key", obj)) if obj is not None else "(deleted)"

    @admin.display(description="now")
    def status(self, row: CheckDismissal):  # type: ignore[no-untyped-def]
        obj = row.content_object
        if obj is None:
            return "card deleted"
        translation = Translation.objects.filter(
            content_type_id=row.content_type_id, object_id=row.object_id, field=row.field,
            language=row.language).values_list("text", flat=True).first() or ""
        if row.holds_for(str(getattr(obj, row.field, "")), translation):
            return "dismissed"
        game = getattr(obj, "GAME", "")
        url = reverse("admin:cards_translate", args=[game, row.language]) if game else ""
        return format_html('re-opened: the text changed since (<a href="{}?q={}">editor</a>)',
                           url, str(getattr(obj, row.field, ""))[:40])


# --- the Translations list's bulk action --------------------------------------------------


@admin.action(description="Approve selected translations", permissions=["approve"])
def approve_selected(model_admin, request: HttpRequest, queryset):  # type: ignore[no-untyped-def]
    """Approve the selected translations that have a text, each on the version it has.

    Every row is locked and saved on its own (history kept, version incremented); a row that
    someone else changed between the list and this action is saved on today's version only
    if it still has a text, so nothing empty is ever approved.
    """
    from django.contrib import messages
    from django.db import connection, transaction

    from cards.concurrency import EditConflict
    from cards.models import TranslationState

    approved = already = empty = conflicts = 0
    with transaction.atomic():
        rows = queryset.order_by("pk")
        if connection.features.has_select_for_update:
            rows = rows.select_for_update()
        rows = list(rows.prefetch_related("content_object"))
        held = _questioned(rows)
        for row in rows:
            if not row.text.strip():
                empty += 1
                continue
            if row.state == TranslationState.APPROVED:
                already += 1
                continue
            if row.pk in held:
                continue
            row.state = TranslationState.APPROVED
            row._expected_version = row.version
            try:
                with transaction.atomic():
                    row.save()
            except EditConflict:
                conflicts += 1
                continue
            approved += 1
    parts = [f"Approved {approved} translation{'s' if approved != 1 else ''}."]
    if already:
        parts.append(f"{already} {'was' if already == 1 else 'were'} approved already.")
    if empty:
        parts.append(f"{empty} without a text {'was' if empty == 1 else 'were'} left alone "
                     "(an empty translation cannot be approved).")
    if conflicts:
        parts.append(f"{conflicts} changed meanwhile and {'was' if conflicts == 1 else 'were'} "
                     "not approved: open them again.")
    if held:
        named = "; ".join(held.values())
        parts.append(f"Not approved, because checks found problems: {named}. Open each in the "
                     "editor to correct it, dismiss the finding, or approve it anyway.")
    model_admin.message_user(request, " ".join(parts),
                             messages.WARNING if empty or conflicts or held else messages.SUCCESS)


def _questioned(rows: list[Any]) -> dict[int, str]:
    """The translations (pk -> "key (check, …)") that approving would approve with open
    check findings: as in the editor, those are approved one by one, on purpose."""
    from cards.models import TranslationState
    from cards.progress import Unit
    from curation.translation_pages import TextChecks

    groups: dict[tuple[str, str], list[Unit]] = {}
    for row in rows:
        obj = row.content_object
        if obj is None or not row.text.strip() or row.state == TranslationState.APPROVED:
            continue
        groups.setdefault((obj.GAME, row.language), []).append(Unit(obj, row.field, row))
    held: dict[int, str] = {}
    for (game, language), units in groups.items():
        checks = TextChecks(game, language, units)
        for unit in units:
            found = checks.findings(unit, unit.translation.text, TranslationState.APPROVED)
            if found:
                held[unit.translation.pk] = (
                    f"{unit.label} [{language}] ({', '.join(f.title for f in found)})")
    return held


def has_approve_permission(model_admin, request: HttpRequest) -> bool:  # type: ignore[no-untyped-def]
    """Approving is the reviewer's (``cards.approve_translation``), also for a forged POST."""
    from cards.translation import APPROVE_PERMISSION

    return bool(request.user.has_perm(APPROVE_PERMISSION))


def add_translation_actions(translation_admin: type[admin.ModelAdmin]) -> None:
    translation_admin.actions = [*(translation_admin.actions or []), approve_selected]
    translation_admin.has_approve_permission = has_approve_permission  # type: ignore[attr-defined]
