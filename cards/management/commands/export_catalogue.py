"""``manage.py export_catalogue``: the whole catalogue, pictures included, as a folder."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cards.catalogue import export_catalogue
from cards.pictures import PictureError


class Command(BaseCommand):
    help = "Write the whole catalogue, pictures included, as a folder that import_catalogue restores."

    def add_arguments(self, parser):
        parser.add_argument("directory")

    def handle(self, *args, directory, **options):
        try:
            written = export_catalogue(Path(directory))
        except PictureError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(f"Wrote {len(written)} files to {directory}."))
