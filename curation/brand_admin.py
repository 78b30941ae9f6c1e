"""The admin of the brand owners, and the option checks' findings on a slogan card's page.

Brand owners (``BrandOwnership``) are edited by Curators like content (Translators and
Viewers see them) and go in and out as spreadsheets (``brand,group,since,until,source``).
A slogan card's change page lists what gives an answer away (:mod:`cards.option_checks`),
each open finding with a *Dismiss* link; the dismiss page asks for the reason and needs
the permission to change slogan cards, checked in the view that writes.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from import_export.admin import ImportExportActionModelAdmin

from cards.brand_files import BrandOwnershipResource
from cards.brands import BrandTable
from cards.models import BrandOwnership, Slogan, SloganCard
from cards.option_checks import CardSides, OptionFinding, Side, year_of
from cards.option_findings import (
    OptionDismissals,
    dismiss,
    english_texts,
    findings_of,
    load_cards,
)
from cards.text import ascii_number, reason_too_long
from curation.safe_import import SafeImportMixin
from curation.typed_slogans import typed_slogans
from curation.write_checks import WriteChecks


class OwnershipFilter(admin.SimpleListFilter):
    """Whether an ownership holds today (no end year) or has ended."""

    title = "ownership"
    parameter_name = "ownership"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("current", "Current (no end year)"), ("ended", "Ended")]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        if self.value() == "current":
            return queryset.filter(until__isnull=True)
        if self.value() == "ended":
            return queryset.filter(until__isnull=False)
        return queryset


@admin.register(BrandOwnership)
class BrandOwnershipAdmin(SafeImportMixin, WriteChecks, ImportExportActionModelAdmin):
    # SafeImportMixin as on every importing admin (tests/test_import_admins.py): the upload
    # limit, the preview's file in its own folder and removed, nothing written from a bad file
    resource_classes = [BrandOwnershipResource]
    import_export_change_list_template = "admin/import_export/change_list_import_export.html"
    list_display = ("brand", "owner_group", "since", "until", "source")
    # ~1,200 groups are too many for a filter list: the search finds a group, and each row's
    # group links to that group's brands.
    list_filter = (OwnershipFilter,)
    search_fields = ("brand", "group")
    search_help_text = "Search brands and company groups (e.g. Ferrero, Mars, Unilever)."
    list_per_page = 100

    @admin.display(description="group", ordering="group")
    def owner_group(self, row: BrandOwnership):  # type: ignore[no-untyped-def]
        url = f"{reverse('admin:cards_brandownership_changelist')}?{urlencode({'group': row.group})}"
        return format_html('<a href="{}" title="Only the brands of {}">{}</a>', url, row.group,
                           row.group)


def card_findings_context(card: SloganCard) -> list[dict[str, Any]]:
    """The option checks' findings on one stored card, as the change page lists them."""
    cards = load_cards([card.pk])
    if card.pk not in cards:
        return []
    found = findings_of(cards[card.pk], BrandTable.load(), OptionDismissals.load())
    return [_entry(f, reason, saved=True) for f, reason in found]


def _entry(finding: OptionFinding, reason: str | None, *, saved: bool) -> dict[str, Any]:
    """One finding as the page lists it; ``saved``: open on the stored card too, so its
    dismiss page finds it (a finding only typed is dismissed after saving)."""
    return {"finding": finding, "reason": reason, "saved": saved,
            "ident": f"{finding.slogan}|{finding.field}|{finding.check}"}


def typed_card_sides(post: Any, card: SloganCard | None) -> CardSides:
    """The card's sides as the change form holds them (``post``), as the checks read them:
    a side without its text, four options and the correct one is left out, as it is of
    the stored catalogue (the form's own validation speaks for it)."""
    typed = typed_slogans(post, card)
    english = english_texts([s.stored.pk for s in typed if s.stored is not None])
    sides = {}
    for slogan in typed:
        options = [text.strip() for text, _correct in slogan.options]
        if slogan.text.strip() and all(options) and slogan.correct:
            sides[slogan.side] = Side(
                slogan.key, slogan.text.strip(), options, slogan.correct,
                english.get(slogan.stored.pk, "") if slogan.stored is not None else "",
                year_of(slogan.source))
    return CardSides(card.key if card is not None else "", dict(sorted(sides.items())))


def typed_findings_context(post: Any, card: SloganCard | None) -> tuple[int, list[dict[str, Any]]]:
    """(how many sides were checked, the findings) of the card as typed, with the reasons
    of the dismissals that still hold for the typed texts."""
    sides = typed_card_sides(post, card)
    table, dismissals = BrandTable.load(), OptionDismissals.load()
    stored = load_cards([card.pk]).get(card.pk) if card is not None else None
    on_stored = set()
    if stored is not None:
        stored_texts = {s.key: s.text for s in stored.sides.values()}
        on_stored = {(f, stored_texts[f.slogan]) for f, reason in findings_of(stored, table, dismissals)
                     if reason is None}
    texts = {s.key: s.text for s in sides.sides.values()}
    return len(sides.sides), [_entry(f, reason, saved=(f, texts[f.slogan]) in on_stored)
                              for f, reason in findings_of(sides, table, dismissals)]


def dismiss_option_view(model_admin: admin.ModelAdmin, request: HttpRequest,
                        object_id: str) -> HttpResponse:
    """Dismiss one option check's finding on a card, with a reason (who and when kept)."""
    card = SloganCard.objects.filter(pk=object_id).first() if ascii_number(object_id) else None
    if card is None:
        raise Http404("No such slogan card.")
    if not model_admin.has_view_permission(request, card):
        raise PermissionDenied
    if request.method == "POST" and not model_admin.has_change_permission(request, card):
        raise PermissionDenied  # before anything else: a refused write learns nothing
    back = reverse("admin:cards_slogancard_change", args=[card.pk])
    ident = request.POST.get("finding") or request.GET.get("finding", "")
    entry = next((e for e in card_findings_context(card) if e["ident"] == ident), None)
    if entry is None or entry["reason"] is not None:
        messages.info(request, "Nothing to dismiss: that finding is not open on this card.")
        return HttpResponseRedirect(back)
    finding = entry["finding"]
    error = ""
    if request.method == "POST":
        reason = request.POST.get("reason", "").strip()
        if not reason:
            error = "Say why the finding is fine for this card."
        elif reason_too_long(reason):
            error = reason_too_long(reason) or ""
        else:
            slogan = Slogan.objects.get(key=finding.slogan)
            dismiss(slogan, finding, reason, request.user)
            messages.success(request, f"Dismissed “{finding.title}” on {finding.slogan} "
                                      f"{finding.field}; it opens again when the slogan or the "
                                      "option changes.")
            return HttpResponseRedirect(back)
    context = {
        **model_admin.admin_site.each_context(request), "opts": SloganCard._meta,
        "title": f"Dismiss a check on {card.key}", "card": card, "finding": finding,
        "ident": ident, "back": back, "error": error,
        "may_dismiss": model_admin.has_change_permission(request, card),
        "reason": request.POST.get("reason", ""),
    }
    return TemplateResponse(request, "admin/cards/dismiss_option.html", context)


class OptionFindingsMixin:
    """Mixed into the slogan card admin: the findings above the form, and the dismiss page."""

    change_form_template = "admin/cards/slogancard_change_form.html"

    def get_urls(self):  # type: ignore[no-untyped-def]
        site = self.admin_site  # type: ignore[attr-defined]
        view = site.admin_view(lambda request, object_id: dismiss_option_view(self, request, object_id))
        return [path("<path:object_id>/dismiss-option-check/", view,
                     name="cards_slogancard_dismiss_option"), *super().get_urls()]  # type: ignore[misc]

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):  # type: ignore[no-untyped-def]
        # A saved card's page lists the stored card's findings; a refused save's, the typed
        # card's (the live preview's answer redraws them as the curator types).
        card = SloganCard.objects.filter(pk=obj.pk).first() if obj is not None and obj.pk else None
        if request.method == "POST":
            checked, entries = typed_findings_context(request.POST, card)
            context["option_findings_checked"] = checked > 0
            context["option_findings"] = entries
        elif card is not None:
            context["option_findings_checked"] = True
            context["option_findings"] = card_findings_context(card)
        context["may_dismiss_options"] = card is not None and self.has_change_permission(request, card)  # type: ignore[attr-defined]
        return super().render_change_form(request, context, add, change, form_url, obj)  # type: ignore[misc]

    def typed_extras(self, request: HttpRequest, obj: Any) -> dict[str, Any]:
        """The live preview's answer carries the answer checks of the card as typed."""
        card = obj if isinstance(obj, SloganCard) else None
        may_dismiss = card is not None and self.has_change_permission(request, card)  # type: ignore[attr-defined]
        checked, entries = typed_findings_context(request.POST, card)
        findings = []
        for entry in entries:
            f = entry["finding"]
            dismiss_url = ""
            if may_dismiss and entry["saved"] and entry["reason"] is None:
                dismiss_url = (reverse("admin:cards_slogancard_dismiss_option", args=[card.pk])  # type: ignore[union-attr]
                               + "?" + urlencode({"finding": entry["ident"]}))
            findings.append({"title": f.title, "slogan": f.slogan, "field": f.field,
                             "message": f.message, "reason": entry["reason"] or "",
                             "dismiss_url": dismiss_url,
                             # open on the typed card only: dismissed once it is saved
                             "unsaved": (not entry["saved"] and entry["reason"] is None
                                         and (may_dismiss or card is None))})
        return {"answer_checks": {"checked": checked, "findings": findings}}
