"""``manage.py export_po``: a game's texts in one language as a gettext PO file."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cards.po import PoProblem, export_po


class Command(BaseCommand):
    help = "Write a game's texts in one language as a gettext PO file (for Poedit, Weblate …)."

    def add_arguments(self, parser):
        parser.add_argument("game", help="symbols, sign, slogan or sauschwer")
        parser.add_argument("language", help="a target language, e.g. en")
        parser.add_argument("--out", help="file to write (default: standard output)")

    def handle(self, *args, game, language, out, **options):
        try:
            text = export_po(game, language)
        except PoProblem as exc:
            raise CommandError(str(exc)) from None
        if out:
            Path(out).write_text(text, encoding="utf-8")
            self.stdout.write(self.style.SUCCESS(f"Wrote {out}."))
        else:
            self.stdout.write(text, ending="")
