from pathlib import Path

from django.core.management.base import BaseCommand

from cards.catalogue import export_catalogue


class Command(BaseCommand):
    help = "Write the whole catalogue, pictures included, as a folder that import_catalogue restores."

    def add_arguments(self, parser):
        parser.add_argument("directory")

    def handle(self, *args, directory, **options):
        written = export_catalogue(Path(directory))
        self.stdout.write(self.style.SUCCESS(f"Wrote {len(written)} files to {directory}."))
