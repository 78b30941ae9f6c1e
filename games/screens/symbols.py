"""Sag's mit Symbolen: the board of eight concepts, the symbol tiles with their markers."""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.screens import Context, body, generic_event


def _catalogue(pack: dict[str, Any]) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    content = body(pack)
    concepts = {card["key"]: card["text"] for card in content.get("concepts", [])}
    symbols = {
        tile["key"]: {
            "name": tile.get("name", tile["key"]),
            "picture": (tile.get("picture") or {}).get("url"),
            "icon": tile.get("icon"),
        }
        for tile in content.get("symbols", [])
    }
    return concepts, symbols


def _icon(name: str | None) -> SafeString | None:
    """A tile without an uploaded picture is drawn from its Tabler icon, as in print."""
    from games.screens.sign import icon_svg

    svg = icon_svg(name) if name else None
    return mark_safe(svg) if svg else None


def marker_name(marker: str) -> str:
    return _("grey") if marker == "grey" else _("green")


def present(view: dict[str, Any], ctx: Context) -> dict[str, Any]:
    concepts, symbols = _catalogue(ctx.pack)
    you, phase = ctx.you, view.get("phase")
    secret = view.get("secret")
    slots = []
    for place in view.get("board", []):
        slot, key = place["slot"], place["concept"]
        slots.append({
            "slot": slot,
            "text": concepts.get(key, key) if key else None,
            "secret": secret == slot,
            "remove": ctx.actions.button(_("Remove"), "remove", type="remove", slot=slot),
            "guess": ctx.actions.button(_("This is it!"), "guess", type="guess", slot=slot),
            "replace": ctx.actions.button(_("Replace card"), "quiet", type="replace", slot=slot),
        })
    marked = {marker["symbol"]: marker for marker in view.get("markers", [])}
    tiles = []
    for key in view.get("symbols", []):
        marker = marked.get(key)
        tiles.append({
            "key": key,
            "name": symbols.get(key, {}).get("name", key),
            "picture": symbols.get(key, {}).get("picture"),
            "icon": _icon(symbols.get(key, {}).get("icon")),
            "marker": marker["marker"] if marker else None,
            "marker_name": marker_name(marker["marker"]) if marker else "",
            "marked_by": ctx.name(marker["player"]) if marker else "",
            "green": ctx.actions.find(type="hint", symbol=key, marker="green"),
            "grey": ctx.actions.find(type="hint", symbol=key, marker="grey"),
        })
    hinting = any(tile["green"] or tile["grey"] for tile in tiles)
    candidate, hint_giver = view.get("candidate"), view.get("hint_giver")
    if view.get("result"):
        turn = _("The game is over.")
    elif phase == "hint" and hint_giver == you:
        turn = _("Your turn: put a marker on a symbol that hints at the secret concept.")
    elif phase == "hint":
        turn = _("%(name)s gives a hint.") % {"name": ctx.plain_name(hint_giver)}
    elif phase == "decide" and candidate == you:
        turn = _("Your turn: remove a card you think is wrong, or name the secret concept.")
    else:
        turn = _("%(name)s (candidate) decides.") % {"name": ctx.plain_name(candidate)}
    if you == candidate:
        role = _("You are the candidate: find the secret concept from the hints.")
    elif you is not None:
        role = _("You give hints to %(name)s, the candidate.") % {"name": ctx.plain_name(candidate)}
    else:
        role = ""
    return {
        "template": "play/symbols/screen.html",
        "slots": slots,
        "tiles": tiles,
        "hinting": hinting,
        "replacing": any(s["replace"] for s in slots),
        "grey_choice": any(tile["grey"] for tile in tiles),
        "secret": secret,
        "secret_text": next((s["text"] for s in slots if s["secret"]), None),
        "turn": turn,
        "your_turn": (phase == "hint" and hint_giver == you) or (phase == "decide" and candidate == you),
        "role": role,
        "round": view.get("round"),
        "goal": view.get("goal"),
        "candidate": ctx.name(candidate),
        "hint_giver": ctx.name(hint_giver) if hint_giver else "",
        "markers_left": view.get("markers_left"),
        "grey_markers": view.get("grey_markers"),
        "grey_markers_left": view.get("grey_markers_left"),
        "concepts_left": view.get("concepts_left"),
        "scores": [
            {"seat": p, "name": ctx.plain_name(p), "score": view["scores"].get(p, 0),
             "you": p == you, "role": _("candidate") if p == candidate else ""}
            for p in view.get("players", [])
        ],
    }


def describe(event: dict[str, Any], ctx: Context) -> str:
    concepts, symbols = _catalogue(ctx.pack)
    kind = event.get("type")
    who = ctx.plain_name(event.get("player"))

    def concept(key: str | None) -> str:
        return concepts.get(key or "", key or "?")

    if kind == "round_started":
        return _("Round %(round)s: %(name)s is the candidate.") % {
            "round": event["round"], "name": ctx.plain_name(event["candidate"])}
    if kind == "hint":
        return _("%(name)s put a %(marker)s marker on %(symbol)s.") % {
            "name": who, "marker": marker_name(event["marker"]),
            "symbol": symbols.get(event["symbol"], {}).get("name", event["symbol"])}
    if kind == "removed":
        return _("%(name)s removed slot %(slot)s: %(concept)s.") % {
            "name": who, "slot": event["slot"], "concept": concept(event.get("card"))}
    if kind == "guessed":
        return _("%(name)s named slot %(slot)s: %(concept)s.") % {
            "name": who, "slot": event["slot"], "concept": concept(event.get("card"))}
    if kind == "replaced":
        return _("%(name)s replaced slot %(slot)s (%(old)s → %(new)s).") % {
            "name": who, "slot": event["slot"], "old": concept(event.get("card")),
            "new": concept(event.get("new"))}
    if kind == "scored":
        return "; ".join(
            _("%(name)s scores %(points)s.") % {"name": ctx.plain_name(p), "points": n}
            for p, n in event.get("points", {}).items())
    if kind == "round_ended":
        outcomes = {
            "right_solution": _("found"),
            "wrong_solution": _("missed"),
            "solution_removed": _("removed by mistake"),
            "last_card": _("left as the last card"),
        }
        points = ", ".join(f"{ctx.plain_name(p)} +{n}" for p, n in event.get("points", {}).items())
        line = _("The secret concept was slot %(slot)s, %(concept)s: %(outcome)s.") % {
            "slot": event.get("secret"), "concept": concept(event.get("solution")),
            "outcome": outcomes.get(event.get("outcome", ""), event.get("outcome", ""))}
        return f"{line} {points}" if points else line
    if kind == "game_ended":
        return _("The game is over.")
    return generic_event(event, ctx)
