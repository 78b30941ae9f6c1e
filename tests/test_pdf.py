"""Printable decks: every game in every size, where the cards go, what the PDF says about itself.

The PDFs are opened again with pdfplumber (positions of words, lines, page boxes) and pypdf
(metadata), so these tests check the file a printer gets, not the renderer's intentions.
"""

from __future__ import annotations

import copy
import io
import math

import pdfplumber
import pypdf
import pytest
from django.db import transaction

from cards.catalogue import import_catalogue
from exports.packs import build_pack, canonical, sha256, with_embedded_pictures
from exports.pdf import DeckError, DeckOptions, Selection, parse_size, render_deck
from exports.pdf.options import PAPERS, SIZES, apply_profile
from tests.conftest import MINI

# The packs are built once per run (mini_packs); the mark makes pytest-django set up the
# test database for them.
pytestmark = pytest.mark.django_db

MM = 72 / 25.4
GAMES = ["symbols", "sign", "slogan", "sauschwer"]
SIZE_NAMES = [*SIZES, "50x75"]


@pytest.fixture(scope="session")
def mini_packs(django_db_setup, django_db_blocker):
    """Every pack of the mini catalogue (pictures embedded), built once per test run."""
    with django_db_blocker.unblock(), transaction.atomic():
        assert not import_catalogue(MINI).errors
        packs = {(game, language): with_embedded_pictures(build_pack(game, language))
                 for game in GAMES for language in ("de", "en")}
        transaction.set_rollback(True)
    return packs


def pack_of(mini_packs, game, language="en"):
    return copy.deepcopy(mini_packs[(game, language)])


def rehash(pack):
    pack["sha256"] = sha256(canonical(pack["body"]))
    return pack


def render(pack, **options):
    """(PDF bytes, report) for a pack rendered with these options."""
    if "size" in options and isinstance(options["size"], str):
        options["size_name"], options["size"] = parse_size(options["size"])
    out = io.BytesIO()
    report = render_deck(pack, DeckOptions(**options), out, record=True)
    return out.getvalue(), report


def words_by_page(pdf_bytes):
    """Per page: (page width, height in pt, [(text, centre x, centre y from the bottom)])."""
    pages = []
    with pdfplumber.open(io.BytesIO(pdf_bytes)) as pdf:
        for page in pdf.pages:
            words = [(w["text"], (w["x0"] + w["x1"]) / 2, page.height - (w["top"] + w["bottom"]) / 2)
                     for w in page.extract_words(keep_blank_chars=False, use_text_flow=False)
                     if w.get("upright", True)]
            pages.append((page.width, page.height, words))
    return pages


def inside(x, y, placement, slack=0.0):
    return (placement.x - slack) * MM <= x <= (placement.x + placement.w + slack) * MM and \
           (placement.y - slack) * MM <= y <= (placement.y + placement.h + slack) * MM


def first_word(card_text):
    return card_text.split()[0]


def front_words(pack):
    """key -> a word every card shows on its front (to find it on the page)."""
    game, body = pack["game"], pack["body"]
    if game == "symbols":
        return {**{c["key"]: first_word(c["text"]) for c in body["concepts"]},
                **{s["key"]: first_word(s["name"]) for s in body["symbols"]}}
    if game == "sign":
        colours = {c["key"]: c["name"] for c in body["colours"]}
        return {c["key"]: colours[c["colour"]] for c in body["cards"]}
    if game == "slogan":
        return {**{c["key"]: first_word(c["slogans"][0]["text"]) for c in body["cards"]},
                **{a["key"]: first_word(a["text"]) for a in body["alfons"]}}
    return {o["key"]: first_word(o["name"]) for o in body["cards"]}


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZE_NAMES)
def test_every_card_of_every_game_lands_on_its_page_in_every_size(mini_packs, game, size):
    pack = pack_of(mini_packs, game)
    pdf, report = render(pack, size=size, crop_marks=True)
    pages = words_by_page(pdf)
    card_w, card_h = parse_size(size)[1]
    # page size: the paper, in the orientation that holds the most cards
    paper_w, paper_h = PAPERS["a4"]
    expected = (paper_w, paper_h) if report.orientation == "portrait" else (paper_h, paper_w)
    assert (round(pages[0][0] / MM, 1), round(pages[0][1] / MM, 1)) == (paper_w, paper_h)  # contents
    for width, height, _ in pages[1:]:
        assert (round(width / MM, 1), round(height / MM, 1)) == expected
    # page count: the contents page, then every group's fronts and then its backs
    sheets = sum(math.ceil(count / report.per_sheet) for count in report.counts.values())
    assert report.pages == len(pages) == 1 + 2 * sheets
    fronts = [p for p in report.placements if p.side == "front"]
    assert len(fronts) == report.cards == sum(report.counts.values())
    words = front_words(pack)
    for placement in fronts:
        # the card lies on the paper, inside the margins, with its own size
        assert (placement.w, placement.h) == (card_w, card_h)
        assert placement.x >= 3 and placement.x + placement.w <= expected[0] - 3
        assert placement.y >= 3 and placement.y + placement.h <= expected[1] - 3
        # and its text is on that page, inside that card
        _, _, page_words = pages[placement.page - 1]
        assert any(text.startswith(words[placement.key]) and inside(x, y, placement)
                   for text, x, y in page_words), (placement, words[placement.key])


@pytest.mark.parametrize("game", GAMES)
def test_cards_on_a_sheet_never_overlap(mini_packs, game):
    _, report = render(pack_of(mini_packs, game), gap=2)
    by_page = {}
    for p in report.placements:
        by_page.setdefault(p.page, []).append(p)
    for cards in by_page.values():
        for a in cards:
            for b in cards:
                if a is not b:
                    apart = (a.x + a.w <= b.x + 1e-6 or b.x + b.w <= a.x + 1e-6
                             or a.y + a.h <= b.y + 1e-6 or b.y + b.h <= a.y + 1e-6)
                    assert apart, (a, b)


def test_nine_poker_cards_fit_on_a4_and_on_letter(mini_packs):
    pack = pack_of(mini_packs, "sign")
    assert render(pack, paper="a4", crop_marks=True)[1].per_sheet == 9
    assert render(pack, paper="letter", crop_marks=True)[1].per_sheet == 9
    assert render(pack, size="tarot")[1].per_sheet == 4
    mini = render(pack, size="mini")[1]
    assert (mini.per_sheet, mini.orientation) == (18, "landscape")


def test_the_slogan_back_stars_the_correct_option_of_each_slogan(mini_packs):
    pack = pack_of(mini_packs, "slogan")
    pdf, report = render(pack, duplex="long")
    pages = words_by_page(pdf)
    card = pack["body"]["cards"][0]  # Quality. Chocolate. Squared. / Ich bin doch nicht blöd!
    back = next(p for p in report.placements if p.key == card["key"] and p.side == "back")
    _, _, words = pages[back.page - 1]
    on_card = [(t, x, y) for t, x, y in words if inside(x, y, back)]
    stars = sorted((y for t, x, y in on_card if t == "★"), reverse=True)
    assert len(stars) == 2  # one per slogan
    for slogan, star_y in zip(card["slogans"], stars, strict=True):
        correct = next(o["text"] for o in slogan["options"] if o["correct"])
        row = " ".join(t for t, x, y in sorted(on_card, key=lambda w: w[1]) if abs(y - star_y) < 2)
        assert row == f"★ {correct}"
    for slogan in card["slogans"]:
        for option in slogan["options"]:
            assert first_word(option["text"]) in [t for t, _, _ in on_card]


def test_a_sauschwer_back_shows_the_weight_in_the_languages_number_format(mini_packs):
    for language, weight in (("de", "10.100"), ("en", "10,100")):
        pack = pack_of(mini_packs, "sauschwer", language)
        pdf, report = render(pack, duplex="long")
        pages = words_by_page(pdf)
        tower = next(p for p in report.placements if p.key == "der-eiffelturm" and p.side == "back")
        texts = [t for t, x, y in pages[tower.page - 1][2] if inside(x, y, tower)]
        assert weight in texts and "t" in texts


def test_the_same_pack_and_options_give_byte_identical_pdfs(mini_packs):
    pack = pack_of(mini_packs, "symbols")
    first, _ = render(pack, duplex="short", crop_marks=True, calibration=True)
    second, _ = render(copy.deepcopy(pack), duplex="short", crop_marks=True, calibration=True)
    assert first == second
    third, _ = render(pack, duplex="long", crop_marks=True, calibration=True)
    assert third != first


def test_the_pdf_names_game_language_release_and_pack(mini_packs):
    pack = pack_of(mini_packs, "sauschwer", "de")
    pdf, _report = render(pack, duplex="long", crop_marks=True)
    meta = pypdf.PdfReader(io.BytesIO(pdf)).metadata
    assert meta.title == "Sauschwer (de, draft): printable deck"
    assert "game=sauschwer" in meta.subject and "language=de" in meta.subject
    assert "release=draft" in meta.subject and pack["sha256"] in meta.subject
    assert "sauschwer" in meta["/Keywords"]
    first_page = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    for expected in ("Sauschwer: printable deck", pack["sha256"], "6 objects", "poker (63 × 88 mm)",
                     "duplex, flip on the long edge", "100 mm", "Crop marks"):
        assert expected in first_page, expected


def test_the_first_page_has_a_100_mm_ruler(mini_packs):
    pdf, _ = render(pack_of(mini_packs, "sign"))
    with pdfplumber.open(io.BytesIO(pdf)) as doc:
        page = doc.pages[0]
        bars = [line for line in page.lines
                if abs(line["top"] - line["bottom"]) < 0.01
                and abs((line["x1"] - line["x0"]) - 100 * MM) < 0.01]
        assert bars, "no line exactly 100 mm long on the first page"
        assert "100 mm" in page.extract_text()


def test_fonts_are_embedded_and_nothing_else_is_used(mini_packs):
    pdf, _ = render(pack_of(mini_packs, "slogan"))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    fonts = set()
    for page in reader.pages:
        resources = page["/Resources"]
        for font in resources.get("/Font", {}).values():
            font = font.get_object()
            fonts.add(font["/BaseFont"])
            assert "/FontFile2" in font["/FontDescriptor"]
    assert fonts and all("DejaVuSans" in name for name in fonts)


def test_each_symbol_picture_is_embedded_once(mini_packs):
    pack = pack_of(mini_packs, "symbols")
    pdf, _ = render(pack, duplex="long")
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    images = [reader.get_object(number) for number in range(1, len(reader.xref[0]) + 200)
              if _is_image(reader, number)]
    pictures = {s["picture"]["sha256"] for s in pack["body"]["symbols"]}
    assert len([i for i in images if "/SMask" in i]) == len(pictures)


def _is_image(reader, number):
    try:
        obj = reader.get_object(number)
    except Exception:
        return False
    return hasattr(obj, "get") and obj.get("/Subtype") == "/Image"


def test_missing_translations_are_reported_by_name_and_refused_when_strict(mini_packs):
    pack = pack_of(mini_packs, "sauschwer", "en")
    egg = next(o for o in pack["body"]["cards"] if o["key"] == "ein-huehnerei")
    egg.update(name="Ein Hühnerei", status="fallback")
    rehash(pack)
    _, report = render(pack)
    assert any("1 texts have no 'en' translation" in w and "Sauschwer object ein-huehnerei" in w
               and "Ein Hühnerei" in w for w in report.warnings)
    with pytest.raises(DeckError, match="ein-huehnerei"):
        render(pack, strict=True)


def test_print_selected_cards_renders_only_those(mini_packs):
    pack = pack_of(mini_packs, "sign")
    _, report = render(pack, selection=Selection("sign_symbol", frozenset({"fisch"})))
    assert {p.key for p in report.placements} == {f"fisch-{c}" for c in
                                                    ("rot", "grau", "gruen", "blau", "schwarz")}
    _, report = render(pack_of(mini_packs, "slogan"),
                       selection=Selection("slogan", frozenset({"just-do-it"})))
    assert {p.key for p in report.placements} == {"karte-002"}
    with pytest.raises(DeckError, match="no cards to print"):
        render(pack, selection=Selection("object", frozenset({"ein-huehnerei"})))


def test_the_drivethru_profile_gives_one_card_per_page_with_trim_and_bleed_boxes(mini_packs):
    pack = pack_of(mini_packs, "sauschwer")
    out = io.BytesIO()
    options = apply_profile(DeckOptions(crop_marks=True), "drivethru")
    report = render_deck(pack, options, out, record=True)
    reader = pypdf.PdfReader(io.BytesIO(out.getvalue()))
    assert len(reader.pages) == report.pages == 2 * 6  # front, back, front, back, …
    assert [p.side for p in report.placements][:4] == ["front", "back", "front", "back"]
    page = reader.pages[0]
    bleed = 72 / 8
    assert [round(float(v), 2) for v in page.mediabox] == [0, 0, round(2.5 * 72 + 2 * bleed, 2),
                                                           round(3.5 * 72 + 2 * bleed, 2)]
    assert [round(float(v), 2) for v in page.trimbox] == [bleed, bleed, round(bleed + 2.5 * 72, 2),
                                                          round(bleed + 3.5 * 72, 2)]
    assert [round(float(v), 2) for v in page.bleedbox] == [round(float(v), 2) for v in page.mediabox]


def test_card_sheets_carry_trim_and_bleed_boxes_around_the_cards(mini_packs):
    pdf, report = render(pack_of(mini_packs, "sign"))
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    sheet = reader.pages[1]
    fronts = [p for p in report.placements if p.page == 2]
    x0 = min(p.x for p in fronts) * MM
    y1 = max(p.y + p.h for p in fronts) * MM
    trim = [float(v) for v in sheet.trimbox]
    bleed = [float(v) for v in sheet.bleedbox]
    assert trim[0] == pytest.approx(x0, abs=0.01) and trim[3] == pytest.approx(y1, abs=0.01)
    assert bleed[0] == pytest.approx(x0 - 3 * MM, abs=0.01)


def test_the_first_page_speaks_of_the_print_page_not_of_command_line_options(mini_packs):
    """Issue 37, item 11: a curator who printed from the admin read "--calibration"."""
    pdf, _ = render(pack_of(mini_packs, "sign"), duplex="long")
    first_page = " ".join(pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text().split())
    assert "--" not in first_page
    assert "Add a duplex calibration sheet" in first_page
