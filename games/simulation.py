"""Balance reports: many bot games of one game, summed up (``manage.py simulate``)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from statistics import mean
from typing import Any

from games import balance, engines
from games.bots import bot_for, play_game


@dataclass
class SimulationReport:
    game: str
    players: int
    seconds: float = 0.0  # wall-clock time of the games
    cpu_seconds: float = 0.0  # this process's CPU time for them (fair on a shared machine)
    actions: list[int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    spreads: list[int] = field(default_factory=list)  # winner's score minus the last one's
    first_player_wins: int = 0  # alone
    first_player_shares: int = 0  # shares the win with others
    shared_wins: int = 0  # games won by more than one player
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return len(self.actions)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def lines(self) -> list[str]:
        lines = [
            f"{self.game}: {self.games} games, {self.players} players, "
            f"{self.seconds:.2f} s ({self.games_per_second:.0f} games/s), "
            f"CPU {self.cpu_seconds:.2f} s",
            f"  actions per game: {_summary(self.actions)}",
            f"  rounds per game: {_summary(self.rounds)}",
            f"  score spread (winner minus last): {_summary(self.spreads)}",
            f"  first player wins: {self.first_player_wins / self.games:.1%} alone, "
            f"{self.first_player_shares / self.games:.1%} shared "
            f"(one in {self.players}: {1 / self.players:.1%})",
            f"  games won by several players: {self.shared_wins / self.games:.1%}",
        ]
        lines += [f"  {name}: {value}" for name, value in self.extra.items()]
        return lines


def _summary(values: list[int]) -> str:
    if not values:
        return "n/a"
    return f"mean {mean(values):.1f}, min {min(values)}, max {max(values)}"


def simulate(
    game: str,
    content: Mapping[str, Any],
    *,
    games: int,
    players: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
) -> SimulationReport:
    """Play ``games`` bot games with players ``p1`` … ``pN`` (game i has seed ``"S:i"``)."""
    ids = [f"p{n}" for n in range(1, players + 1)]
    report = SimulationReport(game=game, players=players)
    finals = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for number in range(games):
        state, steps = play_game(game, content, ids, f"{seed}:{number}", options)
        finals.append(state)
        report.actions.append(steps)
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu_start
    engine = engines.get(game)
    for state in finals:
        _count(report, state, engine.result(state)["winners"], first=ids[0])
    stats = getattr(bot_for(game), "extra_stats", None)
    if stats is not None:
        report.extra = stats(finals)
    report.extra.update(balance.report_lines(game, content))
    return report


def _count(report: SimulationReport, state: dict[str, Any], winners: list[str], *, first: str) -> None:
    scores = state["scores"]
    report.spreads.append(max(scores.values()) - min(scores.values()))
    report.rounds.append(rounds_played(state))
    if len(winners) > 1:
        report.shared_wins += 1
    if winners == [first]:
        report.first_player_wins += 1
    elif first in winners:
        report.first_player_shares += 1


def rounds_played(state: dict[str, Any]) -> int:
    """The round number a state keeps (Slogan: its turns), or else the rounds its log records
    as ended."""
    number = state.get("round", state.get("turn"))
    if isinstance(number, int) and not isinstance(number, bool):
        return number
    ended = ("round_ended", "round_end", "revealed")
    return sum(1 for event in state.get("log", []) if event.get("type") in ended)
