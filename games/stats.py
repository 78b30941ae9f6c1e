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

Nor does a game count that one client played with several seats (one script holding two
seats chose every answer): the seats that made moves must come from at least two different
clients (games/clients.py: different addresses, and not one device cookie). And a client counts
at most ``KARTOTHEK_PLAY_STATS_DAILY_CAP`` games a day (UTC): a game with a client past it
counts nothing, so one person with two connections adds a bounded number of games a day.

Every finished game is tallied by what became of it (``PlayStatsTally``: counted, or why not),
which the curators see beside each card's figures (curation/play_stats.py).
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Sum

from games.clients import different
from games.models import ActionLog, CardPlayStat, PlayStatsTally, Room, Seat

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
    """Whether people played the room's current game (see the module's docstring)."""
    humans = len(_moving_seats(room))
    players = len((room.games[-1] if room.games else {}).get("players", [])) or humans
    return humans >= MIN_HUMANS and humans * 2 >= players


def _moving_seats(room: Room) -> list[str]:
    return list(ActionLog.objects.filter(room=room, game_number=room.game_number, by="player")
                .order_by().values_list("seat", flat=True).distinct())


def _clients(room: Room) -> list[tuple[str, str]]:
    """The clients (address hash, device hash) of the seats that made moves in the game."""
    return list(Seat.objects.filter(room=room, seat__in=_moving_seats(room))
                .values_list("client_hash", "device_hash"))


def from_different_clients(room: Room, clients: list[tuple[str, str]] | None = None) -> bool:
    """Whether at least two of the game's moving seats come from different clients."""
    clients = _clients(room) if clients is None else clients
    return any(different(a, b) for i, a in enumerate(clients) for b in clients[i + 1:])


#: Why a finished game did not count, as the curators read it (the tally's keys).
NOT_COUNTED = {
    "not:bots": "played by bots or by one person among bots",
    "not:one_client": "played with several seats from one client",
    "not:daily_cap": "from a client past its daily cap",
}


def why_not_counted(room: Room) -> str | None:
    """The tally key of the reason the room's just-finished game does not count, or None.
    Passing every other check counts the game against its clients' daily cap."""
    if not played_by_people(room):
        return "not:bots"
    clients = _clients(room)
    if not from_different_clients(room, clients):
        return "not:one_client"
    cap = settings.KARTOTHEK_PLAY_STATS_DAILY_CAP
    if cap:
        addresses = sorted({address for address, _device in clients if address})
        # every client's count goes up (in key order: no deadlock between two games' ends)
        over = [_bump(f"client:{address}") > cap for address in addresses]
        if any(over):
            return "not:daily_cap"
    return None


def record_game(room: Room) -> None:
    """Add the room's just-finished game to the card statistics (once per game; a game that
    does not count is marked as handled, tallied with its reason and counts nothing)."""
    counter = COUNTERS.get(room.game)
    if counter is None or room.stats_recorded >= room.game_number or not room.state_json:
        return
    room.stats_recorded = room.game_number
    reason = why_not_counted(room)
    _bump(reason or "counted")
    if reason is None:
        add_game(room)


# --- the tally ---------------------------------------------------------------------------------


def today() -> int:
    """The day the tally counts in (days since 1970-01-01, UTC; a test moves it)."""
    return int(time.time() // 86400)


def _bump(key: str) -> int:
    """Add one to ``key``'s count today and answer the new count, in one statement where the
    database can (two servers ending games at once never lose a count); a day's client counts
    are dropped the day after."""
    day = today()
    if connection.vendor == "postgresql" or (
            connection.vendor == "sqlite" and connection.Database.sqlite_version_info >= (3, 35)):
        quote = connection.ops.quote_name
        table = quote(PlayStatsTally._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} ({quote('day')}, {quote('key')}, {quote('count')}) "
                f"VALUES (%s, %s, 1) ON CONFLICT ({quote('day')}, {quote('key')}) DO UPDATE "
                f"SET {quote('count')} = {table}.{quote('count')} + 1 RETURNING {quote('count')}",
                [day, key])
            number = int(cursor.fetchone()[0])
    else:
        rows = PlayStatsTally.objects.filter(day=day, key=key)
        if not rows.update(count=F("count") + 1):
            try:
                with transaction.atomic():
                    PlayStatsTally.objects.create(day=day, key=key, count=1)
            except IntegrityError:
                rows.update(count=F("count") + 1)
        number = rows.values_list("count", flat=True).get()
    if number == 1 and not key.startswith("client:"):  # once a day: yesterday's clients go
        PlayStatsTally.objects.filter(day__lt=day, key__startswith="client:").delete()
    return number


def not_counted() -> dict[str, int]:
    """Finished games so far, all days: how many counted (``counted``) and, per reason
    (``NOT_COUNTED``'s keys), how many did not."""
    rows = (PlayStatsTally.objects.exclude(key__startswith="client:").values("key")
            .annotate(total=Sum("count")).order_by())
    return {row["key"]: row["total"] for row in rows}


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
