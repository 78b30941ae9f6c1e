"""Deck rendering speed: render_deck against a floor, on a generated Sauschwer pack, in one run.

    python bench/pdf_speed.py [--cards 10000] [--repeat 3]

The pack (10,000 objects by default) is built in memory as the schema describes it. The deck
is printed duplex (long edge) with crop marks on A4. The floor is reportlab alone: the
drawing operations the renderer made (the same strings at the same places, the same forms,
rectangles and marks) replayed on a fresh canvas, with no layout logic, then saved the same
way. Both write to a file; the best of --repeat runs counts.

Targets (issue 6): at least 1,000 cards/s; at most 1.5x the floor's time; the memory peak
(tracemalloc) for 10,000 cards at most 1.5x the peak for 1,000 cards.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-")
os.environ.pop("DATABASE_URL", None)

WORDS = ["Ein", "Eine", "Der", "Die", "Das", "alte", "große", "kleine", "rote", "schwere",
         "Kuh", "Waschmaschine", "Bowlingkugel", "Eiffelturm", "Hühnerei", "Flusspferd",
         "Kühlschrank", "Tasse", "Kaffee", "voller", "Bücher", "aus", "Gusseisen", "Straßenbahn"]


def make_pack(cards: int) -> dict[str, Any]:
    from exports.packs import FORMAT, FORMAT_VERSION, canonical, sha256

    objects = []
    for i in range(cards):
        words = [WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(2 + i % 4)]
        objects.append({"key": f"ding-{i:05d}", "name": f"{' '.join(words)} Nr. {i}",
                        "status": "source", "weight_g": (i * 7919) % 10_000_000 + 1,
                        "weight_source": "geschätzt"})
    body = {"cards": objects}
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": "sauschwer",
            "language": "de", "source_language": "de", "content_version": "draft",
            "sha256": sha256(canonical(body)), "body": body}


class Recorder:
    """Stands in for the canvas, records every drawing call and passes it on."""

    def __init__(self, canvas: Any, ops: list) -> None:
        self.__dict__["_canvas"] = canvas
        self.__dict__["_ops"] = ops

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._canvas, name)
        if not callable(value) or name.startswith("_") or name in ("getPageNumber",):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            self._ops.append((name, args, kwargs))
            return value(*args, **kwargs)

        return call

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._canvas, name, value)


def render_ours(pack: dict[str, Any], path: Path, ops: list | None = None) -> float:
    from exports.pdf import DeckOptions, render_deck
    from exports.pdf import render as render_module
    from exports.pdf.streaming import streaming_canvas

    options = DeckOptions(duplex="long", crop_marks=True)
    if ops is not None:
        render_module.streaming_canvas = lambda *a, **k: Recorder(streaming_canvas(*a, **k), ops)
    try:
        start = time.perf_counter()
        with open(path, "wb") as out:
            render_deck(pack, options, out)
        return time.perf_counter() - start
    finally:
        render_module.streaming_canvas = streaming_canvas


def render_floor(ops: list, path: Path) -> float:
    from reportlab.lib.units import mm

    from exports.pdf.fonts import fonts
    from exports.pdf.streaming import finish, streaming_canvas

    start = time.perf_counter()
    with open(path, "wb") as out:
        canvas = streaming_canvas(out, (210 * mm, 297 * mm), fonts()["regular"].name)
        for name, args, kwargs in ops:
            getattr(canvas, name)(*args, **kwargs)
        finish(canvas)
    return time.perf_counter() - start


def peak_memory(pack: dict[str, Any], path: Path) -> int:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    render_ours(pack, path)
    peak = tracemalloc.get_traced_memory()[1] - before
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per way")
    args = parser.parse_args()

    import django

    django.setup()
    from exports.pdf.fonts import fonts

    fonts()
    folder = Path(tempfile.mkdtemp(prefix="kartothek-bench-pdf-"))
    pack = make_pack(args.cards)
    render_ours(make_pack(20), folder / "warm.pdf")  # fonts, colours, forms: once per process

    ours = min(render_ours(pack, folder / "ours.pdf") for _ in range(args.repeat))
    ops: list = []
    render_ours(pack, folder / "recorded.pdf", ops)
    floor = min(render_floor(ops, folder / "floor.pdf") for _ in range(args.repeat))
    size = (folder / "ours.pdf").stat().st_size
    print(f"{args.cards:,} Sauschwer cards, duplex (long edge) with crop marks, A4, 9 per sheet")
    print(f"  render_deck: {ours:6.2f} s  {args.cards / ours:8,.0f} cards/s  ({size / 1e6:.1f} MB PDF)")
    print(f"  floor:       {floor:6.2f} s  {args.cards / floor:8,.0f} cards/s  "
          f"(reportlab replaying the same {len(ops):,} drawing calls)")
    print(f"  ratio:       {ours / floor:6.2f} x the floor (target <= 1.5)")
    small = peak_memory(make_pack(args.cards // 10), folder / "small.pdf")
    large = peak_memory(pack, folder / "large.pdf")
    print(f"  memory peak: {large / 1e6:.1f} MB for {args.cards:,} cards, {small / 1e6:.1f} MB for "
          f"{args.cards // 10:,}: {large / small:.2f} x (target <= 1.5)")


if __name__ == "__main__":
    main()
