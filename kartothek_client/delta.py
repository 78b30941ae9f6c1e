"""Applying a pack delta (``/api/packs/G/L/N..V.delta.json``): pure Python, no Django.

The pack is canonical JSON (sorted keys, no spaces, UTF-8), so a client that applies the
delta to the parsed release N and serialises canonically gets exactly the bytes of release
V; ``to_sha256`` in the delta says which bytes to expect.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

DELTA_FORMAT = "kartothek-pack-delta"


class DeltaError(Exception):
    """A delta does not apply to this pack, or the result is not the release it names."""


def edition_of(pack: Any) -> Any:
    """What a pack was built for, as the API path names it: its language, and for a pack of
    one market that market too ("en-GB": the UK Slogan deck)."""
    if not isinstance(pack, dict):
        return None
    market = pack.get("market")
    return f"{pack.get('language')}-{market}" if market else pack.get("language")


def canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def apply_list(old: list[dict[str, Any]], change: dict[str, Any]) -> list[dict[str, Any]]:
    """One keyed list (cards, symbols…) after the change: removed, changed, added, order."""
    items = {item["key"]: item for item in old}
    removed = set(change.get("removed", []))
    for key in removed:
        if key not in items:
            raise DeltaError(f"The delta removes '{key}', which the pack does not have.")
        del items[key]
    for item in change.get("changed", []):
        if item["key"] not in items:
            raise DeltaError(f"The delta changes '{item['key']}', which the pack does not have.")
        items[item["key"]] = _keep_picture_data(items[item["key"]], item)
    added = change.get("added", [])
    for entry in added:
        items[entry["item"]["key"]] = entry["item"]
    if "order" in change:
        try:
            return [items[key] for key in change["order"]]
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

    Raises DeltaError when the delta is not for this pack or the result's sha256 is not
    the delta's ``to_sha256``.
    """
    if delta.get("format") != DELTA_FORMAT:
        raise DeltaError("This is not a pack delta.")
    if (pack.get("game"), edition_of(pack), pack.get("content_version")) != (
            delta["game"], delta["language"], delta["from_version"]):
        raise DeltaError(f"The delta is from release {delta['from_version']} of "
                         f"{delta['game']} ({delta['language']}), not from this pack.")
    result = {k: v for k, v in pack.items() if k not in delta.get("unset", [])}
    result.update(delta.get("set", {}))
    body = dict(result["body"])  # a delta may replace the whole body through "set"
    body.update(delta.get("body_set", {}))
    for name, change in delta.get("lists", {}).items():
        body[name] = apply_list(body.get(name, []), change)
    result["body"] = body
    data = canonical(result)
    if hashlib.sha256(data).hexdigest() != delta["to_sha256"]:
        raise DeltaError("Applying the delta did not give the release it names (sha256 differs).")
    return data
