"""``manage.py export_tts``: a game's cards as Tabletop Simulator sheets and saved object."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from exports.errors import PackError
from exports.packs import MARKET_HELP, edition_option
from exports.pdf import DeckError, DeckOptions, OptionError, parse_size
from exports.pdf.raster import RasterError
from exports.pdf.source import deck_pack
from exports.tts import export_tts, write_export


class Command(BaseCommand):
    help = (
        "Export a game's cards for Tabletop Simulator: RGB card sheets (at most 10 × 7 cards, "
        "4096 × 4096 px) and a saved-object JSON that points to them. Copy the JSON into TTS's "
        "Saved Objects folder; the sheets stay where --base-url (or the file:// paths) say."
    )

    def add_arguments(self, parser):
        parser.add_argument("game", help="symbols, sign, slogan or sauschwer")
        parser.add_argument("--lang", required=True, help="language of the pack, e.g. de or en")
        parser.add_argument("--market", help=MARKET_HELP)
        parser.add_argument("--out", required=True, help="folder for the sheets and the JSON")
        parser.add_argument("--pack", help="export this pack file instead of a stored pack")
        parser.add_argument("--release", help="N (a release number), latest or draft")
        parser.add_argument("--size", default="poker", help="card shape: poker, bridge, tarot, mini or WxH")
        parser.add_argument("--base-url", help="where the sheets will be served from, e.g. "
                            "https://example.org/tts/ (default: file:// paths into --out)")
        parser.add_argument("--first-deck-key", type=int,
                            help="deck key of the first sheet (default: taken from the pack's sha256)")

    def handle(self, *args, game, lang, market, out, pack, release, size, base_url, first_deck_key,
               **options):
        folder = Path(out)
        try:
            size_name, size_mm = parse_size(size)
            deck_options = DeckOptions(size=size_mm, size_name=size_name, bleed=0.0,
                                       layout="single", contents_page=False)
            lang = edition_option(game, lang, market)
            content = deck_pack(game, lang, pack_file=pack, release=release)
            export = export_tts(content, base_url=base_url, folder=folder, options=deck_options,
                                first_key=first_deck_key)
            write_export(export, folder)
        except DeckError as exc:
            raise CommandError(str(exc)) from None
        except (PackError, OptionError, RasterError, OSError) as exc:
            raise CommandError(str(exc)) from None
        for message in export.warnings:
            self.stderr.write(f"warning: {message}")
        self.stdout.write(f"Wrote {len(export.files)} files to {folder}: {export.decks} decks, "
                          f"{export.cards} cards ({game}-{lang}.json is the saved object).")
