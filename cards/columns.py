"""The names and columns of each content type's file: what a catalogue file, an admin export
and an import call each kind of card, and the columns its resource reads and writes.
"""

from __future__ import annotations

import re

from cards.models import (
    AlfonsCard,
    BrandOwnership,
    ConceptCard,
    Content,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SymbolTile,
)

# --- which content --------------------------------------------------------------------------

_TYPE_NAME_LIST: tuple[tuple[type[Content], tuple[str, ...]], ...] = (
    (ConceptCard, ("concepts", "concept_cards", "concept_card", "conceptcard", "concept")),
    (SymbolTile, ("symbol_tiles", "symbol_tile", "symboltile", "tiles")),
    (SignSymbol, ("sign_symbols", "sign_symbol", "signsymbol")),
    (SignColour, ("sign_colours", "sign_colour", "signcolour", "sign_colors", "sign_color")),
    (SignCard, ("sign_cards", "sign_card", "signcard")),
    (Slogan, ("slogans", "slogan")),
    (AlfonsCard, ("alfons_cards", "alfons_card", "alfonscard", "alfons", "spiesser_alfons_cards",
                  "spiesser_alfons_card")),
    (
        SauschwerObject,
        ("objects", "sauschwer_objects", "sauschwer_object", "sauschwerobject", "sauschwer"),
    ),
    (BrandOwnership, ("brands", "brand_owners", "brand_owner", "brandownership"),),  # type: ignore[list-item]
)
#: Names a file, a sheet or a ``type_hint`` may use for a content type (after normalising).
TYPE_NAMES: dict[str, type[Content]] = {
    name: model for model, names in _TYPE_NAME_LIST for name in names
}
#: The canonical name of each content type (its catalogue file name).
TYPE_LABELS: dict[type[Content], str] = {model: names[0] for model, names in _TYPE_NAME_LIST}

_OPTIONS = ("option_1", "option_2", "option_3", "option_4")

#: Content type -> (required columns, columns that may be left out).
COLUMNS: dict[type[Content], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ConceptCard: (("key", "text"), ()),
    SymbolTile: (
        ("key", "name", "icon", "is_extra", "position"),
        ("picture", "image_source", "image_licence"),
    ),
    SignSymbol: (("key", "name", "icon", "position"), ()),
    SignColour: (("key", "name", "hex", "mark", "position"), ()),
    SignCard: (("key", "symbol", "colour"), ()),
    Slogan: (("card", "side", "key", "text", *_OPTIONS, "correct"), ("keep_german", "markets", "source")),
    AlfonsCard: (("key", "text", "effect", "amount", "target"), ()),
    SauschwerObject: (("key", "name", "weight_g", "source"), ()),
    # the Slogan option checks' owner table (cards/brands.py), matched on brand and since
    BrandOwnership: (("brand", "group", "since", "until", "source"), ()),  # type: ignore[dict-item]
}
TRANSLATION_COLUMNS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("key", "field", "language", "text"),
    ("state", "kind"),  # kind: the kind of card, as the admin's export names it per row
)


def normalise_type_name(name: str) -> str:
    """'Sauschwer Objects' / 'sauschwer-objects' / 'SauschwerObject' -> comparable form."""
    folded = name.strip().lower()
    for umlaut, ascii_form in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        folded = folded.replace(umlaut, ascii_form)
    return re.sub(r"[^a-z0-9]+", "_", folded).strip("_")


def type_from_name(name: str) -> type[Content] | None:
    """The content type a file, sheet or hint name stands for (``None`` when none)."""
    words = [w for w in normalise_type_name(name).split("_") if w]
    for length in range(len(words), 0, -1):
        for part in (words[:length], words[-length:]):
            model = TYPE_NAMES.get("_".join(part))
            if model is not None:
                return model
    return None
