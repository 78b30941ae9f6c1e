"""``manage.py validate_content``: the whole catalogue against the content rules (and, with
--translations, every translation check), and each edition's deck as its pack would hold it.
It lives with the packs because it prints the decks' sizes from the packs."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from cards.models import Game
from cards.validation import find_problems


class Command(BaseCommand):
    help = ("Check the whole catalogue against the content rules (with --translations: also "
            "every translation check); exit status 1 if anything is wrong.")

    def add_arguments(self, parser):
        parser.add_argument(
            "--translations", action="store_true",
            help="Also run every translation check (placeholder, punctuation, spaces, unchanged, "
                 "length, glossary …) on every translated text; a finding a curator dismissed "
                 "is not reported. Each finding is printed as key:field [language] check: message.",
        )
        parser.add_argument("--game", choices=Game.values, help="Only this game's translations.")
        parser.add_argument("--language", help="Only this target language's translations.")

    def handle(self, *args, **options):
        problems = find_problems()
        for problem in problems:
            self.stdout.write(str(problem))
        findings = 0
        if options["translations"]:
            findings = self._translation_findings(options["game"], options["language"])
        if problems or findings:
            parts = [f"{len(problems)} problems in the catalogue"] if problems else []
            if findings:
                parts.append(f"{findings} translation check findings not dismissed")
            raise CommandError("; ".join(parts) + ".", returncode=1)
        if options["translations"]:
            self.stdout.write(self.style.SUCCESS(
                "The catalogue obeys every content rule; no translation check finds anything "
                "that was not dismissed."))
        else:
            self.stdout.write(self.style.SUCCESS("The catalogue obeys every content rule."))
        self._deck_sizes(options["game"])

    def _deck_sizes(self, game: str | None) -> None:
        """What each language's deck holds, as the content pack a release would carry; for the
        slogan game also each market's deck (en-GB, en-US; "en" is what both share)."""
        from exports.packs import build_pack, editions_of_game  # the decks are the packs' (exports)

        for name in [game] if game else Game.values:
            for code in editions_of_game(name):
                body = build_pack(name, code)["body"]
                sizes = ", ".join(f"{len(items)} {part}" for part, items in body.items()
                                  if isinstance(items, list))
                self.stdout.write(f"Deck {name} ({code}): {sizes}")

    def _translation_findings(self, game: str | None, language: str | None) -> int:
        from cards.checks import catalogue_findings

        targets = list(settings.KARTOTHEK_LANGUAGES[1:])
        if language is not None and language not in targets:
            raise CommandError(f"“{language}” is not a target language; configured: "
                               f"{', '.join(targets)}.", returncode=2)
        count = 0
        for name in [game] if game else Game.values:
            for code in [language] if language else targets:
                for checked in catalogue_findings(name, code):
                    for finding in checked.findings:
                        count += 1
                        self.stdout.write(f"{name} {checked.label} [{code}] {finding.check}: "
                                          f"{finding.message}")
        return count
