"""import_pack: a pack file back into the content tables (the backup and migration path).

A pack in the source language restores the game's cards into an installation that has none
of them. A pack in another language restores the cards the same way (its ``source_text``
fields hold the German) or, when the cards are already there with the same German texts,
adds that language's translations. Building the same game and language afterwards gives the
same bytes as the imported pack.
"""

from __future__ import annotations

import base64
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction

from cards.models import (
    AlfonsCard,
    ConceptCard,
    Content,
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
)
from cards.pictures import render_icon
from exports.errors import PackError
from exports.packs import sha256

GAME_MODELS: dict[str, tuple[type[Content], ...]] = {
    Game.SYMBOLS: (ConceptCard, SymbolTile),
    Game.SIGN: (SignSymbol, SignColour, SignCard),
    Game.SLOGAN: (SloganCard, Slogan, AlfonsCard),
    Game.SAUSCHWER: (SauschwerObject,),
}
TRANSLATED = {"approved", "translated", "needs_editing"}


class _Restorer:
    def __init__(self, pack: dict[str, Any]) -> None:
        self.pack = pack
        self.language = pack["language"]
        self.in_source = self.language == settings.KARTOTHEK_LANGUAGES[0]
        models = GAME_MODELS[pack["game"]]
        self.existing = any(m.objects.exists() for m in models)
        if self.existing and self.in_source:
            raise PackError(
                f"This installation already has {pack['game']} cards; a pack in the source "
                "language is imported into an installation without them."
            )
        self.created = 0
        self.translated = 0

    def source(self, entry: dict[str, Any], field: str) -> str:
        return entry[field] if self.in_source else entry.get("source_text", entry[field])

    def card(self, model: type[Content], key: str, entry: dict[str, Any], **fields: Any) -> Any:
        """Create a card, or (adding a language) find it and check its German is the same."""
        if self.existing:
            obj = model.objects.filter(key=key).first()
            if obj is None:
                raise PackError(f"{model._meta.verbose_name} '{key}' is not in this installation.")
            for name, value in fields.items():
                if name in model.TRANSLATABLE_FIELDS and getattr(obj, name) != value:
                    raise PackError(
                        f"{model._meta.verbose_name} '{key}': the pack was made from "
                        f"“{value}”, this installation has “{getattr(obj, name)}”."
                    )
            return obj
        obj = model(key=key, **fields)
        self.save(obj)
        return obj

    def save(self, obj: Any) -> None:
        try:
            obj.full_clean()
        except ValidationError as exc:
            raise PackError(f"{obj._meta.verbose_name} '{getattr(obj, 'key', obj)}': "
                            f"{' '.join(exc.messages)}") from None
        obj.save()
        self.created += 1

    def translate(self, obj: Translatable, field: str, entry: dict[str, Any], out: str) -> None:
        if self.in_source or entry["status"] not in TRANSLATED:
            return
        if Translation.objects.filter(
            content_type__model=obj._meta.model_name, object_id=obj.pk, field=field,
            language=self.language,
        ).exists():
            raise PackError(f"'{getattr(obj, 'key', obj)}' already has a {self.language} translation.")
        row = Translation(content_object=obj, field=field, language=self.language,
                          text=entry[out], state=entry["status"])
        self.save(row)
        self.created -= 1
        self.translated += 1

    # --- the games ---------------------------------------------------------------------

    def symbols(self, body: dict[str, Any]) -> None:
        for entry in body["concepts"]:
            concept = self.card(ConceptCard, entry["key"], entry, text=self.source(entry, "text"))
            self.translate(concept, "text", entry, "text")
        for entry in body["symbols"]:
            fields = {"name": self.source(entry, "name"), "is_extra": entry["extra"],
                      "position": entry["position"], "icon": entry["icon"] or ""}
            picture = entry.get("picture")
            if picture and not self.existing:
                fields["image"] = ContentFile(self.picture(entry), name=f"{entry['key']}.png")
                fields["image_source"] = picture["source"]
                fields["image_licence"] = picture["licence"]
            tile = self.card(SymbolTile, entry["key"], entry, **fields)
            self.translate(tile, "name", entry, "name")

    def picture(self, entry: dict[str, Any]) -> bytes:
        picture = entry["picture"]
        if "data" in picture:
            data = base64.b64decode(picture["data"])
        elif entry["icon"]:
            data = render_icon(entry["icon"])
        else:
            raise PackError(f"symbol '{entry['key']}': the pack holds no picture; use a pack "
                            "with embedded pictures.")
        if sha256(data) != picture["sha256"]:
            raise PackError(f"symbol '{entry['key']}': the picture does not match its sha256.")
        return data

    def sign(self, body: dict[str, Any]) -> None:
        symbols, colours = {}, {}
        for entry in body["symbols"]:
            symbols[entry["key"]] = self.card(
                SignSymbol, entry["key"], entry, name=self.source(entry, "name"),
                icon=entry["icon"] or "", position=entry["position"])
            self.translate(symbols[entry["key"]], "name", entry, "name")
        for entry in body["colours"]:
            colours[entry["key"]] = self.card(
                SignColour, entry["key"], entry, name=self.source(entry, "name"),
                hex=entry["hex"], mark=entry["mark"], position=entry["position"])
            self.translate(colours[entry["key"]], "name", entry, "name")
        for entry in body["cards"]:
            try:
                symbol, colour = symbols[entry["symbol"]], colours[entry["colour"]]
            except KeyError as exc:
                raise PackError(f"Sign card '{entry['key']}' names an unknown {exc}.") from None
            self.card(SignCard, entry["key"], entry, symbol=symbol, colour=colour)

    def slogan(self, body: dict[str, Any]) -> None:
        for card_entry in body["cards"]:
            card = self.card(SloganCard, card_entry["key"], card_entry)
            for side, entry in enumerate(card_entry["slogans"], start=1):
                slogan = self.card(
                    Slogan, entry["key"], entry, card=card, side=side,
                    text=self.source(entry, "text"), keep_german=entry["status"] == "untranslated",
                    markets=",".join(entry.get("markets") or [self.language]))
                if self.existing and entry["status"] == "untranslated" and not slogan.keep_german:
                    slogan.keep_german = True  # a pack in the source language cannot say so
                    slogan.save(update_fields=["keep_german"])
                self.translate(slogan, "text", entry, "text")
                for position, option_entry in enumerate(entry["options"], start=1):
                    option = (
                        SloganOption.objects.get(slogan=slogan, position=position)
                        if self.existing else None
                    )
                    if option is None:
                        option = SloganOption(slogan=slogan, position=position,
                                              text=self.source(option_entry, "text"),
                                              is_correct=option_entry["correct"])
                        self.save(option)
                    self.translate(option, "text", option_entry, "text")
        for entry in body["alfons"]:
            effect = entry["effect"]
            card = self.card(AlfonsCard, entry["key"], entry, text=self.source(entry, "text"),
                             effect=effect["kind"], amount=effect.get("amount"),
                             target=effect.get("target", ""))
            self.translate(card, "text", entry, "text")

    def sauschwer(self, body: dict[str, Any]) -> None:
        for entry in body["cards"]:
            obj = self.card(SauschwerObject, entry["key"], entry, name=self.source(entry, "name"),
                            weight_g=entry["weight_g"], source=entry["weight_source"])
            self.translate(obj, "name", entry, "name")


def import_pack(pack: dict[str, Any]) -> tuple[int, int]:
    """Restore a (schema-checked) pack; returns (cards created, translations added)."""
    if pack["language"] not in settings.KARTOTHEK_LANGUAGES:
        raise PackError(f"'{pack['language']}' is not a configured language.")
    with transaction.atomic():
        restorer = _Restorer(pack)
        getattr(restorer, pack["game"])(pack["body"])
    return restorer.created, restorer.translated
