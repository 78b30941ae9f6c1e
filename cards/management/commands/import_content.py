"""``manage.py import_content``: import one CSV, TSV, XLSX or JSON file of content or translations."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cards.catalogue import CatalogueError, import_file


class Command(BaseCommand):
    help = (
        "Import one file (CSV, TSV, XLSX or JSON). The content type comes from the file's "
        "columns (a translation file: from --type, the sheet name or the file name). All or "
        "nothing: any error and nothing changes, with every row error listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--dry-run", action="store_true", help="check and report, change nothing")
        parser.add_argument(
            "--type", dest="type_hint", default=None,
            help="content type of a translation file, e.g. concepts, slogans, objects",
        )

    def handle(self, *args, file, dry_run, type_hint, **options):
        try:
            kind, report = import_file(Path(file), dry_run=dry_run, type_hint=type_hint)
        except CatalogueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{report.path}: {kind.label}")
        self.stdout.write(
            f"{report.new} new, {report.updated} updated, {report.unchanged} unchanged, "
            f"{len(report.errors)} errors"
        )
        if report.errors:
            for error in report.errors:
                self.stderr.write(f"{report.path}: {error}")
            raise CommandError(f"{len(report.errors)} errors; nothing was changed.")
        if dry_run:
            self.stdout.write("Dry run: nothing was changed.")
        else:
            self.stdout.write(self.style.SUCCESS("Imported."))
