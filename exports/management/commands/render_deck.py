"""``manage.py render_deck``: a printable deck (PDF, or print-shop PNGs) of a game in a language."""

from __future__ import annotations

import argparse
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from exports.errors import PackError
from exports.packs import MARKET_HELP, edition_option
from exports.pdf import (
    DeckError,
    DeckOptions,
    DeckRenderer,
    OptionError,
    apply_profile,
    parse_offset,
    parse_size,
)
from exports.pdf.imposition import NoRoom
from exports.pdf.options import DUPLEX, PAPERS, PROFILES, SIZES
from exports.pdf.raster import RasterError
from exports.pdf.source import deck_pack


def _mm(value: str) -> float:
    try:
        return float(value.replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{value}' is not a number of millimetres") from None


class Command(BaseCommand):
    help = (
        "Render a printable deck (PDF) of a game in a language from its content pack. "
        "Without --pack the newest release is printed, or the draft when nothing is published. "
        "Lengths are millimetres."
    )

    def add_arguments(self, parser):
        parser.add_argument("game", help="symbols, sign, slogan or sauschwer")
        parser.add_argument("--lang", required=True, help="language of the pack, e.g. de or en")
        parser.add_argument("--market", help=MARKET_HELP)
        parser.add_argument("--out", required=True,
                            help="PDF file to write (--profile gamecrafter: a folder or a .zip)")
        parser.add_argument("--pack", help="print this pack file instead of a stored pack")
        parser.add_argument("--release", help="N (a release number), latest or draft")
        parser.add_argument("--size", default="poker",
                            help="card size: "
                            + ", ".join(f"{k} ({w:g}×{h:g})" for k, (w, h) in SIZES.items())
                            + " or WxH in mm, e.g. 60x90 (default poker)")
        parser.add_argument("--paper", default="a4", choices=list(PAPERS), help="default a4")
        parser.add_argument("--bleed", type=_mm, default=3.0,
                            help="how far backgrounds run on beyond the cut (default 3)")
        parser.add_argument("--safe", type=_mm, default=4.0,
                            help="safe zone: text stays this far inside the cut (default 4)")
        parser.add_argument("--duplex", nargs="?", const="long", choices=DUPLEX,
                            help="double-sided: each sheet of fronts is followed by its backs, "
                            "mirrored for flipping on the long (default) or short edge")
        parser.add_argument("--fold", action="store_true",
                            help="front and back side by side with a fold line between")
        parser.add_argument("--fronts-only", action="store_true", help="leave out the backs")
        parser.add_argument("--crop-marks", action="store_true",
                            help="crop marks in the margins, at every cut")
        parser.add_argument("--crop-length", type=_mm, default=4.0,
                            help="length of the crop marks (default 4; shortened to fit the margin)")
        parser.add_argument("--crop-offset", type=_mm, default=None,
                            help="gap between the cut and the crop marks (default: the bleed)")
        parser.add_argument("--gap", type=_mm, default=0.0,
                            help="space between neighbouring cards (default 0: one cut between them)")
        parser.add_argument("--cut-lines", action="store_true",
                            help="thin dashed lines along every cut, across the sheet")
        parser.add_argument("--margin", type=_mm, default=3.0,
                            help="paper edge left blank for the printer (default 3)")
        parser.add_argument("--back-offset", default="0,0", metavar="X,Y",
                            help="move the backs by X mm across and Y mm up to make up for a "
                            "printer that shifts the back side; --calibration measures it")
        parser.add_argument("--calibration", action="store_true",
                            help="with --duplex: add a calibration sheet to measure --back-offset")
        parser.add_argument("--min-font-size", type=float, default=6.0, metavar="PT",
                            help="text shrinks to fit down to this size, then is cut with a "
                            "warning (default 6 pt)")
        parser.add_argument("--profile", choices=PROFILES,
                            help="print shop: drivethru (PDF, one card per page with 1/8 in bleed, "
                            "each front followed by its back) or gamecrafter (825 × 1125 px PNGs "
                            "per poker card at 300 dpi, rendered from the PDF pages with PDFium)")
        parser.add_argument("--no-contents", action="store_true",
                            help="leave out the first page (contents, options, ruler)")
        parser.add_argument("--strict", action="store_true",
                            help="refuse to print when a text has no translation")

    def handle(self, *args, **o):
        try:
            options = self.options_from(o)
            edition = edition_option(o["game"], o["lang"], o["market"])
            pack = deck_pack(o["game"], edition, pack_file=o["pack"], release=o["release"])
            renderer = DeckRenderer(pack, options)
            if options.profile == "gamecrafter":
                report = self.write_gamecrafter(renderer, Path(o["out"]))
            else:
                with open(o["out"], "wb") as out:
                    report = renderer.render(out)
        except DeckError as exc:
            raise CommandError(str(exc)) from None
        except (PackError, OptionError, NoRoom, RasterError, OSError) as exc:
            raise CommandError(str(exc)) from None
        for message in report.warnings:
            self.stderr.write(f"warning: {message}")
        what = (f"{report.pages} pages, {report.per_sheet} cards per sheet"
                if options.profile != "gamecrafter" else f"{report.pages} PNG files")
        self.stdout.write(f"Wrote {o['out']}: {report.cards} cards, {what}, "
                          f"{len(report.warnings)} warnings (pack sha256 {pack['sha256'][:12]}…).")

    def options_from(self, o) -> DeckOptions:  # type: ignore[no-untyped-def]
        size_name, size = parse_size(o["size"])
        options = DeckOptions(
            size=size, size_name=size_name, paper=o["paper"], bleed=o["bleed"], safe=o["safe"],
            duplex=o["duplex"], fold=o["fold"], fronts_only=o["fronts_only"],
            crop_marks=o["crop_marks"], crop_length=o["crop_length"], crop_offset=o["crop_offset"],
            gap=o["gap"], cut_lines=o["cut_lines"], margin=o["margin"],
            back_offset=parse_offset(o["back_offset"]), calibration=o["calibration"],
            min_font_size=o["min_font_size"], contents_page=not o["no_contents"],
            strict=o["strict"],
        )
        if options.calibration and not options.duplex:
            raise OptionError("--calibration measures the duplex offset: use it with --duplex.")
        return apply_profile(options, o["profile"])

    def write_gamecrafter(self, renderer, target: Path):  # type: ignore[no-untyped-def]
        from exports.pdf.printshop import write_gamecrafter

        renderer.report.pages = write_gamecrafter(renderer, target)
        return renderer.report
