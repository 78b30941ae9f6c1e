"""Card preview speed: one card (front or back) as a PNG at screen size, on one core.

    python bench/preview_speed.py [--renders 200] [--width 240]

Each of the six kinds of card (concept, symbol tile, Sign card, slogan card, Alfons card,
Sauschwer object; a pack-form item made in memory, no database) is previewed --renders
times, front and back in turn, each time with a text no render has seen (so the cache never
answers): ``exports.preview.card_preview`` from the item to the PNG bytes. The floor is the
same card drawn by reportlab alone (the deck renderer's one-card PDF, what the preview
rasterises), timed in the same run. Also shown: a cache hit, the same PDF rasterised by
pdftoppm (the route the print-shop export takes) instead of PDFium, and ``fit_problem`` over
10,000 texts.

The process is pinned to one core (sched_setaffinity). Targets (issue 15): p95 < 50 ms per
preview; the checks of 10,000 texts in under 5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-")
os.environ.pop("DATABASE_URL", None)

COLOURS = [("rot", "Rot", "#d7263d", "●"), ("blau", "Blau", "#1b4db3", "▲"),
           ("gruen", "Grün", "#2e7d32", "■"), ("gelb", "Gelb", "#b58900", "◆")]


def items(n: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(game, kind, item) of the six kinds of card, with a text unique to ``n``."""
    colours = [{"key": k, "name": name, "status": "source", "hex": hx, "mark": mark, "position": i}
               for i, (k, name, hx, mark) in enumerate(COLOURS, 1)]
    options = [{"text": f"Marke {k}", "status": "source", "correct": k == 2} for k in range(1, 5)]
    return [
        ("symbols", "concept", {"group": "concepts", "refs": {}, "entry": {
            "key": f"begriff-{n}", "text": f"Bermuda-Dreieck {n}", "status": "source"}}),
        ("symbols", "symbol tile", {"group": "tiles", "refs": {}, "entry": {
            "key": f"handy-{n}", "name": f"Handy {n}", "status": "source", "extra": n % 2 == 0,
            "position": 1, "icon": "device-mobile", "picture": None}}),
        ("sign", "Sign card", {"group": "cards", "entry": {"key": f"anker-rot-{n}", "symbol": "anker",
                                                           "colour": "rot"},
                               "refs": {"symbols": [{"key": "anker", "name": f"Anker {n}",
                                                     "status": "source", "icon": "anchor",
                                                     "position": 1}], "colours": colours}}),
        ("slogan", "slogan card", {"group": "slogans", "refs": {}, "entry": {"key": f"karte-{n}", "slogans": [
            {"key": f"a-{n}", "text": f"Nicht immer, aber immer öfter. ({n})", "status": "source",
             "markets": ["de"], "options": options},
            {"key": f"b-{n}", "text": "… weiß, was Frauen wünschen.", "status": "source",
             "markets": ["de"], "options": options}]}}),
        ("slogan", "Alfons card", {"group": "alfons", "refs": {}, "entry": {
            "key": f"alfons-{n}", "status": "source", "effect": {"kind": "move", "amount": 2},
            "text": f"Du hast den Rasen an einem Sonntag gemäht. Gehe {n % 5 + 1} Felder zurück."}}),
        ("sauschwer", "Sauschwer object", {"group": "objects", "refs": {}, "entry": {
            "key": f"ding-{n}", "name": f"Eine Waschmaschine voller Bücher Nr. {n}", "status": "source",
            "weight_g": 60_000 + n, "weight_source": ""}}),
    ]


def timed(function: Callable[[], Any]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def cpu_timed(function: Callable[[], Any], cpu: list[float]) -> float:
    """Wall-clock time; the process's CPU time is appended to ``cpu`` (on a shared machine
    the wall clock includes waiting for the core, the CPU time does not)."""
    start, start_cpu = time.perf_counter(), time.process_time()
    function()
    cpu.append(time.process_time() - start_cpu)
    return time.perf_counter() - start


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def ms(value: float) -> str:
    return f"{value * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--renders", type=int, default=200, help="previews per kind of card")
    parser.add_argument("--width", type=int, default=240, help="preview width in px")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    import django

    django.setup()
    from django.core.cache import cache

    from exports import preview
    from exports.pdf.raster import pdf_to_pixels

    # warm-up: fonts, icons, the layout version
    for game, _kind, item in items(-1):
        for side in preview.SIDES:
            preview.card_preview(game, item, "de", side=side, width_px=args.width)

    print(f"card previews, {args.width} × {preview.height_for(args.width)} px, one core, "
          f"{args.renders} renders per kind (front and back in turn), each a card not seen before")
    print(f"{'card':18} {'preview p50':>12} {'p95':>9} {'reportlab PDF p50':>18} {'p95':>9} "
          f"{'ratio p50':>10} {'preview CPU p50':>16} {'p95':>9}")
    all_preview: list[float] = []
    all_floor: list[float] = []
    all_cpu: list[float] = []
    for index in range(6):
        previews: list[float] = []
        floors: list[float] = []
        cpu: list[float] = []
        for n in range(args.renders):
            game, kind, item = items(n)[index]
            side = preview.SIDES[n % 2]
            floors.append(timed(lambda g=game, i=item, s=side: preview._render_pdf(g, i, "de", s)))
            previews.append(cpu_timed(lambda g=game, i=item, s=side: preview.card_preview(
                g, i, "de", side=s, width_px=args.width), cpu))
        all_preview += previews
        all_floor += floors
        all_cpu += cpu
        print(f"{kind:18} {ms(statistics.median(previews)):>12} {ms(p95(previews)):>9} "
              f"{ms(statistics.median(floors)):>18} {ms(p95(floors)):>9} "
              f"{statistics.median(previews) / statistics.median(floors):>9.2f}× "
              f"{ms(statistics.median(cpu)):>16} {ms(p95(cpu)):>9}")
    print(f"{'all':18} {ms(statistics.median(all_preview)):>12} {ms(p95(all_preview)):>9} "
          f"{ms(statistics.median(all_floor)):>18} {ms(p95(all_floor)):>9} "
          f"{statistics.median(all_preview) / statistics.median(all_floor):>9.2f}× "
          f"{ms(statistics.median(all_cpu)):>16} {ms(p95(all_cpu)):>9}")
    print(f"load average {os.getloadavg()[0]:.1f}; target p95 < 50 ms: wall clock "
          f"{'met' if p95(all_preview) < 0.050 else 'NOT met'}, CPU time "
          f"{'met' if p95(all_cpu) < 0.050 else 'NOT met'}")

    game, _kind, item = items(10**6)[5]
    preview.card_preview(game, item, "de", width_px=args.width)
    hits = [timed(lambda: preview.card_preview(game, item, "de", width_px=args.width))
            for _ in range(200)]
    print(f"cache hit (LocMem): p50 {ms(statistics.median(hits))}, p95 {ms(p95(hits))}")

    pdf = preview._render_pdf(game, item, "de", "front")
    pdfium = [timed(lambda: preview.rasterise(pdf, args.width)) for _ in range(30)]
    height = preview.height_for(args.width)
    poppler = [timed(lambda: pdf_to_pixels(pdf, args.width, height)) for _ in range(30)]
    print(f"rasterising the one-card PDF: PDFium + PNG p50 {ms(statistics.median(pdfium))}; "
          f"pdftoppm (a process per call, no PNG) p50 {ms(statistics.median(poppler))}")

    texts = [f"Eine {'sehr ' * (n % 12)}lange Sache Nummer {n}" for n in range(10_000)]
    texts[::500] = [f"{'Ein unglaublich langer Name ' * 12} {n}" for n in range(20)]
    item = items(0)[5][2]
    elapsed = timed(lambda: [preview.fit_problem(item, "name", "de", t) for t in texts])
    flagged = sum(1 for t in texts if preview.fit_problem(item, "name", "de", t))
    print(f"fit_problem over 10,000 Sauschwer names ({flagged} too long): {elapsed:.2f} s "
          f"(target < 5 s: {'met' if elapsed < 5 else 'NOT met'})")
    cache.clear()


if __name__ == "__main__":
    main()
