"""``manage.py import_catalogue``: load a catalogue folder, all or nothing."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from cards.catalogue import CatalogueError, import_catalogue


class Command(BaseCommand):
    help = (
        "Load a catalogue folder (default: fixtures/, the starter catalogue). All or nothing: "
        "on any error nothing is changed and every error is listed. Running it again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", nargs="?", default=str(settings.BASE_DIR / "fixtures"))
        parser.add_argument("--dry-run", action="store_true", help="check and report, change nothing")

    def handle(self, *args, directory, dry_run, **options):
        try:
            report = import_catalogue(Path(directory), dry_run=dry_run)
        except CatalogueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(report.summary())
        if report.errors:
            for error in report.errors:
                self.stderr.write(error)
            raise CommandError(f"{len(report.errors)} errors; nothing was changed.")
        verb = "would change" if dry_run else "changed"
        self.stdout.write(self.style.SUCCESS(f"Catalogue {directory}: {verb} {report.changed} rows."))
