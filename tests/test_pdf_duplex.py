"""Duplex, fold, offsets and marks: checked on the coordinates in the PDF itself."""

from __future__ import annotations

import io

import pdfplumber
import pytest

from exports.pdf import DeckOptions
from exports.pdf.imposition import sheet
from tests import test_pdf
from tests.test_pdf import GAMES, MM, inside, pack_of, render, words_by_page

mini_packs = test_pdf.mini_packs  # the fixture, shared with tests/test_pdf.py

pytestmark = pytest.mark.django_db

PATTERN = {"●", "⚖", "✚"}  # the card backs' background glyphs, which run on into the bleed


def behind(x, y, page_w, page_h, duplex, offset=(0.0, 0.0)):
    """Where a point of a back page lies on the front page of the same sheet."""
    x, y = x - offset[0] * MM, y - offset[1] * MM
    return (page_w - x, y) if duplex == "long" else (x, page_h - y)


@pytest.mark.parametrize("duplex", ["long", "short"])
@pytest.mark.parametrize("offset", [(0.0, 0.0), (1.5, -2.0)])
def test_each_sauschwer_weight_is_printed_behind_its_object(mini_packs, duplex, offset):
    pack = pack_of(mini_packs, "sauschwer")
    pdf, report = render(pack, duplex=duplex, back_offset=offset, crop_marks=True)
    pages = words_by_page(pdf)
    names = {o["key"]: o["name"] for o in pack["body"]["cards"]}
    for front in (p for p in report.placements if p.side == "front"):
        back = next(p for p in report.placements if p.key == front.key and p.side == "back")
        assert back.page == front.page + 1  # the back sheet follows its front sheet
        width, height, words = pages[back.page - 1]
        weight_words = [(x, y) for t, x, y in words if inside(x, y, back)]
        assert weight_words, front.key
        for x, y in weight_words:  # every word of the back falls on the front's card
            assert inside(*behind(x, y, width, height, duplex, offset), front), front.key
        front_words = [t for t, x, y in pages[front.page - 1][2] if inside(x, y, front)]
        assert names[front.key].split()[0] in front_words


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_slogan_options_are_printed_behind_their_card_and_read_upright(mini_packs, duplex):
    pack = pack_of(mini_packs, "slogan")
    pdf, report = render(pack, duplex=duplex)
    pages = words_by_page(pdf)
    for card in pack["body"]["cards"]:
        front = next(p for p in report.placements if p.key == card["key"] and p.side == "front")
        back = next(p for p in report.placements if p.key == card["key"] and p.side == "back")
        width, height, words = pages[back.page - 1]
        correct = next(o["text"] for o in card["slogans"][0]["options"] if o["correct"])
        word = correct.split()[0]
        # upside-down text (short edge) comes out of the PDF with its letters reversed
        found = [(x, y) for t, x, y in words if t in (word, word[::-1]) and inside(x, y, back)]
        assert found, (duplex, card["key"], correct)
        assert all(inside(*behind(x, y, width, height, duplex), front) for x, y in found)
    # short edge: backs are turned upside down on the page (upright once the sheet is turned)
    assert {p.rotate for p in report.placements if p.side == "back"} == ({180} if duplex == "short" else {0})


@pytest.mark.parametrize("duplex", ["long", "short"])
@pytest.mark.parametrize("game", GAMES)
def test_every_back_slot_mirrors_its_front_slot(mini_packs, game, duplex):
    """Also for the common backs (the same picture on every card): by the recorded slots,
    and by the back design's own label on the page."""
    pack = pack_of(mini_packs, game)
    pdf, report = render(pack, duplex=duplex, size="bridge")
    pages = words_by_page(pdf)
    fronts = {(p.group, p.key): p for p in report.placements if p.side == "front"}
    for back in (p for p in report.placements if p.side == "back"):
        front = fronts[(back.group, back.key)]
        width, height, words = pages[back.page - 1]
        corners = [behind(back.x * MM, back.y * MM, width, height, duplex),
                   behind((back.x + back.w) * MM, (back.y + back.h) * MM, width, height, duplex)]
        xs, ys = sorted(c[0] for c in corners), sorted(c[1] for c in corners)
        assert xs == pytest.approx([front.x * MM, (front.x + front.w) * MM], abs=0.01)
        assert ys == pytest.approx([front.y * MM, (front.y + front.h) * MM], abs=0.01)
        on_back = [(x, y) for t, x, y in words if inside(x, y, back) and not set(t) <= PATTERN]
        assert on_back, back
        assert all(inside(*behind(x, y, width, height, duplex), front) for x, y in on_back)


def test_fold_mode_puts_each_back_beside_its_front_with_a_fold_line(mini_packs):
    pack = pack_of(mini_packs, "sauschwer")
    pdf, report = render(pack, fold=True)
    assert report.orientation == "landscape" and report.per_sheet == 4
    fronts = {p.key: p for p in report.placements if p.side == "front"}
    for back in (p for p in report.placements if p.side == "back"):
        front = fronts[back.key]
        assert (back.page, back.x, back.y) == (front.page, front.x + front.w, front.y)
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[1]
        fold_x = (next(iter(fronts.values())).x + 63) * MM
        assert any(abs(line["x0"] - fold_x) < 0.01 and abs(line["x1"] - fold_x) < 0.01
                   for line in page.lines)


def test_crop_marks_sit_outside_the_cards_at_every_cut(mini_packs):
    pdf, _report = render(pack_of(mini_packs, "sign"), crop_marks=True, crop_length=5, crop_offset=3)
    geometry = sheet(DeckOptions(crop_marks=True, crop_length=5, crop_offset=3))
    x0, y0, x1, y1 = geometry.block
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[1]
        height = page.height
        lines = [(m, (height - m["top"]) / MM, (height - m["bottom"]) / MM, m["x0"] / MM, m["x1"] / MM)
                 for m in page.lines]
    # crop marks: every line outside the cards and their bleed
    marks = [m for m, top, bottom, left, right in lines
             if top <= y0 - 3 + 1e-3 or bottom >= y1 + 3 - 1e-3 or right <= x0 - 3 + 1e-3
             or left >= x1 + 3 - 1e-3]
    assert marks and all(m["linewidth"] >= 0.25 for m in marks)
    cut_xs = {round(x, 2) for x in geometry.cut_xs}
    vertical = {round(m["x0"] / MM, 2) for m in marks if abs(m["x0"] - m["x1"]) < 0.01}
    assert vertical == cut_xs  # a mark at every vertical cut, and only there
    horizontal = {round((height - m["top"]) / MM, 2) for m in marks if abs(m["top"] - m["bottom"]) < 0.01}
    assert horizontal == {round(y, 2) for y in geometry.cut_ys}
    side, top = geometry.mark_length  # as long as asked, or as the margin allows
    assert (side, top) == (pytest.approx(4.5), 5)
    for m in marks:
        length = max(abs(m["top"] - m["bottom"]), abs(m["x1"] - m["x0"])) / MM
        assert length == pytest.approx(top if m["x0"] == m["x1"] else side, abs=0.01)
        assert min(m["x0"], m["top"]) >= 3 * MM - 0.01  # and inside the paper's margin


def test_crop_marks_shrink_to_the_margin_instead_of_losing_cards(mini_packs):
    geometry = sheet(DeckOptions(paper="letter", crop_marks=True, crop_length=8))
    assert geometry.per_sheet == 9
    side, top = geometry.mark_length
    assert 1.5 <= top < 8 and side == pytest.approx(min(8, geometry.block[0] - 3 - 3))


def test_cut_lines_run_along_every_cut(mini_packs):
    pdf, _ = render(pack_of(mini_packs, "sign"), cut_lines=True, gap=4)
    geometry = sheet(DeckOptions(cut_lines=True, gap=4))
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[1]
        long_lines = [line for line in page.lines if line["bottom"] - line["top"] > page.height - 7 * MM]
        xs = {round(line["x0"] / MM, 2) for line in long_lines if abs(line["x0"] - line["x1"]) < 0.01}
    assert xs == {round(x, 2) for x in geometry.cut_xs}
    assert len(xs) == 6  # with a gap, each card has its own two cuts


def test_with_a_gap_every_card_gets_its_full_bleed(mini_packs):
    geometry = sheet(DeckOptions(gap=6, bleed=3))
    assert all(slot.bleed == (3, 3, 3, 3) for slot in geometry.fronts)
    tight = sheet(DeckOptions(gap=2, bleed=3))
    middle = tight.fronts[4]
    assert middle.bleed == (1, 1, 1, 1)  # half the gap each: neighbours never overlap


def test_the_calibration_sheet_comes_first_with_its_scales_centred(mini_packs):
    pdf, report = render(pack_of(mini_packs, "sign"), duplex="long", calibration=True,
                         back_offset=(1, 0))
    pages = words_by_page(pdf)
    texts = [" ".join(t for t, _, _ in words) for _, _, words in pages[:4]]
    assert "printable deck" in texts[0] and texts[1] == ""
    assert "calibration: front" in texts[2] and "calibration: back" in texts[3]
    assert min(p.page for p in report.placements) == 5  # card sheets start on an odd page
    width, _, words = pages[3]
    x_label = next(x for t, x, y in words if t == "X")
    assert x_label > width / 2 + 1 * MM  # the scales moved with the offset
