"""Balance reports: many bot games of one game, summed up (``manage.py simulate``)."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
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
    jobs: int = 1,
) -> SimulationReport:
    """Play ``games`` bot games with players ``p1`` … ``pN`` (game i has seed ``"S:i"``).

    Each game is folded into the report as it ends (its final state is not kept), so memory
    does not grow with ``games``. ``jobs`` > 1 plays them in that many processes, each a run
    of consecutive game numbers; the report is the same for the same seed whatever ``jobs``
    (the time lines aside: ``cpu_seconds`` is then the workers' CPU time).
    """
    ids = [f"p{n}" for n in range(1, players + 1)]
    report = SimulationReport(game=game, players=players)
    start, cpu_start = time.perf_counter(), time.process_time()
    if jobs <= 1 or games < 2:
        parts = [_play_run(game, content, ids, seed, options, 0, games)]
    else:
        jobs = min(jobs, games)
        bounds = [games * k // jobs for k in range(jobs + 1)]
        context = multiprocessing.get_context("spawn")  # no inherited threads or connections
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            parts = list(pool.map(_play_run, *zip(*[
                (game, content, ids, seed, options, bounds[k], bounds[k + 1]) for k in range(jobs)],
                strict=True)))
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = time.process_time() - cpu_start
    counts: Counter[Any] = Counter()
    for part in parts:  # in game order, so the lists read the same whatever ``jobs``
        report.actions += part.actions
        report.rounds += part.rounds
        report.spreads += part.spreads
        report.first_player_wins += part.first_player_wins
        report.first_player_shares += part.first_player_shares
        report.shared_wins += part.shared_wins
        report.cpu_seconds += part.cpu_seconds if jobs > 1 else 0.0
        counts.update(part.tally)
    stats = getattr(bot_for(game), "stats_of", None)
    if stats is not None:
        report.extra = stats(counts)
    report.extra.update(balance.report_lines(game, content))
    return report


@dataclass
class _Run:
    """What one run of games adds to a report (small: no game's state)."""

    actions: list[int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    spreads: list[int] = field(default_factory=list)
    first_player_wins: int = 0
    first_player_shares: int = 0
    shared_wins: int = 0
    cpu_seconds: float = 0.0
    tally: Counter[Any] = field(default_factory=Counter)


def _play_run(game: str, content: Mapping[str, Any], ids: list[str], seed: int,
              options: Mapping[str, Any] | None, first: int, stop: int) -> _Run:
    """Games number ``first`` … ``stop - 1``, each folded in as it ends."""
    run, engine, cpu_start = _Run(), engines.get(game), time.process_time()
    tally = getattr(bot_for(game), "tally", None)
    for number in range(first, stop):
        state, steps = play_game(game, content, ids, f"{seed}:{number}", options)
        run.actions.append(steps)
        _count(run, state, engine.result(state)["winners"], first=ids[0])
        if tally is not None:
            run.tally.update(tally(state))
    run.cpu_seconds = time.process_time() - cpu_start
    return run


def _count(report: _Run, state: dict[str, Any], winners: list[str], *, first: str) -> None:
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
