"""Publish a first release of every game and language that has none (``make run`` calls it,
so a fresh installation has something to play at /play/), and of each market's deck of the
slogan game (en-GB, en-US: an English Slogan room plays one of them). Running it again publishes nothing:
a game and language with any release is left alone, whatever its content."""

from django.core.management.base import BaseCommand

from cards.models import Game
from exports.errors import PackError
from exports.models import Release
from exports.packs import editions_of_game, publish


class Command(BaseCommand):
    help = "Publish the first release of each game and language that has none yet."

    def handle(self, *args, **options):
        published = 0
        for game in Game.values:
            for language in editions_of_game(game):
                if Release.objects.filter(game=game, language=language).exists():
                    continue
                try:
                    release = publish(game, language).release
                except PackError as exc:
                    self.stderr.write(f"{game} ({language}): not published: {exc}")
                    continue
                published += 1
                self.stdout.write(f"Published {game} ({language}) release {release.version}.")
        if published:
            self.stdout.write(self.style.SUCCESS(f"{published} first releases published."))
        else:
            self.stdout.write("Every game and language has a release already; nothing published.")
