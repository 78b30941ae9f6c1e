"""``manage.py publish_pack``: publish a game's current content in a language as its next release."""

from django.core.management.base import BaseCommand, CommandError

from exports.changes import summary
from exports.errors import PackError
from exports.packs import MARKET_HELP, edition_option, publish


class Command(BaseCommand):
    help = "Publish the current content of a game in a language as its next release."

    def add_arguments(self, parser):
        parser.add_argument("game", help="symbols, sign, slogan or sauschwer")
        parser.add_argument("--lang", required=True)
        parser.add_argument("--market", help=MARKET_HELP)
        parser.add_argument("--note", default="", help="the release notes' own words (the "
                            "changes since the previous release are kept anyway)")

    def handle(self, *args, game, lang, market, note, **options):
        try:
            lang = edition_option(game, lang, market)
            result = publish(game, lang, note=note)
        except PackError as exc:
            raise CommandError(str(exc)) from None
        release = result.release
        if result.created:
            self.stdout.write(self.style.SUCCESS(
                f"Published {game} ({lang}) release {release.version}: {release.size:,} bytes, "
                f"file sha256 {release.sha256}; {summary(release.changes)}."))
        else:
            self.stdout.write(f"No change: {game} ({lang}) release {release.version} already "
                              "holds this content.")
