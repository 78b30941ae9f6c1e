"""How cards did in real play: aggregates from finished rooms, for the admin's difficulty column.

Counted once per finished game, in the transaction that finishes it (``turns._record``), from
the game's own log (engine events, not the room's rows), so replaying nothing is needed later:

- slogan: per slogan card, answers judged right / wrong (duel answers included);
- symbols: per concept that was the secret, solved (``right``) or not (``wrong``), and the
  hints given before a solution (``hints``; average = hints / right);
- sauschwer: per object on the scale, rounds it was in (``played``), doubted (``doubted``),
  and doubts won (``right``) or lost (``wrong``);
- sign: nothing (a card has no difficulty of its own).

Only games that people played count: a game counts when at least two seats made moves of
their own in it (``ActionLog.by == "player"``: not a bot, not an away seat's stand-in, not the
turn timer) and those seats are at least half of the game's players. A game of bots (a room
whose host adds bots, starts, steps away and plays again in a loop) or of one person among
bots never reaches the statistics: it would tell nothing about how hard a card is for people,
and anybody could otherwise pour thousands of bot games into the admin's numbers.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import F

from games.models import ActionLog, CardPlayStat, Room

Counts = dict[str, dict[str, int]]


def _new() -> dict[str, int]:
    return {"played": 0, "right": 0, "wrong": 0, "hints": 0, "doubted": 0}


def slogan_counts(log: list[dict[str, Any]]) -> Counts:
    counts: Counts = defaultdict(_new)
    pending: dict[int, list[bool]] = defaultdict(list)
    for event in log:
        kind = event.get("type")
        if kind == "judge" or kind == "duel_answer":
            pending[event["turn"]].append(bool(event["correct"]))
        elif kind in ("solution", "duel_end") and event.get("card") is not None:
            answers = pending.pop(event["turn"], [])
            if not answers:
                continue
            entry = counts[event["card"]]
            entry["played"] += 1
            entry["right"] += sum(answers)
            entry["wrong"] += len(answers) - sum(answers)
    return counts


def symbols_counts(log: list[dict[str, Any]]) -> Counts:
    counts: Counts = defaultdict(_new)
    hints = 0
    for event in log:
        kind = event.get("type")
        if kind == "round_started":
            hints = 0
        elif kind == "hint":
            hints += 1
        elif kind == "round_ended" and event.get("solution"):
            entry = counts[event["solution"]]
            entry["played"] += 1
            if event.get("outcome") in ("right_solution", "last_card"):
                entry["right"] += 1
                entry["hints"] += hints
            else:
                entry["wrong"] += 1
    return counts


def sauschwer_counts(log: list[dict[str, Any]]) -> Counts:
    counts: Counts = defaultdict(_new)
    for event in log:
        if event.get("type") != "revealed":
            continue
        doubter = event.get("doubter")
        heavier = event.get("heavier")
        for card in event.get("weights", {}):
            entry = counts[card]
            entry["played"] += 1
            if doubter:
                entry["doubted"] += 1
                if heavier is not None and heavier != event.get("helmut"):
                    entry["right"] += 1
                elif heavier is not None:
                    entry["wrong"] += 1
    return counts


COUNTERS = {"slogan": slogan_counts, "symbols": symbols_counts, "sauschwer": sauschwer_counts}


MIN_HUMANS = 2


def played_by_people(room: Room) -> bool:
    """Whether the room's current game counts (see the module's docstring)."""
    humans = (ActionLog.objects.filter(room=room, game_number=room.game_number, by="player")
              .values("seat").distinct().count())
    players = len((room.games[-1] if room.games else {}).get("players", [])) or humans
    return humans >= MIN_HUMANS and humans * 2 >= players


def record_game(room: Room) -> None:
    """Add the room's just-finished game to the card statistics (once per game; a game of
    bots is marked as handled and counts nothing)."""
    counter = COUNTERS.get(room.game)
    if counter is None or room.stats_recorded >= room.game_number or not room.state_json:
        return
    room.stats_recorded = room.game_number
    if played_by_people(room):
        add_game(room)


def add_game(room: Room) -> None:
    """Add the counts of the room's game to the card statistics (no checks: ``record_game``)."""
    counter = COUNTERS[room.game]
    state = room.state
    assert state is not None
    # In key order: two games finishing at once update shared rows in the same order, so one
    # waits for the other instead of both deadlocking (seen under `make load` on PostgreSQL).
    for key, entry in sorted(counter(state["log"]).items()):
        stat, _ = CardPlayStat.objects.get_or_create(game=room.game, key=key)
        CardPlayStat.objects.filter(pk=stat.pk).update(
            **{field: F(field) + value for field, value in entry.items() if value})


def difficulty(game: str, key: str, stat: CardPlayStat | None) -> str:
    """A short text for the admin column."""
    if stat is None or not stat.played:
        return "–"
    if game == "symbols":
        solved = f"solved {stat.right}/{stat.played}"
        if stat.right:
            return f"{solved}, ⌀ {stat.hints / stat.right:.1f} hints"
        return solved
    if game == "sauschwer":
        return f"doubted {stat.doubted}/{stat.played}, doubter won {stat.right}"
    if game == "slogan":
        total = stat.right + stat.wrong
        return f"right {stat.right}/{total}" if total else "–"
    return "–"
