"""What a release will change: per game and language, the cards added, removed and changed
since the previous release, each changed card field by field (old → new), with counts.

``exports.deltas.make_delta`` already finds, per keyed list of the pack body (cards, symbols,
colours, Alfons cards…), the removed keys, the changed objects and the added ones; this module
turns that into what a curator reads before publishing: readable field names ("slogan 2 ›
option 3 › text (en)"), old and new values, pictures by their sha256, in a fixed order.

The result is plain JSON (``format_version`` 1): the publish page shows it, and ``publish``
stores it with the release (``Release.changes``), so every release keeps what it changed.

    {"format_version": 1, "game": …, "language": …, "since": N | None,
     "counts": {"added": a, "removed": r, "changed": c},
     "lists": [{"list": "cards", "one": "object", "many": "objects",
                "counts": {…}, "reordered": bool,
                "added": [{"key", "title"}], "removed": [{"key", "title"}],
                "changed": [{"key", "title", "fields": [{"field", "label", "old", "new"}]}]}],
     "other": [{"field", "label", "old", "new"}]}

``other`` holds what is not a card: a pack field outside the keyed lists (none today).
What publishing now would release (``exports.packs.pending``) compares the draft with the
newest release through :func:`pack_changes`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from exports.deltas import make_delta

if TYPE_CHECKING:
    pass

FORMAT_VERSION = 1

# (game, list of the pack body) -> (one, many): what a curator calls its entries, in the
# order the page shows them (the game's cards first).
LISTS: dict[tuple[str, str], tuple[str, str]] = {
    ("symbols", "concepts"): ("concept card", "concept cards"),
    ("symbols", "symbols"): ("symbol tile", "symbol tiles"),
    ("sign", "cards"): ("Sign card", "Sign cards"),
    ("sign", "symbols"): ("Sign symbol", "Sign symbols"),
    ("sign", "colours"): ("colour", "colours"),
    ("slogan", "cards"): ("slogan card", "slogan cards"),
    ("slogan", "alfons"): ("Alfons card", "Alfons cards"),
    ("sauschwer", "cards"): ("object", "objects"),
}

# A pack field's name as the admin calls it, and its place among a card's fields.
FIELDS: dict[str, str] = {
    "key": "key", "text": "text", "name": "name", "status": "translation state",
    "source_text": "German source", "markets": "markets", "options": "options",
    "correct": "correct answer", "effect": "effect", "kind": "kind", "amount": "amount",
    "target": "target", "weight_g": "weight (g)", "weight_source": "weight source",
    "symbol": "symbol", "colour": "colour", "hex": "colour value", "mark": "mark",
    "icon": "icon", "extra": "extra tile", "position": "position", "picture": "picture",
    "width": "width", "height": "height", "media_type": "file type", "source": "source",
    "licence": "licence", "url": "address",
}
RANK = {name: rank for rank, name in enumerate(FIELDS)}
TRANSLATED = frozenset({"text", "name"})  # the fields that hold the pack language's text
ITEM = {"slogans": "slogan", "options": "option"}  # a nested list's entries, numbered from 1
TOP_LEVEL_IGNORED = frozenset({"content_version", "sha256", "body"})  # differ on every release


def _flatten(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """(path, value) for every leaf of a card. A picture is its sha256 (plus its size and
    credits); a nested list of objects is numbered from 1, as the admin numbers options."""
    if isinstance(value, dict):
        if path and path[-1] == "picture":
            yield path, value.get("sha256")
            for name in ("width", "height", "media_type", "source", "licence", "url"):
                if name in value:
                    yield (*path, name), value[name]
            return  # embedded bytes ("data") are the sha256 again
        for name, item in value.items():
            yield from _flatten(item, (*path, name))
    elif isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
        for index, item in enumerate(value, start=1):
            yield from _flatten(item, (*path, index))
    else:
        yield path, value


def _order(path: tuple[str | int, ...]) -> tuple[tuple[int, int | str], ...]:
    return tuple((step, "") if isinstance(step, int) else (RANK.get(step, len(RANK)), step)
                 for step in path)  # type: ignore[misc]


def field_label(path: tuple[str | int, ...], language: str, source_language: str) -> str:
    """"slogan 2 › option 3 › text (en)": a path of the pack in the admin's words."""
    parts: list[str] = []
    for i, step in enumerate(path):
        if isinstance(step, int):
            parent = path[i - 1] if i else ""
            parts[-1] = f"{ITEM.get(str(parent), str(parent))} {step}"
        else:
            label = FIELDS.get(step, step.replace("_", " "))
            if step in TRANSLATED and language != source_language and i == len(path) - 1:
                label = f"{label} ({language})"
            parts.append(label)
    return " › ".join(parts)


def _dotted(path: tuple[str | int, ...]) -> str:
    return ".".join(str(step) for step in path)


def field_changes(old: dict[str, Any], new: dict[str, Any], *, language: str,
                  source_language: str) -> list[dict[str, Any]]:
    """Every field of one card that differs, old → new (a field only one side has: None)."""
    before, after = dict(_flatten(old)), dict(_flatten(new))
    paths = sorted(set(before) | set(after), key=_order)
    changed = [p for p in paths if p != ("key",) and (p not in before or p not in after
                                                      or before[p] != after[p])]
    # A picture's address is made of its sha256: listed only when the sha256 did not change.
    changed = [p for p in changed if not (p and p[-1] == "url" and p[:-1] in changed)]
    return [{"field": _dotted(p), "label": field_label(p, language, source_language),
             "old": before.get(p), "new": after.get(p)} for p in changed]


def title(item: dict[str, Any]) -> str:
    """What a card says, for a list of keys a curator can read."""
    for name in ("text", "name"):
        if isinstance(item.get(name), str):
            return str(item[name])
    slogans = item.get("slogans")
    if isinstance(slogans, list):
        return " / ".join(str(s.get("text", "")) for s in slogans if isinstance(s, dict))
    if "symbol" in item and "colour" in item:
        return f"{item['symbol']} · {item['colour']}"
    return str(item.get("key", ""))


def _counts(added: int, removed: int, changed: int) -> dict[str, int]:
    return {"added": added, "removed": removed, "changed": changed}


def _list_names(game: str, old_body: dict[str, Any], new_body: dict[str, Any]) -> list[str]:
    known = [name for (g, name) in LISTS if g == game and name in new_body]
    return known + sorted(name for name in new_body if name not in known)


def pack_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """What ``new`` changes against ``old`` (the previous release; None: there is none).

    Both are parsed packs of one game and language; ``new`` may be the draft."""
    game, language = new["game"], new["language"]
    source_language = new.get("source_language", language)
    since = old.get("content_version") if old is not None else None
    new_body = new["body"]
    old_body = old["body"] if old is not None else {}
    # The delta sees only the fields the new pack has (a field that went away is reported
    # below); a list the old pack lacks counts as empty, so every entry in it is added.
    base = {**(old or new), "body": {name: old_body.get(name, []) if isinstance(value, list)
                                     else old_body.get(name)
                                     for name, value in new_body.items()}}
    delta = make_delta(base, new, to_sha256=new["sha256"], from_sha256=base.get("sha256", ""))
    lists, other = [], []
    totals = [0, 0, 0]
    for name in _list_names(game, old_body, new_body):
        if name in delta.get("body_set", {}):  # not a list of cards: shown whole
            other.append({"field": name, "label": FIELDS.get(name, name),
                          "old": old_body.get(name), "new": new_body[name]})
            continue
        if not isinstance(new_body[name], list) or not all(
                isinstance(i, dict) and "key" in i for i in new_body[name]):
            continue  # unchanged, and not a list of cards
        change = delta.get("lists", {}).get(name, {})
        before = {item["key"]: item for item in base["body"][name]}
        after = {item["key"]: item for item in new_body[name]}
        added = [{"key": e["item"]["key"], "title": title(e["item"])}
                 for e in change.get("added", [])]
        removed = [{"key": key, "title": title(before[key])} for key in change.get("removed", [])]
        changed = [{"key": item["key"], "title": title(after[item["key"]]),
                    "fields": field_changes(before[item["key"]], after[item["key"]],
                                            language=language, source_language=source_language)}
                   for item in change.get("changed", [])]
        one, many = LISTS.get((game, name), (name, name))
        lists.append({"list": name, "one": one, "many": many,
                      "counts": _counts(len(added), len(removed), len(changed)),
                      "reordered": old is not None and "order" in change,
                      "added": added, "removed": removed, "changed": changed})
        totals = [totals[0] + len(added), totals[1] + len(removed), totals[2] + len(changed)]
    for name in sorted(set(old_body) - set(new_body)):
        other.append({"field": name, "label": FIELDS.get(name, name), "old": old_body[name],
                      "new": None})
    if old is not None:
        for name in sorted(delta.get("set", {})):
            if name not in TOP_LEVEL_IGNORED:
                other.append({"field": name, "label": name.replace("_", " "),
                              "old": old.get(name), "new": new[name]})
    return {"format_version": FORMAT_VERSION, "game": game, "language": language,
            "since": since, "counts": _counts(*totals), "lists": lists, "other": other}


def is_empty(changes: dict[str, Any]) -> bool:
    """Nothing to publish: no card added, removed or changed, no order or other field moved."""
    return (not any(changes["counts"].values()) and not changes["other"]
            and not any(entry["reordered"] for entry in changes["lists"]))


def summary(changes: dict[str, Any] | None) -> str:
    """One line: "2 added, 1 removed, 3 changed since release 4"."""
    if changes is None:
        return "not recorded (published before releases kept their changes)"
    counts = changes["counts"]
    since = changes.get("since")
    text = ", ".join(f"{counts[k]} {k}" for k in ("added", "removed", "changed"))
    if since is None:
        return f"first release: {text}"
    reordered = [e["many"] for e in changes["lists"] if e["reordered"]]
    extra = f"; new order of {', '.join(reordered)}" if reordered else ""
    return f"{text} since release {since}{extra}"


def short_summary(changes: dict[str, Any] | None) -> str:
    """For a list column: "1 added, 2 changed since v4", counts of zero left out."""
    if changes is None:
        return "not recorded"
    counts = changes["counts"]
    text = ", ".join(f"{counts[k]} {k}" for k in ("added", "removed", "changed") if counts[k])
    if changes.get("since") is None:
        return f"first release: {text or 'empty'}"
    return f"{text or 'no card changed'} since v{changes['since']}"


def shown(value: Any) -> str:
    """A pack value as the page shows it."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(shown(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {shown(v)}" for k, v in sorted(value.items()))
    return str(value)


def changed_cards(changes: dict[str, Any]) -> list[dict[str, Any]]:
    """{game, language, key, previous_version} of every changed card: what the visual diff
    (old release beside the current preview) needs."""
    return [{"game": changes["game"], "language": changes["language"], "key": item["key"],
             "previous_version": changes["since"], "list": entry["list"]}
            for entry in changes["lists"] for item in entry["changed"]]


def untranslated(pack: dict[str, Any]) -> list[dict[str, str]]:
    """Every text of a pack in another language that goes out in German because it has no
    translation yet ("fallback"; a slogan that stays German on purpose is not one), each with
    the list and the card it is on."""
    found: list[dict[str, str]] = []

    def walk(value: Any, list_name: str, key: str) -> None:
        if isinstance(value, dict):
            key = value.get("key", key) if isinstance(value.get("key"), str) else key
            if value.get("status") == "fallback":
                text = next((v for name, v in value.items()
                             if name not in ("status", "source_text", "key") and isinstance(v, str)), "")
                found.append({"list": list_name, "key": key, "text": text})
            for inner in value.values():
                if isinstance(inner, (dict, list)):
                    walk(inner, list_name, key)
        elif isinstance(value, list):
            for inner in value:
                walk(inner, list_name, key)

    for list_name, entries in sorted(pack.get("body", {}).items()):
        walk(entries, list_name, "")
    return found
