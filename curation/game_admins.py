"""The admins of Sag's mit Symbolen (concept cards, symbol tiles), Sign (symbols, colours,
cards) and Sauschwer (objects): ``ContentAdmin`` with each type's columns and forms.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Max
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from cards import resources
from cards.colour_vision import ColourSpec, colour_problems
from cards.models import (
    ConceptCard,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    SymbolTile,
)
from cards.pictures import tabler_icon_path
from cards.weights import WeightField, show_weight
from curation.content_admin import ContentAdmin
from curation.list_cells import cell_text
from curation.play_stats import PlayDifficultyMixin

# --- Sag's mit Symbolen ------------------------------------------------------------------


@admin.register(ConceptCard)
class ConceptCardAdmin(PlayDifficultyMixin, ContentAdmin):
    resource_classes = [resources.ConceptCardResource]
    list_display = ("text", "key", "play_difficulty")
    play_game = "symbols"
    search_fields = ("text", "key", "translations__text")
    fields = ("text", "key", "created_at", "updated_at")


class SuggestsNextPosition:
    """An add page suggests the next position after the highest one, so a new tile, symbol
    or colour goes to the end without looking the list up first (the curator may change it)."""

    model: Any

    def get_changeform_initial_data(self, request: HttpRequest) -> dict[str, Any]:
        initial = super().get_changeform_initial_data(request)  # type: ignore[misc]
        if "position" not in initial:
            highest = self.model._default_manager.aggregate(highest=Max("position"))["highest"]
            initial["position"] = (highest or 0) + 1
        return initial


@admin.register(SymbolTile)
class SymbolTileAdmin(SuggestsNextPosition, ContentAdmin):
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
        if tile.image and not tile.image._committed:
            # A refused save: the file chosen was not stored (the browser forgets it too).
            stored = SymbolTile.objects.filter(pk=tile.pk).first() if tile.pk else None
            shown = self.preview(stored) if stored is not None else ""
            return format_html(
                '{}<p class="tile-picture-unsaved" role="note">The picture you chose ({}) was '
                'not saved, because the form has errors: choose the file again before you '
                'save.</p>', shown, Path(tile.image.name).name)
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
class SignSymbolAdmin(SuggestsNextPosition, ContentAdmin):
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
class SignColourAdmin(SuggestsNextPosition, ContentAdmin):
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
        return cell_text(obj.source)

    @admin.display(description="weight", ordering="weight_g")
    def weight(self, obj: SauschwerObject) -> str:
        # Exact, as the form shows it (the card's rounded "1 kg" would hide 1.030 g).
        return show_weight(obj.weight_g)
