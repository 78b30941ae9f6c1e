"""One card as a pack entry, for a preview: built from a saved object (or one carrying unsaved
values, with typed translations as ``overrides``), from a slogan card's two slogans, or taken
from a release's pack; and which game a card or an entry belongs to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db.models import Model

# --- pack-form items from the content tables --------------------------------------------------

# group -> (game, model name in the admin URL, label)
GROUPS: dict[str, tuple[str, str, str]] = {
    "concepts": ("symbols", "conceptcard", "concept card"),
    "tiles": ("symbols", "symboltile", "symbol tile"),
    "cards": ("sign", "signcard", "Sign card"),
    "slogans": ("slogan", "slogancard", "slogan card"),
    "alfons": ("slogan", "alfonscard", "Alfons card"),
    "objects": ("sauschwer", "sauschwerobject", "Sauschwer object"),
}
GAME_GROUPS: dict[str, tuple[str, ...]] = {
    "symbols": ("concepts", "tiles"), "sign": ("cards",), "slogan": ("slogans", "alfons"),
    "sauschwer": ("objects",),
}
# where each group's entries are in a pack's body
BODY_LIST = {"concepts": "concepts", "tiles": "symbols", "cards": "cards", "slogans": "cards",
             "alfons": "alfons", "objects": "cards"}
Overrides = Mapping[tuple[str, str], str]  # (field, language) -> text typed but not saved


def _text(obj: Model, field: str, language: str, overrides: Overrides | None = None,
          ) -> dict[str, str]:
    """{"text": what prints, "status": …} for one translatable field, as packs carry it."""
    source = (overrides or {}).get((field, "de"), getattr(obj, field) or "")
    if language == settings.KARTOTHEK_LANGUAGES[0]:
        return {"text": source, "status": "source"}
    if obj.keeps_source(field):  # type: ignore[attr-defined]
        return {"text": source, "status": "untranslated"}
    typed = (overrides or {}).get((field, language))
    if typed is not None and typed.strip():
        return {"text": typed, "status": "translated"}
    if typed is None and obj.pk:
        row = obj.translation(field, language)  # type: ignore[attr-defined]
        if row is not None and row.text:
            return {"text": row.text, "status": row.state}
    return {"text": source, "status": "fallback"}


def _picture(tile: Any) -> dict[str, Any] | None:
    sha = getattr(tile, "image_sha256", "")
    if not sha:
        return None
    return {"url": f"/api/pictures/{sha}.png", "sha256": sha, "media_type": "image/png",
            "width": tile.image_width, "height": tile.image_height, "source": "", "licence": ""}


def _sign_refs(symbol: Any, language: str, overrides: Overrides | None = None,
               typed_colour: Any = None) -> dict[str, Any]:
    """A Sign card's symbol and the deck's colours; ``typed_colour`` (a colour with unsaved
    values) stands in for the stored one, ``overrides`` apply to whichever was typed."""
    from cards.models import SignColour

    colours = []
    for stored in SignColour.objects.order_by("position", "key"):
        mine = typed_colour is not None and stored.pk == typed_colour.pk
        colour = typed_colour if mine else stored
        named = _text(colour, "name", language, overrides if mine else None)
        colours.append({"key": colour.key, "name": named["text"], "status": named["status"],
                        "hex": colour.hex, "mark": colour.mark, "position": colour.position})
    named = _text(symbol, "name", language, None if typed_colour is not None else overrides)
    return {"symbols": [{"key": symbol.key, "name": named["text"], "status": named["status"],
                         "icon": symbol.icon or None, "position": symbol.position}],
            "colours": colours}


SloganData = tuple[str, str, bool, list[tuple[str, bool]], Overrides]
# (key, German text, keep German, [(option text, correct)], translations typed) of one slogan


def _slogan_entry(key: str, source: str, keep: bool, options: list[tuple[str, bool]],
                  language: str, slogan: Any, option_rows: list[Any],
                  overrides: Overrides) -> dict[str, Any]:
    from cards.models import Slogan, SloganOption

    obj = slogan if slogan is not None else Slogan(text=source, keep_german=keep)
    obj.text, obj.keep_german = source, keep
    text = _text(obj, "text", language, overrides)
    entry_options = []
    for number, (option_text, correct) in enumerate(options, 1):
        row = option_rows[number - 1] if number - 1 < len(option_rows) else SloganOption()
        row.text = option_text
        typed = {("text", lang): value for (field, lang), value in overrides.items()
                 if field == f"option_{number}"}
        entry_options.append({**_text(row, "text", language, typed), "correct": bool(correct)})
    return {"key": key, **text, "markets": [], "options": entry_options}


def slogan_card_item(key: str, slogans: list[tuple[SloganData, Any]], language: str) -> dict[str, Any]:
    """The item of a slogan card from its two slogans' data (saved or typed)."""
    entries = []
    for (skey, source, keep, options, overrides), slogan in slogans:
        rows = list(slogan.options.order_by("position")) if slogan is not None and slogan.pk else []
        entries.append(_slogan_entry(skey, source, keep, options, language, slogan, rows,
                                     overrides))
    return {"group": "slogans", "entry": {"key": key, "slogans": entries}, "refs": {}}


def item_of(obj: Model, language: str, overrides: Overrides | None = None) -> dict[str, Any] | None:
    """The pack-form item of the card ``obj`` is or belongs to, in ``language``.

    ``obj`` may be unsaved (a form's data set on it); ``overrides`` are translations typed but
    not saved, by (field, language). A slogan or an option gives its slogan card, a Sign
    symbol or colour the first Sign card that uses it. None when there is no card to show.
    """
    from cards import models as m

    if isinstance(obj, m.ConceptCard):
        return {"group": "concepts", "entry": {"key": obj.key, **_text(obj, "text", language, overrides)},
                "refs": {}}
    if isinstance(obj, m.SymbolTile):
        named = _text(obj, "name", language, overrides)
        return {"group": "tiles", "entry": {
            "key": obj.key, "name": named["text"], "status": named["status"],
            "extra": bool(obj.is_extra), "position": obj.position, "icon": obj.icon or None,
            "picture": _picture(obj)}, "refs": {}}
    if isinstance(obj, m.SignCard):
        if obj.symbol_id is None or obj.colour_id is None:
            return None
        return {"group": "cards", "entry": {"key": obj.key, "symbol": obj.symbol.key,
                                            "colour": obj.colour.key},
                "refs": _sign_refs(obj.symbol, language)}
    if isinstance(obj, m.SignSymbol | m.SignColour):
        card = (m.SignCard.objects.filter(**{type(obj).__name__[4:].lower(): obj})
                .select_related("symbol", "colour").order_by("key").first()) if obj.pk else None
        if card is None:
            return None
        item = item_of(card, language)
        if item is not None:  # the typed (unsaved) symbol or colour, not the stored one
            if isinstance(obj, m.SignSymbol):
                item["refs"] = _sign_refs(obj, language, overrides)
            else:
                item["refs"] = _sign_refs(card.symbol, language, overrides, typed_colour=obj)
        return item
    if isinstance(obj, m.SloganCard):
        slogans = list(obj.slogans.order_by("side")) if obj.pk else []
        return slogan_card_item(obj.key, [(
            (s.key, s.text, s.keep_german,
             [(o.text, o.is_correct) for o in s.options.order_by("position")], {}), s)
            for s in slogans], language)
    if isinstance(obj, m.Slogan):
        if obj.card_id is None:
            return None
        slogans = []
        for s in obj.card.slogans.order_by("side"):
            mine = s.pk == obj.pk
            source = obj if mine else s
            slogans.append(((source.key, source.text, source.keep_german,
                             [(o.text, o.is_correct) for o in s.options.order_by("position")],
                             (overrides or {}) if mine else {}), source))
        return slogan_card_item(obj.card.key, slogans, language)
    if isinstance(obj, m.SloganOption):
        return item_of(obj.slogan, language) if obj.slogan_id else None
    if isinstance(obj, m.AlfonsCard):
        effect: dict[str, Any] = {"kind": obj.effect}
        if obj.amount is not None:
            effect["amount"] = obj.amount
        if obj.target:
            effect["target"] = obj.target
        return {"group": "alfons", "entry": {"key": obj.key, **_text(obj, "text", language, overrides),
                                             "effect": effect}, "refs": {}}
    if isinstance(obj, m.SauschwerObject):
        named = _text(obj, "name", language, overrides)
        return {"group": "objects", "entry": {
            "key": obj.key, "name": named["text"], "status": named["status"],
            "weight_g": obj.weight_g or 0, "weight_source": ""}, "refs": {}}
    return None


def game_of(obj_or_item: Model | Mapping[str, Any]) -> str:
    if isinstance(obj_or_item, Mapping):
        return GROUPS[obj_or_item["group"]][0]
    return str(obj_or_item.GAME)  # type: ignore[attr-defined]


def item_from_pack(pack: Mapping[str, Any], key: str, group: str | None = None) -> dict[str, Any] | None:
    """The item of the card ``key`` in a pack (a release's JSON); None when it has none."""
    body = pack["body"]
    for name in (group,) if group else GAME_GROUPS[pack["game"]]:
        entry = next((e for e in body.get(BODY_LIST[name], []) if e.get("key") == key), None)
        if entry is None:
            continue
        refs: dict[str, Any] = {}
        if name == "cards" and pack["game"] == "sign":
            refs = {"symbols": [s for s in body["symbols"] if s["key"] == entry["symbol"]],
                    "colours": body["colours"]}
        return {"group": name, "entry": entry, "refs": refs}
    return None
