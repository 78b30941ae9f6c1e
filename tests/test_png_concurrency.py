"""Print-shop PNGs are the same bytes however many exports run at once: several threads of one
process (whose PDFium calls share one lock, documents of different decks in between) and
several processes, each drawing different decks of all four games, every PNG compared with
the bytes the same pages give when drawn alone."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from exports.pdf import DeckOptions, DeckRenderer, apply_profile, printshop
from exports.pdf.raster import pdf_to_pngs
from tests.test_pdf import GAMES, mini_packs, pack_of  # noqa: F401  (mini_packs: the fixture)

pytestmark = pytest.mark.django_db

SIZE = (825, 1125)  # the Game Crafter's poker card at 300 dpi, bleed included


def _decks(packs) -> dict[str, bytes]:
    """One batch PDF per game and language: different fonts, pictures and page counts."""
    decks = {}
    for game in GAMES:
        for language in ("de", "en"):
            renderer = DeckRenderer(pack_of(packs, game, language),
                                    apply_profile(DeckOptions(), "gamecrafter"))
            faces = printshop.faces_of(renderer)[:2 + len(decks) % 5]
            decks[f"{game}-{language}"] = printshop._batch_pdf(renderer, faces)
    return decks


def _pngs(pdf: bytes) -> list[bytes]:
    return list(pdf_to_pngs(pdf, *SIZE, 300))


# Another process drawing decks (the deck files named on its command line) at the same time:
# it writes page N of deck D.pdf to D-N.png beside it.
PROCESS = """
import sys
from pathlib import Path
import django
django.setup()
from exports.pdf.raster import pdf_to_pngs
for name in sys.argv[1:]:
    path = Path(name)
    for page, png in enumerate(pdf_to_pngs(path.read_bytes(), 825, 1125, 300)):
        path.with_name(f"{path.stem}-{page}.png").write_bytes(png)
"""


@pytest.mark.slow  # about 10 s: 2 processes and 6 threads drawing 8 decks three times over
def test_exports_on_threads_and_processes_at_once_give_the_bytes_drawn_alone(mini_packs, tmp_path):  # noqa: F811
    decks = _decks(mini_packs)
    names = sorted(decks)
    alone = {name: _pngs(decks[name]) for name in names}
    assert all(len(pngs) >= 2 for pngs in alone.values())
    wrong: list[str] = []

    def export(slot: int) -> None:
        for turn in range(3):  # each thread walks the decks from a different start
            order = names[slot:] + names[:slot]
            for name in order if turn % 2 == 0 else reversed(order):
                got = _pngs(decks[name])
                wrong.extend(f"thread {slot} turn {turn} {name} page {page}"
                             for page, (a, b) in enumerate(zip(got, alone[name], strict=True))
                             if a != b)

    processes = []
    for k in (1, 4):  # two processes start drawing while the threads below draw in this one
        folder = tmp_path / f"process-{k}"
        folder.mkdir()
        for name in names:
            (folder / f"{name}.pdf").write_bytes(decks[name])
        order = [str(folder / f"{n}.pdf") for n in names[k:] + names[:k]]
        processes.append((folder, subprocess.Popen(
            [sys.executable, "-c", PROCESS, *order], cwd=Path(__file__).parent.parent,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "DEBUG": "1",
                 "DJANGO_SETTINGS_MODULE": "tests.settings"})))
    threads = [threading.Thread(target=export, args=(slot,)) for slot in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for folder, process in processes:
        assert process.wait(timeout=120) == 0
        for name in names:
            got = [(folder / f"{name}-{page}.png").read_bytes() for page in range(len(alone[name]))]
            wrong.extend(f"{folder.name} {name} page {page}"
                         for page, (a, b) in enumerate(zip(got, alone[name], strict=True)) if a != b)
    assert not wrong, wrong[:10]


def test_two_print_shop_exports_at_once_give_the_files_each_gives_alone(mini_packs):  # noqa: F811
    renderers = [DeckRenderer(pack_of(mini_packs, game), apply_profile(DeckOptions(), "gamecrafter"))
                 for game in ("symbols", "slogan")]
    alone = [list(printshop.gamecrafter_pngs(r, workers=1)) for r in renderers]
    together: list[list[tuple[str, bytes]]] = [[], []]

    def export(slot: int) -> None:
        together[slot] = list(printshop.gamecrafter_pngs(renderers[slot], workers=3))

    threads = [threading.Thread(target=export, args=(slot,)) for slot in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for got, expected in zip(together, alone, strict=True):
        assert [name for name, _ in got] == [name for name, _ in expected]
        assert [name for (name, a), (_, b) in zip(got, expected, strict=True) if a != b] == []
