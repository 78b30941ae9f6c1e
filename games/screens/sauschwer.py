"""Sauschwer: the beam scale with Helmut the pig, the hands, "Stop!" and the secret markers."""

from __future__ import annotations

from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from games.screens import Context, body, generic_event

SIDES = ("red", "violet")


def side_name(side: str | None) -> str:
    return {"red": _("red"), "violet": _("violet")}.get(side or "", "—")


def weight(grams: int) -> str:
    if grams >= 1_000_000:
        return f"{number_format(grams / 1_000_000, 1)} t".replace(",0 t", " t").replace(".0 t", " t")
    if grams >= 1000:
        return f"{number_format(grams / 1000, 1)} kg".replace(",0 kg", " kg").replace(".0 kg", " kg")
    return f"{grams} g"


def _names(pack: dict[str, Any]) -> dict[str, str]:
    return {card["key"]: card.get("name", card["key"]) for card in body(pack).get("cards", [])}


def _last_reveal(view: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    names = _names(ctx.pack)
    # Where each card lay: the log's opening and placing events name its side.
    sides = {event["card"]: event["side"] for event in view.get("log") or []
             if isinstance(event.get("card"), str) and event.get("side") in SIDES}
    for event in reversed(view.get("log") or []):
        if event.get("type") == "revealed":
            totals = event.get("totals", {})
            return {
                "round": event.get("round"),
                "cards": [{"name": names.get(k, k), "weight": weight(g), "side": sides.get(k),
                           "side_name": side_name(sides.get(k)) if sides.get(k) else None}
                          for k, g in event.get("weights", {}).items()],
                "red": weight(totals.get("red", 0)),
                "violet": weight(totals.get("violet", 0)),
                "heavier": side_name(event.get("heavier")) if event.get("heavier") else None,
                "markers": [{"name": ctx.plain_name(p), "side": s, "side_name": side_name(s)}
                            for p, s in event.get("markers", {}).items()],
                "points": [f"{ctx.plain_name(p)} {n:+d}" for p, n in event.get("points", {}).items()],
            }
    return None


def present(view: dict[str, Any], ctx: Context) -> dict[str, Any]:
    you, phase = ctx.you, view.get("phase")
    helmut = view.get("helmut")
    scale = {side: [c["name"] for c in view.get("scale", []) if c["side"] == side] for side in SIDES}
    target_side = "violet" if helmut == "red" else "red"
    hands = view.get("hands", {})
    your_hand = []
    for card in hands.get(you, []) if you else []:
        your_hand.append({
            "name": card["name"],
            "buttons": [b for b in (
                ctx.actions.button(_("Helmut to %(side)s") % {"side": side_name(side)}, side,
                                   type="place", card=card["card"], helmut=side)
                for side in SIDES) if b],
        })
    stop = ctx.actions.button(_("Stop!"), "stop", type="stop")
    markers = [b for b in (ctx.actions.button(
        _("%(side)s is heavier") % {"side": side_name(side).capitalize()}, side,
        type="marker", side=side) for side in SIDES) if b]
    active, last_placer = view.get("active"), view.get("last_placer")
    if view.get("result") or phase == "over":
        turn = _("The game is over.")
    elif phase == "markers" and markers:
        turn = _("Show your marker in secret: which side is heavier?")
    elif phase == "markers":
        waiting = [ctx.plain_name(p) for p in view.get("players", []) if p not in view.get("markers_in", [])]
        turn = _("Waiting for the markers of %(names)s.") % {"names": ", ".join(waiting)}
    elif active == you:
        turn = _("Your turn: put a card on the %(side)s side and set Helmut on the side you think "
                 "heavier.") % {"side": side_name(target_side)}
    else:
        turn = _("%(name)s places a card.") % {"name": ctx.plain_name(active)}
    return {
        "template": "play/sauschwer/screen.html",
        "scale": [{"side": s, "name": side_name(s), "cards": scale[s], "helmut": helmut == s,
                   "heavy": len(scale[s])} for s in SIDES],
        "helmut": side_name(helmut),
        "tilt": helmut or "",
        "target_side": side_name(target_side),
        "your_hand": your_hand,
        "stop": stop,
        "markers": markers,
        "your_marker": side_name(view["your_marker"]) if view.get("your_marker") else None,
        "turn": turn,
        "your_turn": bool(your_hand and your_hand[0]["buttons"]) or bool(markers),
        "phase": phase,
        "round": view.get("round"),
        "rounds": view.get("rounds"),
        "target_points": view.get("target_points"),
        "max_cards": view.get("max_cards"),
        "on_scale": len(view.get("scale", [])),
        "pile": view.get("pile"),
        "doubter": ctx.name(view.get("doubter")) if view.get("doubter") else None,
        "last_placer": ctx.name(last_placer) if last_placer else None,
        "reveal": _last_reveal(view, ctx),
        "players": [
            {"name": ctx.plain_name(p), "score": view.get("scores", {}).get(p, 0), "you": p == you,
             "active": p == active, "hand": [c["name"] for c in hands.get(p, [])],
             "marker_in": p in view.get("markers_in", [])}
            for p in view.get("players", [])
        ],
    }


def describe(event: dict[str, Any], ctx: Context) -> str:
    names = _names(ctx.pack)
    kind = event.get("type")
    who = ctx.plain_name(event.get("player"))
    if kind == "dealt":
        return _("Everybody got three cards.")
    if kind == "round_started":
        return _("Round %(round)s: %(card)s opens on the %(side)s side; %(name)s begins.") % {
            "round": event["round"], "card": names.get(event["card"], event["card"]),
            "side": side_name(event["side"]), "name": ctx.plain_name(event.get("player"))}
    if kind == "placed":
        return _("%(name)s put %(card)s on %(side)s and Helmut on %(helmut)s.") % {
            "name": who, "card": names.get(event["card"], event["card"]),
            "side": side_name(event["side"]), "helmut": side_name(event["helmut"])}
    if kind == "stopped":
        return _("%(name)s called “Stop!”") % {"name": who}
    if kind == "reveal_called":
        return _("The placing is over: everybody shows a marker.")
    if kind == "marker_in":
        return _("%(name)s has chosen a marker.") % {"name": who}
    if kind == "revealed":
        totals = event.get("totals", {})
        heavier = event.get("heavier")
        line = _("Weighed: red %(red)s, violet %(violet)s — %(verdict)s.") % {
            "red": weight(totals.get("red", 0)), "violet": weight(totals.get("violet", 0)),
            "verdict": (_("%(side)s is heavier") % {"side": side_name(heavier)}) if heavier
            else _("equal")}
        points = ", ".join(f"{ctx.plain_name(p)} {n:+d}" for p, n in event.get("points", {}).items())
        return f"{line} {points}" if points else line
    if kind == "game_ended":
        return _("The game is over.")
    return generic_event(event, ctx)
