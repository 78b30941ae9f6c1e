"""Sign: your hand, the table cards, the teams and a big "Sign!" per other player."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from games.screens import Context, body, generic_event

HAND_SIZE = 5


@lru_cache(maxsize=256)
def icon_svg(icon: str) -> str | None:
    """A Tabler outline icon's SVG (drawn in the card's colour through currentColor)."""
    from django.core.exceptions import ValidationError

    from cards.pictures import tabler_icon_path

    try:
        svg = tabler_icon_path(icon).read_text(encoding="utf-8")
    except (ValidationError, OSError):
        return None
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    # The picture is decoration: the card's name is written beside it for screen readers.
    return svg.replace("<svg ", '<svg aria-hidden="true" focusable="false" ', 1)


def _cards(pack: dict[str, Any]) -> dict[str, dict[str, Any]]:
    content = body(pack)
    symbols = {s["key"]: s for s in content.get("symbols", [])}
    colours = {c["key"]: c for c in content.get("colours", [])}
    cards = {}
    for card in content.get("cards", []):
        symbol = symbols.get(card["symbol"], {"name": card["symbol"]})
        colour = colours.get(card["colour"], {"name": card["colour"], "hex": "#444", "mark": "?"})
        cards[card["key"]] = {
            "key": card["key"],
            "symbol": symbol.get("name", card["symbol"]),
            "colour": colour.get("name", card["colour"]),
            "hex": colour.get("hex", "#444"),
            "colour_key": card["colour"],
            "mark": colour.get("mark", ""),
            "icon": symbol.get("icon"),
        }
    return cards


SAFE_KEY = re.compile(r"[a-z0-9][a-z0-9-]{0,59}")
SAFE_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def card_face(card: dict[str, Any] | None) -> SafeString:
    """A card's picture: the symbol in its colour, the colour's mark, its name in words."""
    if card is None:
        return format_html('<span class="sign-card back">{}</span>', _("face down"))
    svg = icon_svg(card["icon"]) if card.get("icon") else None
    picture = mark_safe(svg) if svg else format_html('<span class="glyph">{}</span>', card["symbol"][:1])
    return format_html(
        '<span class="sign-card {}">{}<span class="mark" aria-hidden="true">{}</span>'
        '<span class="card-name">{} <span class="colour-name">{}</span></span></span>',
        colour_class(card.get("colour_key", "")), picture, card["mark"], card["symbol"], card["colour"],
    )


def colour_class(key: str) -> str:
    """The class that gives a card its pack colour: the stylesheet ``colour_css`` makes, since
    the Content-Security-Policy allows no inline style."""
    return f"sc-{key}" if SAFE_KEY.fullmatch(key) else ""


def colour_css(pack: dict[str, Any]) -> str:
    """One rule per colour of a Sign pack (``.sc-KEY {--c: #hex}``); keys and hex values that
    are not plainly a slug and a colour are left out, so no pack can write other CSS."""
    rules = []
    for colour in pack.get("body", {}).get("colours", []):
        key, hex_ = str(colour.get("key", "")), str(colour.get("hex", ""))
        if SAFE_KEY.fullmatch(key) and SAFE_HEX.fullmatch(hex_):
            rules.append(f".sc-{key} {{ --c: {hex_}; }}")
    return "\n".join(rules) + "\n"


def present(view: dict[str, Any], ctx: Context) -> dict[str, Any]:
    cards = _cards(ctx.pack)
    you = ctx.you
    hand = view.get("hand")
    phase = view.get("phase")

    def face(key: str) -> SafeString:
        return card_face(cards.get(key, {"symbol": key, "colour": "", "hex": "#444", "mark": ""}))

    hand_cards = [
        {"face": face(key), "drop": ctx.actions.button(_("Put down"), "drop", type="drop", card=key)}
        for key in hand or []
    ]
    table_cards = [
        {"face": face(key), "take": ctx.actions.button(_("Take"), "take", type="take", card=key)}
        for key in view.get("table", [])
    ]
    teams = view.get("teams", [])
    your_team = view.get("team")
    team_rows = []
    for number, members in enumerate(teams):
        team_rows.append({
            "number": number + 1,
            "members": [ctx.name(p) for p in members],
            "score": view.get("team_scores", [0] * len(teams))[number],
            "yours": number == your_team,
        })
    mates = set(teams[your_team]) if your_team is not None and teams else set()
    sign_buttons = []
    for p in view.get("players", []):
        if p == you:
            continue
        action = ctx.actions.find(type="sign", target=p)
        if action is not None:
            sign_buttons.append({"action": action, "name": ctx.plain_name(p), "mate": p in mates})
    done = set(view.get("done", []))
    checked = set(view.get("ready", []))
    players = [
        {"name": ctx.name(p), "cards": view.get("hand_counts", {}).get(p, 0), "done": p in done,
         "ready": view.get("phase") == "checking" and p in checked,
         "mate": p in mates and p != you, "you": p == you}
        for p in view.get("players", [])
    ]
    ready = ctx.actions.button(_("I have checked my hand"), "primary", type="ready")
    signal = ctx.actions.button(_("Give our team's sign"), "signal", type="signal")
    signalled = [ctx.name(p) for p in view.get("signals", []) if p != you]
    done_button = ctx.actions.button(_("Done swapping"), "primary", type="done")
    if view.get("result") or phase == "over":
        turn = _("The game is over.")
    elif phase == "checking":
        turn = _("Check your hand; the table opens when everybody is ready.")
    elif hand is not None and len(hand) > HAND_SIZE:
        turn = _("You hold six cards: put one down on the table.")
    elif hand is not None and len(hand) < HAND_SIZE:
        turn = _("You hold four cards: take one from the table.")
    elif you in done:
        turn = _("You are done; waiting for the others (a take or a drop withdraws it).")
    elif you is not None:
        turn = _("Swap with the table, or call “Sign!” when a hand holds one symbol in five colours.")
    else:
        turn = _("Everybody swaps at once.")
    return {
        "template": "play/sign/screen.html",
        "hand": hand_cards,
        "has_hand": hand is not None,
        "table": table_cards,
        "bottom_card": face(view["bottom_card"]) if view.get("bottom_card") else None,
        "deck_count": view.get("deck_count"),
        "teams": team_rows,
        "sign_buttons": sign_buttons,
        "players": players,
        "ready": ready,
        "signal": signal,
        "signalled": signalled,
        "face_down": range(view.get("table_face_down") or 0),
        "done": done_button,
        "turn": turn,
        "your_turn": bool(hand_cards) and phase != "over",
        "round": view.get("round"),
        "target_points": view.get("target_points"),
        "rounds": view.get("rounds"),
        "dealer": ctx.name(view.get("dealer")),
        "phase": phase,
    }


def describe(event: dict[str, Any], ctx: Context) -> str:
    cards = _cards(ctx.pack)
    kind = event.get("type")
    who = ctx.plain_name(event.get("player"))

    def card_name(key: str) -> str:
        card = cards.get(key)
        return f"{card['symbol']} {card['colour']} {card['mark']}" if card else key

    if kind == "deal":
        return _("Round %(round)s: %(name)s deals.") % {
            "round": event["round"], "name": ctx.plain_name(event.get("dealer"))}
    if kind in ("take", "drop"):
        verbs = {"take": _("%(name)s took %(card)s from the table."),
                 "drop": _("%(name)s put %(card)s on the table.")}
        anonymous = {"take": _("%(name)s took a card from the table."),
                     "drop": _("%(name)s put a card on the table.")}
        if "card" in event:
            return verbs[kind] % {"name": who, "card": card_name(event["card"])}
        return anonymous[kind] % {"name": who}
    if kind == "done":
        return _("%(name)s is done swapping.") % {"name": who}
    if kind == "ready":
        return _("%(name)s has checked their hand.") % {"name": who}
    if kind == "table_opened":
        return _("Everybody has checked: the table cards are turned up.")
    if kind == "signal":
        return _("%(name)s gave the team's sign.") % {"name": who}
    if kind == "refresh":
        if event.get("deck_ran_out"):
            return _("The deck ran out: the round is a draw.")
        return _("Everybody was done: new table cards.")
    if kind == "sign":
        line = _("%(caller)s called “Sign!” on %(target)s: %(verdict)s") % {
            "caller": ctx.plain_name(event.get("caller")),
            "target": ctx.plain_name(event.get("target")),
            "verdict": _("a quintet!") if event.get("valid") else _("no quintet."),
        }
        hand = ", ".join(card_name(key) for key in event.get("hand", []))
        return f"{line} ({hand})" if hand else line
    if kind == "round_end":
        scores = " : ".join(str(score) for score in event.get("team_scores", []))
        return _("Round %(round)s ends; teams %(scores)s.") % {"round": event.get("round"),
                                                              "scores": scores}
    if kind == "game_end":
        return _("The game is over.")
    return generic_event(event, ctx)
