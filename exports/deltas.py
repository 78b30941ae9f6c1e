"""Deltas between two releases of one pack: what a client holding release N needs for V.

A delta names the top-level fields that changed (``set``/``unset``), the body fields that
are not keyed lists (``body_set``), and for every keyed list of the body (cards, symbols,
concepts, colours, alfons…: objects with a unique ``key``) the removed keys, the changed
objects whole, the added objects with their index in the new list, and the new order of
keys only when kept objects moved. ``kartothek_client.delta.apply_delta`` applies it; the
result is the canonical bytes of release V, checked against ``to_sha256``.

Pictures are referred to by sha256, so an unchanged picture is never in a delta; with
``?pictures=embedded`` only changed symbols, with their pictures, are.
The format is described in ``exports/schema/content-pack-delta.json``.
"""

from __future__ import annotations

from typing import Any

from kartothek_client.delta import DELTA_FORMAT, apply_delta, canonical

__all__ = ["DELTA_FORMAT", "MAX_SPAN", "apply_delta", "make_delta"]

MAX_SPAN = 50  # releases: a client further behind gets the full release instead


def _keyed(value: Any) -> bool:
    if not isinstance(value, list) or not all(isinstance(i, dict) and "key" in i for i in value):
        return False
    keys = [item["key"] for item in value]
    return len(set(keys)) == len(keys)


def _without_kept_picture(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """A changed object whose embedded picture did not change is sent without the bytes
    (the client keeps them: kartothek_client.delta._keep_picture_data)."""
    before, after = old.get("picture"), new.get("picture")
    if (isinstance(before, dict) and isinstance(after, dict) and "data" in after
            and before.get("data") == after["data"] and before.get("sha256") == after.get("sha256")):
        return {**new, "picture": {k: v for k, v in after.items() if k != "data"}}
    return new


def _list_change(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> dict[str, Any]:
    old_by_key = {item["key"]: item for item in old}
    new_keys = [item["key"] for item in new]
    new_set = set(new_keys)
    change: dict[str, Any] = {}
    removed = [item["key"] for item in old if item["key"] not in new_set]
    changed = [_without_kept_picture(old_by_key[item["key"]], item) for item in new
               if item["key"] in old_by_key
               and canonical(item) != canonical(old_by_key[item["key"]])]
    added = [{"index": i, "item": item} for i, item in enumerate(new)
             if item["key"] not in old_by_key]
    if removed:
        change["removed"] = removed
    if changed:
        change["changed"] = changed
    if added:
        change["added"] = added
    kept_old = [item["key"] for item in old if item["key"] in new_set]
    kept_new = [key for key in new_keys if key in old_by_key]
    if kept_old != kept_new:  # kept objects moved: inserting by index is not enough
        change["order"] = new_keys
    return change


def make_delta(old: dict[str, Any], new: dict[str, Any], *, to_sha256: str,
               from_sha256: str) -> dict[str, Any]:
    """The delta from pack ``old`` to pack ``new`` (both parsed releases of one pack)."""
    delta: dict[str, Any] = {
        "format": DELTA_FORMAT, "format_version": 1,
        # the edition, as the API path names it: "en-GB" for the UK Slogan pack
        "game": new["game"], "language": new["language"] + (
            f"-{new['market']}" if new.get("market") else ""),
        "from_version": old["content_version"], "to_version": new["content_version"],
        "from_sha256": from_sha256, "to_sha256": to_sha256,
    }
    top_set = {k: v for k, v in new.items()
               if k != "body" and (k not in old or canonical(old[k]) != canonical(v))}
    unset = sorted(k for k in old if k not in new)
    body_set: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    old_body, new_body = old["body"], new["body"]
    for name, value in new_body.items():
        before = old_body.get(name)
        if before is not None and _keyed(before) and _keyed(value):
            change = _list_change(before, value)
            if change:
                lists[name] = change
        elif before is None or canonical(before) != canonical(value):
            body_set[name] = value
    gone = [name for name in old_body if name not in new_body]
    if gone:  # a body field that went away: rare enough to resend the whole body
        top_set["body"] = new_body
        body_set, lists = {}, {}
    if top_set:
        delta["set"] = top_set
    if unset:
        delta["unset"] = unset
    if body_set:
        delta["body_set"] = body_set
    if lists:
        delta["lists"] = lists
    return delta
