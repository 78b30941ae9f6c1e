"""Slogan: the career track, the questioner's card, the stake, the judging and the duel."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from games.screens import Context, body, generic_event

GOAL = 37
LETTERS = "ABCD"


def _alfons_texts(pack: dict[str, Any]) -> dict[str, str]:
    return {card["key"]: card.get("text", card["key"]) for card in body(pack).get("alfons", [])}


def _options(options: list[str] | None, answer: int | None) -> list[dict[str, Any]]:
    return [
        {"letter": LETTERS[n], "text": text, "correct": answer == n}
        for n, text in enumerate(options or [])
    ]


def present(view: dict[str, Any], ctx: Context) -> dict[str, Any]:
    you, phase = ctx.you, view.get("phase")
    questioner, questioned = view.get("questioner"), view.get("questioned")
    players = view.get("players", [])
    positions = view.get("positions", {})
    # The track: start, six levels of six spaces, the goal; each space lists its pieces.
    pieces: dict[int, list[dict[str, Any]]] = {}
    for number, p in enumerate(players):
        pieces.setdefault(positions.get(p, 0), []).append(
            {"name": ctx.plain_name(p), "initial": ctx.plain_name(p)[:2], "colour": number % 6,
             "you": p == you})
    levels = [
        {"level": level, "spaces": [{"space": s, "pieces": pieces.get(s, [])}
                                    for s in range((level - 1) * 6 + 1, level * 6 + 1)]}
        for level in range(1, 7)
    ]
    card = view.get("card")
    ask = []
    if card:
        for number, slogan in enumerate(card.get("slogans", [])):
            ask.append({
                "number": number + 1,
                "text": slogan["text"],
                "options": _options(slogan.get("options"), slogan.get("answer")),
                "stakes": [b for b in (ctx.actions.button(
                    _("%(n)s chips") % {"n": stake} if stake > 1 else _("1 chip"),
                    "primary", type="ask", slogan=number, stake=stake) for stake in (1, 2, 3)) if b],
            })
    question = view.get("question")
    asked = None
    if question:
        asked = {
            "text": question["text"],
            "stake": question["stake"],
            "options": _options(question.get("options"), question.get("answer")),
            "answer_known": "answer" in question,
        }
    judge = [b for b in (ctx.actions.button(_("Right answer"), "good", type="judge", correct=True),
                         ctx.actions.button(_("Wrong answer"), "bad", type="judge", correct=False)) if b]
    tips = [b for b in (ctx.actions.button(
        f"{LETTERS[n]}: {(question or {}).get('options', [''] * 4)[n] if question else ''}",
        "tip", type="tip", option=n) for n in range(4)) if b]
    alfons = ctx.actions.button(_("Draw a Spießer Alfons card"), "", type="alfons")
    pass_button = ctx.actions.button(_("Pass"), "quiet", type="pass")
    challenges = [b for b in (ctx.actions.button(
        _("Challenge %(name)s to a duel") % {"name": ctx.plain_name(p)}, "challenge",
        type="challenge", target=p) for p in players) if b]
    duel = view.get("duel")
    duel_screen = None
    if duel:
        nxt = duel["next"]
        duel_screen = {
            "challenger": ctx.name(duel["challenger"]),
            "challenged": ctx.name(duel["challenged"]),
            "readers": [ctx.name(p) for p in duel["readers"]],
            "slogans": [
                {"number": s["slogan"] + 1, "text": s["text"],
                 "options": _options(s.get("options"), s.get("answer"))}
                for s in duel.get("slogans", [])
            ],
            "answers": [
                {"name": ctx.name(a["player"]), "number": a["slogan"] + 1, "correct": a["correct"]}
                for a in duel.get("answers", [])
            ],
            "next": _("Next: %(name)s answers slogan %(n)s.") % {
                "name": ctx.plain_name(nxt["player"]), "n": nxt["slogan"] + 1},
            "judge": [b for b in (
                ctx.actions.button(_("Right"), "good", type="judge", player=nxt["player"],
                                   slogan=nxt["slogan"], correct=True),
                ctx.actions.button(_("Wrong"), "bad", type="judge", player=nxt["player"],
                                   slogan=nxt["slogan"], correct=False)) if b],
        }
    if view.get("result") or phase == "over":
        turn = _("The game is over.")
    elif phase == "question" and questioner == you:
        turn = _("Your turn: choose a slogan and a stake, then read it out to %(name)s.") % {
            "name": ctx.plain_name(questioned)}
    elif phase == "question":
        turn = _("%(name)s is choosing a slogan for %(other)s.") % {
            "name": ctx.plain_name(questioner), "other": ctx.name(questioned)}
    elif phase == "judge" and questioner == you:
        turn = _("Listen to %(name)s's answer and judge it.") % {"name": ctx.plain_name(questioned)}
    elif phase == "judge" and questioned == you:
        turn = _("Your question! Say the brand out loud.")
    elif phase == "judge":
        turn = _("%(name)s answers.") % {"name": ctx.plain_name(questioned)}
    elif phase == "second_chance" and questioned == you:
        turn = _("Wrong — your second chance: tip an option, draw Spießer Alfons, or pass.")
    elif phase == "second_chance":
        turn = _("%(name)s takes a second chance.") % {"name": ctx.plain_name(questioned)}
    elif phase == "duel":
        turn = _("Duel!")
    else:
        turn = ""
    return {
        "template": "play/slogan/screen.html",
        "levels": levels,
        "start_pieces": pieces.get(0, []),
        "goal_pieces": pieces.get(GOAL, []),
        "ask": ask,
        "asked": asked,
        "judge": judge,
        "tips": tips,
        "alfons": alfons,
        "pass_button": pass_button,
        "challenges": challenges,
        "duel": duel_screen,
        "turn": turn,
        "your_turn": bool(ask or judge or tips or (duel_screen and duel_screen["judge"])),
        "phase": phase,
        "questioner": ctx.plain_name(questioner),
        "questioned": ctx.plain_name(questioned),
        "round": view.get("turn"),
        "pile_count": view.get("pile_count"),
        "scores": [
            {"name": ctx.plain_name(p), "score": view.get("scores", {}).get(p, 0),
             "space": positions.get(p, 0), "level": view.get("levels", {}).get(p, 0),
             "desk": view.get("desk_counts", {}).get(p, 0), "you": p == you, "colour": n % 6,
             "role": (_("asks") if p == questioner else _("answers") if p == questioned else "")}
            for n, p in enumerate(players)
        ],
    }


def describe(event: dict[str, Any], ctx: Context) -> str:
    kind = event.get("type")
    who = ctx.plain_name(event.get("player"))
    if kind == "turn":
        return _("Turn %(turn)s: %(a)s asks %(b)s.") % {
            "turn": event["turn"], "a": ctx.plain_name(event["questioner"]),
            "b": ctx.plain_name(event["questioned"])}
    if kind == "ask":
        return _("%(a)s asked %(b)s (stake %(stake)s): “%(text)s”") % {
            "a": ctx.plain_name(event["questioner"]), "b": ctx.plain_name(event["questioned"]),
            "stake": event["stake"], "text": event["text"]}
    if kind == "judge":
        return (_("Right! %(name)s wins %(stake)s.") if event.get("correct")
                else _("Wrong: %(name)s wins %(stake)s.")) % {
            "name": ctx.plain_name(event.get("winner")), "stake": event.get("stake")}
    if kind == "move":
        return _("%(name)s moves from %(a)s to %(b)s.") % {
            "name": who, "a": event["start"], "b": event["end"]}
    if kind == "career_prize":
        return _("%(name)s reaches level %(level)s and gets %(chips)s chips.") % {
            "name": who, "level": event["level"], "chips": event["chips"]}
    if kind == "tip":
        return (_("%(name)s tipped %(letter)s: right, one space forward.") if event.get("correct")
                else _("%(name)s tipped %(letter)s: wrong.")) % {
            "name": who, "letter": LETTERS[event["option"]] if 0 <= event["option"] < 4 else "?"}
    if kind == "pass":
        return _("%(name)s passed.") % {"name": who}
    if kind == "solution":
        options = event.get("options") or []
        answer = event.get("answer")
        brand = options[answer] if isinstance(answer, int) and 0 <= answer < len(options) else "?"
        return _("“%(text)s” — %(brand)s.") % {"text": event.get("text", ""), "brand": brand}
    if kind == "challenge":
        return _("%(a)s challenges %(b)s to a duel!") % {
            "a": ctx.plain_name(event["challenger"]), "b": ctx.plain_name(event["challenged"])}
    if kind == "duel_answer":
        return (_("%(name)s answered slogan %(n)s right.") if event.get("correct")
                else _("%(name)s answered slogan %(n)s wrong.")) % {"name": who, "n": event["slogan"] + 1}
    if kind == "duel_end":
        if event.get("winner"):
            return _("%(name)s wins the duel.") % {"name": ctx.plain_name(event["winner"])}
        return _("The duel is a draw.")
    if kind == "alfons":
        line = _("%(name)s drew Spießer Alfons: “%(text)s”") % {"name": who, "text": event.get("text", "")}
        return f"{line} ({_('no effect')})" if event.get("void") else line
    if kind == "swap":
        return _("%(a)s swapped places with %(b)s.") % {
            "a": who, "b": ctx.plain_name(event.get("partner"))}
    if kind == "chips":
        bank = _("the bank")
        payer = ctx.plain_name(event["payer"]) if event.get("payer") else bank
        payee = ctx.plain_name(event["payee"]) if event.get("payee") else bank
        return _("%(a)s pays %(b)s %(n)s chips.") % {"a": payer, "b": payee, "n": event["amount"]}
    if kind == "game_end":
        return _("The game is over.")
    return generic_event(event, ctx)
