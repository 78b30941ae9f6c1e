"""Sign colours every player can tell apart: CIEDE2000, colour-blind simulation, marks, contrast."""

import csv
from pathlib import Path

import pytest
from django.urls import reverse

from cards.colour_vision import (
    KNOWN_MARKS,
    ColourSpec,
    ciede2000,
    colour_problems,
    contrast_ratio,
    mark_looks,
    palette_report,
    seen_difference,
)
from cards.models import SignColour
from cards.validation import find_problems

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# Sharma, Wu & Dalal (2005), Table 1: L1 a1 b1 L2 a2 b2 ΔE00, to four decimals.
SHARMA_PAIRS = [
    (50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425),
    (50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615),
    (50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412),
    (50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000),
    (50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669),
    (50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195),
    (50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045),
    (50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461),
    (50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065),
    (50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492),
    (50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977),
    (50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030),
    (50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000),
    (50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000),
    (60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644),
    (63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630),
    (61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731),
    (35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645),
    (22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373),
    (36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146),
    (90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441),
    (90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381),
    (6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377),
    (2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082),
]


@pytest.mark.parametrize("pair", SHARMA_PAIRS, ids=[f"pair-{i}" for i in range(1, 35)])
def test_ciede2000_matches_sharmas_published_pairs_both_ways(pair):
    lab1, lab2, expected = pair[:3], pair[3:6], pair[6]
    assert ciede2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)
    assert ciede2000(lab2, lab1) == pytest.approx(expected, abs=5e-5)


def test_the_simulation_reproduces_the_clashes_the_outside_editor_measured():
    # the old palette: blue/violet 3.4, orange/green 4.4, red/green 6.0 (issue 13)
    assert seen_difference("#1F4FD1", "#7B2CBF", "deuteranopia") == pytest.approx(3.4, abs=0.05)
    assert seen_difference("#F77F00", "#2A9D3F", "protanopia") == pytest.approx(4.4, abs=0.05)
    assert seen_difference("#D62828", "#2A9D3F", "deuteranopia") == pytest.approx(6.0, abs=0.05)
    # the same pairs look clearly different with normal vision
    assert seen_difference("#D62828", "#2A9D3F", "normal vision") > 50


def starter_palette() -> list[ColourSpec]:
    with (FIXTURES / "sign" / "sign_colours.csv").open(encoding="utf-8") as f:
        return [ColourSpec(r["key"], r["name"], r["hex"], r["mark"]) for r in csv.DictReader(f)]


def test_the_starter_palette_is_readable_for_every_player():
    palette = starter_palette()
    assert len(palette) == 8
    assert colour_problems(palette) == [], palette_report(palette)


def test_a_pair_that_a_deuteranope_cannot_tell_apart_is_named():
    palette = [ColourSpec("blau", "Blau", "#1F4FD1", "★"), ColourSpec("violett", "Violett", "#7B2CBF", "✚")]
    problems = colour_problems(palette)
    assert [p.keys for p in problems] == [("blau", "violett"), ("blau", "violett")]
    assert "under protanopia" in problems[0].message
    assert "CIEDE2000 3.4 under deuteranopia" in problems[1].message


def test_a_mark_that_is_another_upside_down_is_refused():
    assert mark_looks("▲") & mark_looks("▼")
    assert mark_looks("6") & mark_looks("9")
    assert mark_looks("b") & mark_looks("d")
    assert not mark_looks("●") & mark_looks("■")
    palette = [ColourSpec("orange", "Orange", "#8D4B0B", "▲"), ColourSpec("rosa", "Rosa", "#D23488", "▼")]
    [problem] = colour_problems(palette)
    assert problem.keys == ("orange", "rosa")
    assert "once turned or mirrored" in problem.message


def test_the_starter_marks_stay_distinct_under_every_turn_and_mirror():
    looks = [mark_looks(c.mark) for c in starter_palette()]
    for i, a in enumerate(looks):
        for b in looks[i + 1:]:
            assert not a & b


def test_a_mark_whose_turned_form_is_unknown_is_refused():
    [problem] = colour_problems([ColourSpec("rot", "Rot", "#EB0045", "☺")])
    assert "choose one of" in problem.message and "●" in problem.message
    assert "☺" not in KNOWN_MARKS


def test_contrast_follows_wcag_and_a_pale_colour_is_refused():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    problems = colour_problems([ColourSpec("gelb", "Gelb", "#E9B800", "■")])
    assert problems and all("contrast" in p.message for p in problems)
    assert "1.85:1 on white" in problems[0].message
    # every starter colour reads at 3:1 even on the card back's cream disc
    for colour in starter_palette():
        assert contrast_ratio(colour.hex, "#f4f1ea") >= 3


@pytest.mark.django_db
def test_validate_content_names_a_colour_change_that_breaks_the_rule(mini_catalogue):
    assert find_problems() == []
    SignColour.objects.filter(key="blau").update(hex="#1F4FD1")
    SignColour.objects.create(key="violett", name="Violett", hex="#7B2CBF", mark="▼", position=9)
    messages = [str(p) for p in find_problems()]
    assert any("Sign colours blau / violett" in m and "deuteranopia" in m for m in messages)


def add_colour(client, **fields):
    return client.post(
        reverse("admin:cards_signcolour_add"),
        {"position": "9", **fields,
         "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
         "cards-translation-content_type-object_id-INITIAL_FORMS": "0"},
    )


@pytest.mark.django_db
def test_the_admin_refuses_a_colour_that_clashes_and_saves_nothing(mini_catalogue, admin_client):
    response = add_colour(admin_client, key="orange", name="Orange", hex="#F77F00", mark="▲")
    assert response.status_code == 200
    page = response.content.decode()
    assert "contrast 2.63:1 on white" in page
    assert not SignColour.objects.filter(key="orange").exists()
    response = add_colour(admin_client, key="karmin", name="Karmin", hex="#D62828", mark="▲")
    assert response.status_code == 200
    assert "Rot (#EB0045) and Karmin (#D62828) differ by only CIEDE2000 8.8 under normal vision" in (
        response.content.decode())
    assert not SignColour.objects.filter(key="karmin").exists()


@pytest.mark.django_db
def test_the_admin_accepts_a_colour_every_player_can_tell_apart(mini_catalogue, admin_client):
    response = add_colour(admin_client, key="violett", name="Violett", hex="#5603AB", mark="✚")
    assert response.status_code == 302, response.content.decode()[:3000]
    assert SignColour.objects.filter(key="violett").exists()
    assert find_problems() == []


@pytest.mark.django_db
def test_a_curator_who_pales_a_colour_is_told_why_and_nothing_changes(mini_catalogue, admin_client):
    from tests.test_concurrency import change_url, rendered_form

    blue = SignColour.objects.get(key="blau")
    data = rendered_form(admin_client.get(change_url(blue)))
    data["hex"] = "#7FA8FF"  # a pale blue: too little contrast on the card
    response = admin_client.post(change_url(blue), data)
    assert response.status_code == 200
    assert "Blau (#7FA8FF) has contrast 2.2" in response.content.decode()
    assert SignColour.objects.get(key="blau").hex == "#1654FF"
    data["hex"] = "#0B3FD6"  # a darker blue that every player still tells apart
    assert admin_client.post(change_url(blue), data).status_code == 302
    assert SignColour.objects.get(key="blau").hex == "#0B3FD6"
