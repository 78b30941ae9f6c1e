"""``manage.py simulate``: bot games of one game and a balance report."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.bots import BotStuck
from games.engines import ENGINES
from games.simulation import simulate


class Command(BaseCommand):
    help = "Play bot games of one game and print a balance report (speed, length, score spread)."

    def add_arguments(self, parser):
        parser.add_argument("game", choices=ENGINES)
        parser.add_argument("--games", type=int, default=100)
        parser.add_argument("--players", type=int, default=4)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--lang", default="en", help="language of the content pack (default en)")
        parser.add_argument("--pack", type=Path, help="a content pack JSON file instead of the database")
        parser.add_argument("--jobs", type=int, default=1,
                            help="processes to play the games in (e.g. one per core); the report "
                                 "is the same whatever the number")
        parser.add_argument("--options", type=json.loads, default=None, help="game options as JSON")

    def handle(self, *args, game, games, players, seed, lang, pack, options, jobs, **kwargs):
        if games < 1:
            raise CommandError("--games must be at least 1.")
        if jobs < 1:
            raise CommandError("--jobs must be at least 1.")
        content = self.read_pack(pack) if pack else self.load_pack(game, lang)
        try:
            report = simulate(game, content, games=games, players=players, seed=seed, options=options,
                              jobs=jobs)
        except (ValueError, BotStuck) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write("\n".join(report.lines()))

    def read_pack(self, path):
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"Cannot read the pack {path}: {exc}") from exc

    def load_pack(self, game, language):
        import importlib

        packs = importlib.import_module("exports.packs")
        try:
            return packs.load_pack(game, language)
        except getattr(packs, "PackError", ()) as exc:  # e.g. an incomplete card, by name
            raise CommandError(str(exc)) from exc
