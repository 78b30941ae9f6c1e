"""What the play pages show: a room's snapshot for one seat, turned into words and buttons.

The pages never know more than the snapshot (``rooms.snapshot(room, seat)``, made from the
engine's ``view``); the room's pinned pack only turns card keys into texts and pictures. Each
game has a module here (``present(view, ctx)``) that sorts the legal actions into the places
its screen shows them; whatever action it does not know becomes a plain labelled button, so a
new action type of an engine still works.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

GAME_NAMES = {
    "symbols": "Sag's mit Symbolen",
    "sign": "Sign",
    "slogan": "Slogan",
    "sauschwer": "Sauschwer",
}


LOG_LINES = 40


@dataclass
class Button:
    """One legal action, ready for the template: its label and its JSON for the script."""

    action: dict[str, Any]
    label: str
    style: str = ""

    @property
    def json(self) -> str:
        return json.dumps(self.action, sort_keys=True, separators=(",", ":"))


@dataclass
class Actions:
    """The legal actions of the seat; a game's presenter takes the ones its screen places."""

    legal: list[dict[str, Any]]
    taken: set[str] = field(default_factory=set)

    @staticmethod
    def _key(action: dict[str, Any]) -> str:
        return json.dumps(action, sort_keys=True)

    def find(self, **match: Any) -> dict[str, Any] | None:
        """The legal action with exactly these fields (marked as placed), or None."""
        for action in self.legal:
            if action == match:
                self.taken.add(self._key(action))
                return action
        return None

    def button(self, label: str, style: str = "", **match: Any) -> Button | None:
        action = self.find(**match)
        return Button(action, label, style) if action is not None else None

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [action for action in self.legal if action.get("type") == kind]

    def leftovers(self) -> list[Button]:
        """Every legal action no region of the screen placed: a generic labelled button."""
        return [
            Button(action, generic_label(action))
            for action in self.legal
            if self._key(action) not in self.taken
        ]


def generic_label(action: dict[str, Any]) -> str:
    kind = str(action.get("type", "?"))
    details = ", ".join(f"{key}: {value}" for key, value in action.items() if key != "type")
    label = kind.replace("_", " ").capitalize()
    return f"{label} ({details})" if details else label


@dataclass
class Context:
    """What every game's presenter gets besides the view."""

    names: dict[str, str]
    you: str | None
    pack: dict[str, Any]
    actions: Actions

    def name(self, seat: str | None) -> str:
        if seat is None:
            return "—"
        if seat == self.you:
            return _("you")
        return self.names.get(seat, seat)

    def plain_name(self, seat: str | None) -> str:
        return self.names.get(seat or "", seat or "—")


def body(pack: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = pack.get("body", pack)
    return result


def present(game: str, snapshot: dict[str, Any], pack: dict[str, Any]) -> dict[str, Any]:
    """The template context of a game's region for one seat (or the table, ``you`` None)."""
    from games.screens import sauschwer, sign, slogan, symbols

    modules = {"symbols": symbols, "sign": sign, "slogan": slogan, "sauschwer": sauschwer}
    names = {seat["seat"]: seat["name"] for seat in snapshot.get("seats", [])}
    you = snapshot.get("you")
    ctx = Context(names, you, pack, Actions(list(snapshot.get("legal_actions") or [])))
    view = snapshot.get("view") or {}
    module = modules[game]
    screen: dict[str, Any] = module.present(view, ctx)
    events = view.get("log") or []
    screen["log"] = [line for line in (module.describe(event, ctx) for event in events) if line]
    screen["log_recent"] = list(reversed(screen["log"][-LOG_LINES:]))
    # A seat the host moved to another device is announced on every screen, first.
    moved = [_("%(name)s's seat was moved to another device by the host.") % {"name": seat["name"]}
             for seat in snapshot.get("seats", []) if seat.get("moved")]
    screen["log_recent"] = [*moved, *screen["log_recent"]]
    screen["extra_buttons"] = ctx.actions.leftovers()
    screen["result"] = _result(snapshot.get("result"), ctx)
    return screen


def describe_events(game: str, events: list[dict[str, Any]], names: dict[str, str],
                    pack: dict[str, Any]) -> list[str]:
    """Log events in words, as the table sees them (a replay step's header)."""
    from games.screens import sauschwer, sign, slogan, symbols

    module = {"symbols": symbols, "sign": sign, "slogan": slogan, "sauschwer": sauschwer}[game]
    ctx = Context(names, None, pack, Actions([]))
    return [line for line in (module.describe(event, ctx) for event in events) if line]


def _result(result: dict[str, Any] | None, ctx: Context) -> dict[str, Any] | None:
    if not result:
        return None
    winners = [ctx.plain_name(seat) for seat in result.get("winners", [])]
    scores = sorted(
        ((ctx.plain_name(seat), score) for seat, score in result.get("scores", {}).items()),
        key=lambda pair: -pair[1],
    )
    return {
        "winners": winners,
        "you_won": ctx.you in result.get("winners", []),
        "scores": scores,
    }


def generic_event(event: dict[str, Any], ctx: Context) -> str:
    """A log line for an event no presenter knows: its type and fields, seats by name."""
    parts = []
    for key, value in event.items():
        if key == "type":
            continue
        if isinstance(value, str) and value in ctx.names:
            value = ctx.plain_name(value)
        parts.append(f"{key}: {value}")
    kind = str(event.get("type", "?")).replace("_", " ").capitalize()
    return f"{kind} — {', '.join(parts)}" if parts else kind
