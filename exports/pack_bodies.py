"""What each game's pack holds: its body built from the content model in one language (and,
for the slogan game, one edition), with a fixed number of queries whatever the catalogue's size.
``exports.packs.build_pack`` wraps a body in the pack's envelope.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType

from cards.models import (
    AlfonsCard,
    ConceptCard,
    Game,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SloganOption,
    SymbolTile,
    Translation,
    cards_in_market,
    in_edition,
    market_list,
)

# --- texts ------------------------------------------------------------------------------


class _Texts:
    """The translations of one content type in one language, loaded in one query."""

    def __init__(self, model: type, language: str) -> None:
        self.language = language
        self.rows: dict[tuple[int, str], tuple[str, str]] = {}
        if language != settings.KARTOTHEK_LANGUAGES[0]:
            content_type = ContentType.objects.get_for_model(model)
            for object_id, field, text, state in Translation.objects.filter(
                content_type=content_type, language=language
            ).exclude(text="").values_list("object_id", "field", "text", "state"):
                self.rows[(object_id, field)] = (text, state)

    def entry(self, pk: int, field: str, source: str, out_key: str, *, keep: bool = False,
              strict_missing: list[str] | None = None, label: str = "") -> dict[str, str]:
        """{out_key: text, "status": …, "source_text": German} for one text."""
        if self.language == settings.KARTOTHEK_LANGUAGES[0]:
            return {out_key: source, "status": "source"}
        if keep:
            return {out_key: source, "status": "untranslated", "source_text": source}
        row = self.rows.get((pk, field))
        if row is None:
            if strict_missing is not None:
                strict_missing.append(label)
            return {out_key: source, "status": "fallback", "source_text": source}
        text, state = row
        return {out_key: text, "status": state, "source_text": source}


# --- the four games -------------------------------------------------------------------------


def _picture(sha: str, width: int | None, height: int | None, source: str,
             licence: str) -> dict[str, Any]:
    return {
        "url": f"/api/pictures/{sha}.png", "sha256": sha, "media_type": "image/png",
        "width": width, "height": height, "source": source, "licence": licence,
    }


def _symbols_body(language: str, missing: list[str]) -> dict[str, Any]:
    concepts = _Texts(ConceptCard, language)
    tiles = _Texts(SymbolTile, language)
    return {
        "concepts": [
            {"key": key, **concepts.entry(pk, "text", text, "text", strict_missing=missing,
                                          label=f"concept {key}")}
            for pk, key, text in ConceptCard.objects.order_by("key").values_list("pk", "key", "text")
        ],
        "symbols": [
            {
                "key": key, **tiles.entry(pk, "name", name, "name", strict_missing=missing,
                                          label=f"symbol {key}"),
                "extra": extra, "position": position, "icon": icon or None,
                "picture": _picture(sha, width, height, source, licence) if sha else None,
            }
            for pk, key, name, extra, position, icon, sha, width, height, source, licence
            in SymbolTile.objects.order_by("position", "key").values_list(
                "pk", "key", "name", "is_extra", "position", "icon", "image_sha256",
                "image_width", "image_height", "image_source", "image_licence")
        ],
    }


def _sign_body(language: str, missing: list[str]) -> dict[str, Any]:
    symbols = _Texts(SignSymbol, language)
    colours = _Texts(SignColour, language)
    return {
        "symbols": [
            {"key": key, **symbols.entry(pk, "name", name, "name", strict_missing=missing,
                                         label=f"Sign symbol {key}"),
             "icon": icon or None, "position": position}
            for pk, key, name, icon, position in SignSymbol.objects.order_by(
                "position", "key").values_list("pk", "key", "name", "icon", "position")
        ],
        "colours": [
            {"key": key, **colours.entry(pk, "name", name, "name", strict_missing=missing,
                                         label=f"Sign colour {key}"),
             "hex": hex_, "mark": mark, "position": position}
            for pk, key, name, hex_, mark, position in SignColour.objects.order_by(
                "position", "key").values_list("pk", "key", "name", "hex", "mark", "position")
        ],
        "cards": [
            {"key": key, "symbol": symbol, "colour": colour}
            for key, symbol, colour in SignCard.objects.order_by(
                "symbol__position", "symbol__key", "colour__position", "colour__key"
            ).values_list("key", "symbol__key", "colour__key")
        ],
    }


def slogan_body(language: str, missing: list[str], edition: str | None = None) -> dict[str, Any]:
    edition = edition or language
    slogan_texts = _Texts(Slogan, language)
    option_texts = _Texts(SloganOption, language)
    alfons_texts = _Texts(AlfonsCard, language)
    options: dict[int, list[dict[str, Any]]] = {}
    for pk, slogan_id, text, correct in SloganOption.objects.order_by(
        "slogan_id", "position"
    ).values_list("pk", "slogan_id", "text", "is_correct"):
        options.setdefault(slogan_id, []).append(
            {**option_texts.entry(pk, "text", text, "text", strict_missing=missing,
                                  label=f"an option of slogan #{slogan_id}"),
             "correct": correct}
        )
    rows = list(Slogan.objects.order_by("card__key", "side").values_list(
        "pk", "card__key", "key", "text", "keep_german", "markets"
    ))
    # An edition is made of whole cards: a card is in the pack of a market (en-GB) only when
    # both its slogans are known there, and in the pack of a language (en) when they are known
    # in every market of it (a German-only slogan never reaches an English deck, a US-only one
    # never a UK deck).
    in_market = {card for card, shared in cards_in_market(
        [(card, markets) for _pk, card, _key, _text, _keep, markets in rows]
    ).items() if in_edition(shared, edition)}
    cards: dict[str, list[dict[str, Any]]] = {}
    for pk, card, key, text, keep, markets in rows:
        if card not in in_market:
            continue
        cards.setdefault(card, []).append({
            "key": key,
            **slogan_texts.entry(pk, "text", text, "text", keep=keep, strict_missing=missing,
                                 label=f"slogan {key}"),
            "markets": market_list(markets),
            "options": options.get(pk, []),
        })
    alfons = []
    for pk, key, text, effect, amount, target in AlfonsCard.objects.order_by("key").values_list(
        "pk", "key", "text", "effect", "amount", "target"
    ):
        data: dict[str, Any] = {"kind": effect}
        if amount is not None:
            data["amount"] = amount
        if target:
            data["target"] = target
        alfons.append({"key": key, **alfons_texts.entry(pk, "text", text, "text",
                                                       strict_missing=missing,
                                                       label=f"Alfons card {key}"),
                       "effect": data})
    return {
        "cards": [{"key": key, "slogans": slogans} for key, slogans in sorted(cards.items())],
        "alfons": alfons,
    }


def _sauschwer_body(language: str, missing: list[str]) -> dict[str, Any]:
    names = _Texts(SauschwerObject, language)
    return {
        "cards": [
            {"key": key, **names.entry(pk, "name", name, "name", strict_missing=missing,
                                       label=f"object {key}"),
             "weight_g": weight, "weight_source": source}
            for pk, key, name, weight, source in SauschwerObject.objects.order_by("key").values_list(
                "pk", "key", "name", "weight_g", "source")
        ],
    }


BODIES = {
    Game.SYMBOLS: _symbols_body,
    Game.SIGN: _sign_body,
    Game.SLOGAN: slogan_body,
    Game.SAUSCHWER: _sauschwer_body,
}
