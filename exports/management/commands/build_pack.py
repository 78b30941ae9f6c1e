"""``manage.py build_pack``: the draft content pack of a game in a language."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from exports.errors import PackError
from exports.packs import MARKET_HELP, build_pack, canonical, edition_option, validate, with_embedded_pictures


class Command(BaseCommand):
    help = "Build the draft content pack of a game in a language from the current content."

    def add_arguments(self, parser):
        parser.add_argument("game", help="symbols, sign, slogan or sauschwer")
        parser.add_argument("--lang", required=True, help="language, e.g. de or en")
        parser.add_argument("--market", help=MARKET_HELP)
        parser.add_argument("--out", required=True, help="file to write ('-' for standard output)")
        parser.add_argument("--strict", action="store_true",
                            help="refuse when a text has no translation (instead of German)")
        parser.add_argument("--embed-pictures", action="store_true",
                            help="put the symbol pictures inside the pack (for offline clients)")

    def handle(self, *args, game, lang, market, out, strict, embed_pictures, **options):
        try:
            pack = build_pack(game, edition_option(game, lang, market), strict=strict)
            if embed_pictures:
                pack = with_embedded_pictures(pack)
            validate(pack)
        except PackError as exc:
            raise CommandError(str(exc)) from None
        data = canonical(pack)
        if out == "-":
            self.stdout.write(data.decode())
            return
        Path(out).write_bytes(data)
        fallback = sum(1 for _ in _statuses(pack) if _ == "fallback")
        note = f"; {fallback} texts fall back to German" if fallback else ""
        self.stderr.write(f"Wrote {out}: {len(data):,} bytes, sha256 {pack['sha256']}{note}.")


def _statuses(node):
    if isinstance(node, dict):
        if "status" in node:
            yield node["status"]
        for value in node.values():
            yield from _statuses(value)
    elif isinstance(node, list):
        for value in node:
            yield from _statuses(value)
