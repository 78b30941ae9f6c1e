"""Pack build speed: build_pack + canonical against a floor (one values() query per table and a
plain json.dumps of the rows), on a generated catalogue, in one run.

    python bench/pack_speed.py [--objects 10000] [--slogan-cards 1000] [--repeat 5] [--profile]

The catalogue (Sauschwer objects, slogan cards with two slogans of four options each, English
translations of every text but a few) is written with bulk_create. Each way runs --repeat
times; the best run counts. Also counts the queries of one build on a small catalogue and on
the big one: a build runs a fixed number of queries whatever the size.
Target: build_pack + canonical at most 2x the floor.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
if __name__ == "__main__":  # imported by serve_speed.py, which sets up its own folder
    os.environ["KARTOTHEK_VAR_DIR"] = tempfile.mkdtemp(prefix="kartothek-bench-")
    os.environ.pop("DATABASE_URL", None)

TARGET = 2.0
STATES = ("approved", "translated", "approved", "needs_editing")
SMALL = (20, 10)  # objects, slogan cards of the small catalogue


def make_catalogue(objects: int, slogan_cards: int, *, start_objects: int = 0,
                   start_cards: int = 0) -> None:
    """Add Sauschwer objects [start_objects, objects) and slogan cards [start_cards,
    slogan_cards), with English translations, written with bulk_create (no history).

    Every 50th text has no translation (the pack falls back to German), every 20th slogan stays
    German; states vary as a real catalogue's do.
    """
    from django.contrib.contenttypes.models import ContentType
    from django.db import transaction

    from cards.models import SauschwerObject, Slogan, SloganCard, SloganOption, Translation

    def translation(model: type, pk: int, field: str, source: str, text: str, i: int) -> Translation:
        return Translation(content_type=ContentType.objects.get_for_model(model), object_id=pk,
                           field=field, language="en", text=text, source_text=source,
                           state=STATES[i % len(STATES)])

    with transaction.atomic():
        things = []
        for i in range(start_objects, objects):
            obj = SauschwerObject(key=f"ding-{i:05d}", name=f"Ding Nummer {i} aus Holz",
                                  weight_g=(i * 7919) % 10_000_000 + 1,
                                  source=f"Küchenwaage, gewogen am {i % 28 + 1}. März")
            obj.prepare_for_bulk()
            things.append(obj)
        things = SauschwerObject.objects.bulk_create(things, batch_size=2000)
        Translation.objects.bulk_create(
            [translation(SauschwerObject, o.pk, "name", o.name,
                         f"Thing number {o.key[5:]} made of wood", i)
             for i, o in enumerate(things) if i % 50 != 49],
            batch_size=2000,
        )

        cards = []
        for i in range(start_cards, slogan_cards):
            card = SloganCard(key=f"karte-{i:05d}")
            card.prepare_for_bulk()
            cards.append(card)
        cards = SloganCard.objects.bulk_create(cards, batch_size=2000)
        slogans = []
        for card in cards:
            n = int(card.key[6:])
            for side in (1, 2):
                slogan = Slogan(key=f"spruch-{n:05d}-{side}", card=card, side=side,
                                text=f"Spruch {side} auf Karte {n}: Da weiß man, was man hat",
                                keep_german=(2 * n + side) % 20 == 0, source="Werbung, 1985",
                                markets="de" if (2 * n + side) % 20 == 0 else "de,en")
                slogan.prepare_for_bulk()
                slogans.append(slogan)
        slogans = Slogan.objects.bulk_create(slogans, batch_size=2000)
        options = [
            SloganOption(slogan=slogan, position=position, is_correct=position == 1 + i % 4,
                         text=f"Marke {position} für {slogan.key}")
            for i, slogan in enumerate(slogans) for position in (1, 2, 3, 4)
        ]
        options = SloganOption.objects.bulk_create(options, batch_size=2000)
        Translation.objects.bulk_create(
            [translation(Slogan, s.pk, "text", s.text, f"Slogan {s.key[7:]}: you know what you get",
                         i)
             for i, s in enumerate(slogans) if i % 50 != 49 and not s.keep_german]
            + [translation(SloganOption, o.pk, "text", o.text, f"Brand {o.position} of {o.slogan.key}",
                           i)
               for i, o in enumerate(options) if i % 50 != 49],
            batch_size=2000,
        )


def floor_rows(game: str) -> dict[str, list[dict[str, object]]]:
    """One values() query per table a build of `game` reads (rows in the order a pack needs
    them), nothing else."""
    from django.contrib.contenttypes.models import ContentType

    from cards.models import AlfonsCard, SauschwerObject, Slogan, SloganCard, SloganOption, Translation

    def texts(*models: type) -> list[dict[str, object]]:
        types = [ContentType.objects.get_for_model(m).pk for m in models]
        return list(Translation.objects.filter(content_type__in=types, language="en").exclude(
            text="").values("content_type_id", "object_id", "field", "text", "state"))

    if game == "sauschwer":
        return {
            "objects": list(SauschwerObject.objects.order_by("key").values(
                "pk", "key", "name", "weight_g", "source")),
            "translations": texts(SauschwerObject),
        }
    return {
        "cards": list(SloganCard.objects.order_by("key").values("pk", "key")),
        "slogans": list(Slogan.objects.order_by("card_id", "side").values(
            "pk", "card_id", "key", "text", "keep_german")),
        "options": list(SloganOption.objects.order_by("slogan_id", "position").values(
            "pk", "slogan_id", "text", "is_correct")),
        "alfons": list(AlfonsCard.objects.order_by("key").values(
            "pk", "key", "text", "effect", "amount", "target")),
        "translations": texts(Slogan, SloganOption, AlfonsCard),
    }


def best_of(repeat: int, fn: Callable[[], object]) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):  # best of N: the machine is shared and noisy
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def count_queries(fn: Callable[[], object]) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as context:
        fn()
    return len(context.captured_queries)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=10_000)
    parser.add_argument("--slogan-cards", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5, help="best of N runs per way")
    parser.add_argument("--profile", action="store_true",
                        help="print cProfile's hot spots of one build of each pack")
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.db import connection

    from exports.packs import build_pack, canonical

    games = ("sauschwer", "slogan")

    def build(game: str) -> Callable[[], bytes]:
        return lambda: canonical(build_pack(game, "en"))

    def floor(game: str) -> Callable[[], bytes]:
        return lambda: json.dumps(floor_rows(game)).encode()

    small_objects, small_cards = SMALL
    make_catalogue(small_objects, small_cards)
    for game in games:
        build(game)()  # warm: ContentType's cache, the JSON Schema, Python's own caches
    small_queries = {game: count_queries(build(game)) for game in games}

    start = time.perf_counter()
    make_catalogue(args.objects, args.slogan_cards, start_objects=small_objects,
                   start_cards=small_cards)
    setup = time.perf_counter() - start
    big_queries = {game: count_queries(build(game)) for game in games}
    print(f"catalogue: {args.objects:,} Sauschwer objects, {args.slogan_cards:,} slogan cards "
          f"({2 * args.slogan_cards:,} slogans, {8 * args.slogan_cards:,} options), English "
          f"translations; bulk_create set-up {setup:.2f} s")
    print()

    ratios = {}
    for game in games:
        t_floor, floor_bytes = best_of(args.repeat, floor(game))
        t_build, pack_bytes = best_of(args.repeat, build(game))
        assert isinstance(pack_bytes, bytes) and isinstance(floor_bytes, bytes)
        ratios[game] = t_build / t_floor
        print(f"{game}/en  build_pack+canonical {t_build * 1000:8.1f} ms ({len(pack_bytes):>9,} bytes)"
              f"   floor {t_floor * 1000:8.1f} ms ({len(floor_bytes):>9,} bytes)"
              f"   ratio {ratios[game]:4.2f}x  target <= {TARGET:g}x"
              f"  {'ok' if ratios[game] <= TARGET else 'MISSED'}")
    print()
    for game in games:
        same = "constant" if small_queries[game] == big_queries[game] else "GROWS"
        print(f"{game}/en  queries of one build: {small_queries[game]} on {small_objects} objects / "
              f"{small_cards} slogan cards, {big_queries[game]} on {args.objects:,} / "
              f"{args.slogan_cards:,}  ({same})")
    print(f"best of {args.repeat}; database: {connection.vendor}; machine: {os.cpu_count()} cores")

    if args.profile or any(r > TARGET for r in ratios.values()):
        for game in games:
            profiler = cProfile.Profile()
            profiler.runcall(build(game))
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
            print(f"\n--- cProfile of one build of {game}/en (by own time) ---")
            print("\n".join(line for line in out.getvalue().splitlines()[4:] if line.strip()))


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(os.environ["KARTOTHEK_VAR_DIR"], ignore_errors=True)
