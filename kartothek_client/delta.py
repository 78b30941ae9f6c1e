"""Applying a pack delta (``/api/packs/G/L/N..V.delta.json``): pure Python, no Django.

The pack is canonical JSON (sorted keys, no spaces, UTF-8), so a client that applies the
delta to the parsed release N and serialises canonically gets exactly the bytes of release
V; ``to_sha256`` in the delta says which bytes to expect.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from kartothek_client.errors import KartothekError

DELTA_FORMAT = "kartothek-pack-delta"


class DeltaError(KartothekError):
    """A delta does not apply to this pack, or the result is not the release it names. A
    delta of the wrong shape (a string where a list belongs, a key that is not a string…)
    is a DeltaError too, never a TypeError or KeyError."""


def edition_of(pack: Any) -> Any:
    """What a pack was built for, as the API path names it: its language, and for a pack of
    one market that market too ("en-GB": the UK Slogan deck)."""
    if not isinstance(pack, dict):
        return None
    market = pack.get("market")
    return f"{pack.get('language')}-{market}" if market else pack.get("language")


def canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DeltaError(f"The delta's {what} is not an object.")
    return value


def _keys(value: Any, what: str) -> list[str | int]:
    if not isinstance(value, list) or not all(_is_key(key) for key in value):
        raise DeltaError(f"The delta's {what} is not a list of keys.")
    return value


def _is_key(key: Any) -> bool:
    return isinstance(key, str) or (isinstance(key, int) and not isinstance(key, bool))


def _keyed_items(value: Any, what: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(
            isinstance(item, dict) and _is_key(item.get("key")) for item in value):
        raise DeltaError(f"{what} is not a list of objects with keys.")
    return value


def _added(value: Any, name: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(
            isinstance(entry, dict) and isinstance(entry.get("index"), int)
            and not isinstance(entry["index"], bool) and entry["index"] >= 0
            and isinstance(entry.get("item"), dict) and _is_key(entry["item"].get("key"))
            for entry in value):
        raise DeltaError(f"The delta's added objects of '{name}' are not indexed objects "
                         "with keys.")
    return value


def apply_list(old: list[dict[str, Any]], change: dict[str, Any],
               name: str = "list") -> list[dict[str, Any]]:
    """One keyed list (cards, symbols…) after the change: removed, changed, added, order."""
    old = _keyed_items(old, f"The pack's '{name}'")
    change = _mapping(change, f"change of '{name}'")
    items = {item["key"]: item for item in old}
    removed = set(_keys(change.get("removed", []), f"removed keys of '{name}'"))
    for key in removed:
        if key not in items:
            raise DeltaError(f"The delta removes '{key}', which the pack does not have.")
        del items[key]
    for item in _keyed_items(change.get("changed", []), f"The delta's changed '{name}'"):
        if item["key"] not in items:
            raise DeltaError(f"The delta changes '{item['key']}', which the pack does not have.")
        items[item["key"]] = _keep_picture_data(items[item["key"]], item)
    added = _added(change.get("added", []), name)
    for entry in added:
        items[entry["item"]["key"]] = entry["item"]
    if "order" in change:
        try:
            return [items[key] for key in _keys(change["order"], f"order of '{name}'")]
        except KeyError as exc:
            raise DeltaError(f"The delta's order names '{exc.args[0]}', which is nowhere.") from None
    result = [items[item["key"]] for item in old if item["key"] not in removed]
    for entry in sorted(added, key=lambda e: e["index"]):
        result.insert(entry["index"], entry["item"])
    return result


def _keep_picture_data(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """An unchanged embedded picture is not resent: a changed object's picture without
    ``data`` and with the old sha256 keeps the old object's picture bytes."""
    before, after = old.get("picture"), new.get("picture")
    if (isinstance(before, dict) and isinstance(after, dict) and "data" in before
            and "data" not in after and before.get("sha256") == after.get("sha256")):
        return {**new, "picture": {**after, "data": before["data"]}}
    return new


def apply_delta(pack: dict[str, Any], delta: dict[str, Any]) -> bytes:
    """The bytes of the delta's target release, made from the parsed source release.

    Raises DeltaError when the delta is not for this pack, is not of the delta's shape, or
    the result's sha256 is not the delta's ``to_sha256``.
    """
    if not isinstance(delta, dict) or delta.get("format") != DELTA_FORMAT:
        raise DeltaError("This is not a pack delta.")
    if not isinstance(pack, dict) or not isinstance(pack.get("body"), dict):
        raise DeltaError("The delta applies to a pack, and this is none.")
    source = (delta.get("game"), delta.get("language"), delta.get("from_version"))
    if (pack.get("game"), edition_of(pack), pack.get("content_version")) != source or not all(
            isinstance(part, str) for part in source[:2]):
        raise DeltaError("The delta is from another release or pack than this one.")
    to_sha256 = delta.get("to_sha256")
    if not isinstance(to_sha256, str):
        raise DeltaError("The delta names no to_sha256.")
    unset = set(_keys(delta.get("unset", []), "unset"))
    result = {k: v for k, v in pack.items() if k not in unset}
    result.update(_mapping(delta.get("set", {}), "set"))
    # a delta may replace the whole body through "set"
    body = dict(_mapping(result.get("body"), "body"))
    body.update(_mapping(delta.get("body_set", {}), "body_set"))
    for name, change in _mapping(delta.get("lists", {}), "lists").items():
        body[name] = apply_list(body.get(name, []), change, name)
    result["body"] = body
    try:
        data = canonical(result)
    except (RecursionError, ValueError, TypeError):  # nested deeper than JSON can be written
        raise DeltaError("The delta's values cannot be written as a pack.") from None
    if hashlib.sha256(data).hexdigest() != to_sha256:
        raise DeltaError("Applying the delta did not give the release it names (sha256 differs).")
    return data
