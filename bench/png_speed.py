"""Print-shop PNG speed: the gamecrafter profile against a floor, on a generated Sauschwer pack.

    python bench/png_speed.py [--cards 209] [--repeat 2]

Each card makes two PNGs (front and back, 825 × 1125 px at 300 dpi), written into a zip file
as render_deck --profile gamecrafter does. The floor is the part no export of these pages can
skip: the same card pages, drawn into PDFs beforehand (not timed), rasterised by PDFium and
written as PNGs on as many threads as the export uses, kept nowhere. A second reference
shows the machine's speed in familiar terms: Pillow drawing plain cards of the same size
(coloured background, a white rounded box, the card's name) and encoding them with its own
PNG encoder at zlib level 1. Best of --repeat runs; the export's CPU seconds are printed
too, as cards per CPU second do not depend on how busy a shared machine is.

Memory: the peak RSS of a deck of --cards and of one four times as big, each in a fresh
process: the export keeps no list of the deck's images, so the two should be about equal.

Target (issue 14): at least 50 cards/s on 2 cores, memory flat in the deck size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-")
os.environ.pop("DATABASE_URL", None)


def render_ours(cards: int, path: Path, cpu: list[float] | None = None) -> float:
    from pdf_speed import make_pack

    from exports.pdf import DeckOptions, DeckRenderer, apply_profile
    from exports.pdf.printshop import write_gamecrafter

    pack = make_pack(cards)
    start, start_cpu = time.perf_counter(), time.process_time()
    renderer = DeckRenderer(pack, apply_profile(DeckOptions(), "gamecrafter"))
    files = write_gamecrafter(renderer, path)
    elapsed = time.perf_counter() - start
    if cpu is not None:
        cpu.append(time.process_time() - start_cpu)
    assert files == 2 * cards, files
    return elapsed


def render_floor(cards: int) -> float:
    from pdf_speed import make_pack

    from exports.pdf import DeckOptions, DeckRenderer, apply_profile
    from exports.pdf.printshop import BATCH, DPI, _batch_pdf, faces_of, workers_for
    from exports.pdf.raster import pdf_to_pngs

    renderer = DeckRenderer(make_pack(cards), apply_profile(DeckOptions(), "gamecrafter"))
    faces = faces_of(renderer)
    pdfs = [_batch_pdf(renderer, faces[i:i + BATCH]) for i in range(0, len(faces), BATCH)]

    def rasterise(pdf: bytes) -> int:
        return sum(1 for _ in pdf_to_pngs(pdf, 825, 1125, DPI))

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers_for(None)) as pool:
        made = sum(pool.map(rasterise, pdfs))
    elapsed = time.perf_counter() - start
    assert made == 2 * cards, made
    return elapsed


def render_pillow(cards: int, path: Path) -> float:
    import zipfile

    from pdf_speed import make_pack
    from PIL import Image, ImageDraw, ImageFont

    from exports.pdf.fonts import fonts
    from exports.pdf.printshop import DPI, ZIP_TIME
    from exports.pdf.raster import png_bytes

    names = [card["name"] for card in make_pack(cards)["body"]["cards"]]
    font = ImageFont.truetype(fonts()["bold"].path, 80)

    def plain(index: int) -> bytes:
        image = Image.new("RGB", (825, 1125), "#f4a7b9" if index % 2 else "#5b3f86")
        draw = ImageDraw.Draw(image)
        draw.rounded_rectangle((70, 220, 755, 800), 48, fill="#ffffff")
        draw.text((110, 260), names[index // 2][:14], font=font, fill="#3b1f2b")
        return png_bytes(image, DPI)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool, \
            zipfile.ZipFile(path, "w") as archive:
        for index, data in enumerate(pool.map(plain, range(2 * cards))):
            archive.writestr(zipfile.ZipInfo(f"{index:05d}.png", date_time=ZIP_TIME), data)
    return time.perf_counter() - start


def peak_rss_mb(cards: int) -> float:
    """Peak RSS of a fresh process rendering ``cards`` cards (children included, if any)."""
    code = ("import sys, json, resource; sys.argv = ['png_speed']; import png_speed, django; "
            "django.setup(); from pathlib import Path; import tempfile; "
            f"png_speed.render_ours({cards}, Path(tempfile.mkdtemp()) / 'deck.zip'); "
            "print(json.dumps([resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "bench", check=True,
                            capture_output=True, text=True)
    own, child = json.loads(result.stdout.strip().splitlines()[-1])
    return (own + child) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=209, help="209: the Sauschwer catalogue")
    parser.add_argument("--repeat", type=int, default=2, help="best of N runs per way")
    args = parser.parse_args()

    import django

    django.setup()
    folder = Path(tempfile.mkdtemp(prefix="kartothek-bench-png-"))
    render_ours(4, folder / "warm.zip")  # fonts, PDFium: once per process

    cpu: list[float] = []
    ours = min(render_ours(args.cards, folder / "ours.zip", cpu) for _ in range(args.repeat))
    floor = min(render_floor(args.cards) for _ in range(args.repeat))
    pillow = min(render_pillow(args.cards, folder / "pillow.zip") for _ in range(args.repeat))
    size = (folder / "ours.zip").stat().st_size
    print(f"{args.cards:,} Sauschwer cards, gamecrafter profile: {2 * args.cards:,} PNGs "
          f"825 x 1125 px, {os.cpu_count()} cores")
    print(f"  ours:   {ours:6.2f} s  {args.cards / ours:6.1f} cards/s  ({size / 1e6:.1f} MB zip)"
          f"  (target >= 50 cards/s); {min(cpu):.2f} CPU s: "
          f"{args.cards / min(cpu):.0f} cards per CPU second")
    print(f"  floor:  {floor:6.2f} s  {args.cards / floor:6.1f} cards/s  "
          f"(the same pages, drawn beforehand: PDFium and the PNG writer only)")
    print(f"  ratio:  {ours / floor:6.2f} x the floor's time")
    print(f"  Pillow: {pillow:6.2f} s  {args.cards / pillow:6.1f} cards/s  "
          f"(reference: Pillow drawing and encoding plain cards of the same size)")
    small, large = peak_rss_mb(args.cards), peak_rss_mb(4 * args.cards)
    print(f"  memory: peak RSS {small:.0f} MB for {args.cards:,} cards, {large:.0f} MB for "
          f"{4 * args.cards:,}: {large / small:.2f} x (target: flat, <= 1.2)")
    print(f"  load average during the run: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
