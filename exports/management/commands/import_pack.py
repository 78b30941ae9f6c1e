"""``manage.py import_pack``: restore a content pack file into this installation."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from exports.errors import PackError
from exports.packs import read_pack_file
from exports.restore import import_pack


class Command(BaseCommand):
    help = (
        "Restore a content pack file into this installation (checked against the schema "
        "first): the game's cards, or a further language's translations of them."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")

    def handle(self, *args, file, **options):
        try:
            pack = read_pack_file(Path(file))
            created, translated = import_pack(pack)
        except PackError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(
            f"Imported {pack['game']} ({pack['language']}): {created} cards, "
            f"{translated} translations."))
