"""The admins of Slogan: slogan cards with their two slogans and four answer options each
edited as one unit, slogans with their markets, and Alfons cards.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from cards import resources
from cards.concurrency import VersionedInlineMixin
from cards.models import (
    AlfonsCard,
    Slogan,
    SloganCard,
    SloganOption,
    cards_in_market,
    describe_market,
    market_codes_allowed,
    market_list,
    option_problems,
)
from cards.resources import write_options
from cards.text import normalise, validate_clean_text
from cards.validation import validate_unit
from curation.brand_admin import OptionFindingsMixin
from curation.content_admin import ContentAdmin, TranslationInline
from curation.filters import SentenceChoicesFilter, market_label
from curation.key_errors import TakenKeyFormMixin
from curation.play_stats import PlayDifficultyMixin

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
        require_source(form.base_fields)
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


def require_source(fields: dict[str, forms.Field]) -> None:
    """A slogan saved in the admin names where it is documented (every slogan of the
    catalogue does, README: Where each line is attested); an empty source is refused."""
    source = fields.get("source")
    if source is not None:
        source.required = True
        source.help_text = ("Where the slogan is documented: the advertiser and year, and a page "
                            "that quotes it (required).")


class SloganUnitForm(TakenKeyFormMixin, forms.ModelForm):
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
        require_source(self.fields)
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
