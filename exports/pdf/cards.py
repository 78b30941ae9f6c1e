"""The cards of a pack, as the layouts see them: a key, a label for messages, and fields.

Only the pack is read (never the content tables). Cards are produced lazily, group by group,
so a deck of ten thousand cards is never held in memory twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from cards.weights import format_weight
from exports.pdf.options import Selection

MINUS = "\u2212"


@dataclass(frozen=True, slots=True)
class Card:
    key: str
    label: str                 # how messages name the card: "Sauschwer object ein-huehnerei"
    fields: dict[str, Any]


@dataclass(frozen=True)
class Group:
    name: str                  # concepts, tiles, cards, slogans, alfons, objects
    count: int
    cards: Callable[[], Iterator[Card]]
    texts: tuple[str, ...]     # the fields that hold text (for the glyph check)


def _signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else f"{MINUS}{-amount}"


def effect_badge(effect: dict[str, Any]) -> str:
    """A language-free reminder of a Spießer Alfons effect: '+2 ▶', '−3 ◀', '+4 ●'."""
    kind, amount = effect.get("kind"), effect.get("amount")
    if kind == "move" and amount:
        return f"{_signed(amount)} {'▶' if amount > 0 else '◀'}"
    if kind == "chips" and amount:
        return f"{_signed(amount)} ●"
    return ""


def _options(slogan: dict[str, Any]) -> list[tuple[str, bool]]:
    return [(o["text"], bool(o["correct"])) for o in slogan["options"]]


# kind of the selected objects -> (group, how to tell whether a card is selected)
SELECTION_KINDS: dict[str, tuple[str, Callable[[dict[str, Any], frozenset[str]], bool]]] = {
    "concept": ("concepts", lambda c, keys: c["key"] in keys),
    "tile": ("tiles", lambda c, keys: c["key"] in keys),
    "sign_card": ("cards", lambda c, keys: c["key"] in keys),
    "sign_symbol": ("cards", lambda c, keys: c["symbol"] in keys),
    "sign_colour": ("cards", lambda c, keys: c["colour"] in keys),
    "slogan_card": ("slogans", lambda c, keys: c["key"] in keys),
    "slogan": ("slogans", lambda c, keys: any(s["key"] in keys for s in c["slogans"])),
    "alfons": ("alfons", lambda c, keys: c["key"] in keys),
    "object": ("objects", lambda c, keys: c["key"] in keys),
}


def _selected(group: str, items: list[dict[str, Any]], selection: Selection | None) -> list[dict[str, Any]]:
    if selection is None:
        return items
    wanted_group, chosen = SELECTION_KINDS[selection.kind]
    if wanted_group != group:
        return []
    return [item for item in items if chosen(item, selection.keys)]


def groups_of(pack: dict[str, Any], selection: Selection | None = None) -> list[Group]:
    """The card groups of a pack, in print order, each with only the selected cards."""
    game, body, language = pack["game"], pack["body"], pack["language"]
    groups: list[Group] = []

    def add(name: str, items: list[dict[str, Any]], make: Callable[[dict[str, Any]], Card],
            texts: tuple[str, ...]) -> None:
        chosen = _selected(name, items, selection)
        if chosen:
            groups.append(Group(name, len(chosen), lambda: map(make, chosen), texts))

    if game == "symbols":
        add("concepts", body["concepts"],
            lambda c: Card(c["key"], f"concept card {c['key']}", {"text": c["text"]}), ("text",))
        add("tiles", body["symbols"],
            lambda s: Card(s["key"], f"symbol tile {s['key']}", {
                "name": s["name"], "picture": s.get("picture"), "icon": s.get("icon"),
                "extra_mark": "★" if s.get("extra") else ""}), ("name", "extra_mark"))
    elif game == "sign":
        symbols = {s["key"]: s for s in body["symbols"]}
        colours = {c["key"]: c for c in body["colours"]}

        def sign_card(c: dict[str, Any]) -> Card:
            symbol, colour = symbols[c["symbol"]], colours[c["colour"]]
            return Card(c["key"], f"Sign card {c['key']}", {
                "symbol_name": symbol["name"], "icon": symbol.get("icon"), "hex": colour["hex"],
                "mark": colour["mark"], "colour_name": colour["name"]})

        add("cards", body["cards"], sign_card, ("symbol_name", "mark", "colour_name"))
    elif game == "slogan":
        from exports.packs import check_complete

        check_complete(pack)  # a card without both slogans cannot be laid out

        def slogan_card(c: dict[str, Any]) -> Card:
            first, second = c["slogans"]
            return Card(c["key"], f"slogan card {c['key']}", {
                "slogan1": first["text"], "slogan2": second["text"],
                "options1": _options(first), "options2": _options(second)})

        add("slogans", body["cards"], slogan_card, ("slogan1", "slogan2", "options1", "options2"))
        add("alfons", body["alfons"],
            lambda a: Card(a["key"], f"Spießer Alfons card {a['key']}", {
                "text": a["text"], "effect_badge": effect_badge(a.get("effect", {}))}),
            ("text", "effect_badge"))
    elif game == "sauschwer":
        add("objects", body["cards"],
            lambda o: Card(o["key"], f"Sauschwer object {o['key']}", {
                "name": o["name"], "weight": format_weight(o["weight_g"], language)}),
            ("name", "weight"))
    else:
        raise ValueError(f"Unknown game '{game}'.")
    return groups


def text_values(value: Any) -> Iterator[str]:
    """The strings inside a field value (a text, or a slogan's options)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield item[0] if isinstance(item, tuple) else str(item)


def fallback_labels(pack: dict[str, Any]) -> list[str]:
    """Where the pack prints German because a translation is missing (status "fallback")."""
    found: list[str] = []
    game, body = pack["game"], pack["body"]

    def look(items: list[dict[str, Any]], label: str, text: str) -> None:
        for item in items:
            if item.get("status") == "fallback":
                found.append(f"{label} {item['key']} (“{item[text]}”)")

    if game == "symbols":
        look(body["concepts"], "concept card", "text")
        look(body["symbols"], "symbol tile", "name")
    elif game == "sign":
        look(body["symbols"], "Sign symbol", "name")
        look(body["colours"], "Sign colour", "name")
    elif game == "slogan":
        for card in body["cards"]:
            for slogan in card["slogans"]:
                if slogan.get("status") == "fallback":
                    found.append(f"slogan card {card['key']}: slogan {slogan['key']} (“{slogan['text']}”)")
                for n, option in enumerate(slogan["options"], 1):
                    if option.get("status") == "fallback":
                        found.append(f"slogan card {card['key']}: option {n} of {slogan['key']} "
                                     f"(“{option['text']}”)")
        look(body["alfons"], "Spießer Alfons card", "text")
    elif game == "sauschwer":
        look(body["cards"], "Sauschwer object", "name")
    return found
