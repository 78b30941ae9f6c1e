"""Text on cards: fitted into its box, printed literally, or refused with the card's name."""

from __future__ import annotations

import io

import pdfplumber
import pytest

from exports.pdf import DeckError
from exports.pdf.fonts import fonts
from exports.pdf.text import fit
from tests import test_pdf
from tests.test_pdf import MM, pack_of, rehash, render

mini_packs = test_pdf.mini_packs  # the fixture, shared with tests/test_pdf.py

pytestmark = pytest.mark.django_db


def with_names(mini_packs, names):
    """The Sauschwer pack with its first objects renamed."""
    pack = pack_of(mini_packs, "sauschwer")
    for card, name in zip(pack["body"]["cards"], names, strict=False):
        card["name"] = name
    return rehash(pack)


def page_text(pdf, page):
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        return doc.pages[page].extract_text()


def test_markup_quotes_and_german_letters_print_literally(mini_packs):
    hostile = ['<b>Fett</b> & <i>“kursiv”</i>', 'Straße „GROẞ“ ‚einfach‘ \'x\' "y"',
               "50 % &amp; \\n {{ brace }} </script>"]
    pdf, report = render(with_names(mini_packs, hostile))
    text = page_text(pdf, 1).replace("\n", " ")
    for name in hostile:
        for word in name.split():
            assert word in text, word
    assert not report.warnings


def test_a_2000_character_name_shrinks_is_cut_and_named_but_stays_in_its_card(mini_packs):
    long_name = ("Ein sehr langer Name " * 100)[:2000]
    unbroken = "x" * 2000
    pack = with_names(mini_packs, [long_name, unbroken])
    pdf, report = render(pack)
    cut = [w for w in report.warnings if "does not fit its box" in w]
    named = {w.split(":")[0] for w in cut}  # front and back of both cards, by the card's name
    assert named == {f"Sauschwer object {c['key']}" for c in pack["body"]["cards"][:2]}
    cards = [p for p in report.placements if p.page == 2]
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[1]
        chars = [(c["x0"], c["x1"], page.height - c["bottom"], page.height - c["top"], c["size"])
                 for c in page.chars if c["text"] not in "⚖"]
    for x0, x1, y0, y1, size in chars:
        assert size >= 6 - 1e-6  # never below the minimum size
        # every character inside the safe zone (4 mm) of one card: no overflow
        assert any((p.x + 4) * MM - 0.5 <= x0 and x1 <= (p.x + p.w - 4) * MM + 0.5
                   and (p.y + 4) * MM - 0.5 <= y0 and y1 <= (p.y + p.h - 4) * MM + 0.5
                   for p in cards), (x0, y0)


def test_an_empty_name_prints_an_empty_card_with_a_warning(mini_packs):
    _pdf, report = render(with_names(mini_packs, [""]))
    assert report.cards == 6
    assert any("the name is empty" in w for w in report.warnings)


def test_right_to_left_text_is_refused_with_the_cards_name(mini_packs):
    with pytest.raises(DeckError) as error:
        render(with_names(mini_packs, ["שלום עולם"]))
    message = str(error.value)
    assert "Sauschwer object" in message and "right-to-left" in message


def test_a_character_the_font_lacks_is_an_error_naming_card_and_character(mini_packs):
    pack = with_names(mini_packs, ["Ein Ding", "漢字"])
    key = pack["body"]["cards"][1]["key"]
    with pytest.raises(DeckError) as error:
        render(pack)
    message = str(error.value)
    assert f"Sauschwer object {key}" in message
    assert "U+6F22" in message and "DejaVuSans-Bold.ttf" in message


def test_the_sign_colour_marks_are_all_in_the_font():
    for role in ("regular", "bold"):
        assert fonts()[role].missing("●▲■◆★✚▼♥ẞ„“‚‘⚖") == []


def test_text_shrinks_before_it_wraps_a_word_apart():
    bold = fonts()["bold"]
    fitted = fit("Grandmother", bold, 47 * MM, 45 * MM, 22, 6)
    assert fitted.lines == ("Grandmother",) and fitted.size < 22 and not fitted.truncated


def test_text_wraps_at_spaces_and_keeps_every_word():
    regular = fonts()["regular"]
    text = "You fix the photocopier. Move forward 2 spaces."
    fitted = fit(text, regular, 40 * MM, 30 * MM, 12, 6)
    assert " ".join(fitted.lines) == text and len(fitted.lines) > 1
    assert max(fitted.widths) <= 40 * MM


def test_text_too_long_even_at_the_minimum_size_ends_with_an_ellipsis():
    regular = fonts()["regular"]
    fitted = fit("word " * 500, regular, 30 * MM, 10 * MM, 12, 6)
    assert fitted.truncated and fitted.size == 6 and fitted.lines[-1].endswith("…")
    height = 6 * (regular.ascent - regular.descent) + (len(fitted.lines) - 1) * fitted.leading
    assert height <= 10 * MM


def test_a_compound_breaks_after_its_hyphen_before_it_shrinks():
    from exports.pdf.fonts import fonts
    from exports.pdf.text import fit

    bold = fonts()["bold"]
    fitted = fit("NASA's crawler-transporter", bold, 80, 60, 20, 6)
    assert fitted.lines == ("NASA's", "crawler-", "transporter")
    assert not fitted.truncated
    # a leading minus is not a place to break
    assert fit("-3 Felder", bold, 200, 60, 20, 6).lines == ("-3 Felder",)
