"""``manage.py import_po``: read a translated PO file back in."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cards.po import PoProblem, import_po


class Command(BaseCommand):
    help = (
        "Read a translated PO file back in. Errors: nothing is saved (exit status 1); "
        "conflicts with approved translations are reported and kept, the rest is saved."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("game", help="symbols, sign, slogan or sauschwer")
        parser.add_argument("language", help="a target language, e.g. en")
        parser.add_argument("--dry-run", action="store_true", help="check and report, change nothing")

    def handle(self, *args, file, game, language, dry_run, **options):
        try:
            text = Path(file).read_bytes().decode("utf-8-sig")
        except OSError as exc:
            raise CommandError(f"{file}: cannot be read ({exc.strerror}).") from None
        except UnicodeDecodeError:
            raise CommandError(f"{file}: not UTF-8 text; save the PO file as UTF-8.") from None
        try:
            report = import_po(text, game, language, dry_run=dry_run)
        except PoProblem as exc:
            raise CommandError(str(exc)) from None
        for message in report.messages:
            (self.stderr if message.startswith(("error", "conflict")) else self.stdout).write(message)
        if report.errors:
            raise CommandError(f"{file}: {report.summary()}")
        self.stdout.write(self.style.SUCCESS(f"{file}: {report.summary()}"))
