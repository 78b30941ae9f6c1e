"""render_deck on the command line: packs, releases, options, profiles, errors."""

from __future__ import annotations

import io
import zipfile

import pypdf
import pytest
from PIL import Image

from cards.models import SauschwerObject, Translation
from exports.packs import build_pack, canonical, publish

pytestmark = pytest.mark.django_db


def test_it_renders_the_draft_with_the_chosen_options(mini_catalogue, run_command, tmp_path):
    out = tmp_path / "deck.pdf"
    status, stdout, err = run_command("render_deck", "sauschwer", "--lang", "en", "--out", str(out),
                                      "--size", "tarot", "--paper", "letter", "--duplex", "short",
                                      "--crop-marks", "--bleed", "2", "--back-offset", "0.5,1")
    assert status == 0, err
    assert "6 cards" in stdout and "4 cards per sheet" in stdout
    first = pypdf.PdfReader(out).pages[0].extract_text()
    assert "tarot (70 × 120 mm)" in first and "+0.5 mm across, +1 mm up" in first
    assert "2 mm / 4 mm inside the trim" in first


def test_the_same_command_twice_gives_the_same_bytes(mini_catalogue, run_command, tmp_path):
    for name in ("a.pdf", "b.pdf"):
        assert run_command("render_deck", "symbols", "--lang", "de", "--out", str(tmp_path / name),
                           "--duplex", "--crop-marks", "--cut-lines")[0] == 0
    assert (tmp_path / "a.pdf").read_bytes() == (tmp_path / "b.pdf").read_bytes()


def test_it_prints_a_release_or_a_pack_file(mini_catalogue, run_command, tmp_path):
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key="ein-blauwal").update(name="Ein Pottwal")
    out = tmp_path / "release.pdf"
    assert run_command("render_deck", "sauschwer", "--lang", "de", "--out", str(out),
                       "--release", "1")[0] == 0
    text = "".join(p.extract_text() for p in pypdf.PdfReader(out).pages)
    assert "release 1" in text and "Blauwal" in text
    pack_file = tmp_path / "pack.json"
    pack_file.write_bytes(canonical(build_pack("sauschwer", "de")))
    assert run_command("render_deck", "sauschwer", "--lang", "de", "--out", str(out),
                       "--pack", str(pack_file))[0] == 0
    assert "Pottwal" in "".join(p.extract_text() for p in pypdf.PdfReader(out).pages)
    status, _, err = run_command("render_deck", "sign", "--lang", "de", "--out", str(out),
                                 "--pack", str(pack_file))
    assert status != 0 and "is the sauschwer pack in 'de', not sign in 'de'" in err


def test_missing_translations_warn_by_name_and_fail_with_strict(mini_catalogue, run_command, tmp_path):
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    Translation.objects.filter(object_id=egg.pk, language="en", field="name",
                               content_type__model="sauschwerobject").delete()
    out = tmp_path / "deck.pdf"
    status, _, err = run_command("render_deck", "sauschwer", "--lang", "en", "--out", str(out))
    assert status == 0 and "warning: 1 texts have no 'en' translation" in err
    assert "Sauschwer object ein-huehnerei" in err
    status, _, err = run_command("render_deck", "sauschwer", "--lang", "en", "--out", str(out),
                                 "--strict")
    assert status != 0 and "ein-huehnerei" in err


@pytest.mark.parametrize("args, message", [
    (["--size", "huge"], "Unknown card size 'huge'"),
    (["--size", "300x300"], "does not fit on A4 paper"),
    (["--calibration"], "use it with --duplex"),
    (["--back-offset", "a,b"], "is not an offset"),
    (["--bleed", "40"], "The bleed must be between 0 and 10 mm"),
    (["--release", "latest"], "No release of sauschwer (de) has been published yet."),
])
def test_bad_options_are_refused_with_a_reason(mini_catalogue, run_command, tmp_path, args, message):
    status, _, err = run_command("render_deck", "sauschwer", "--lang", "de", "--out",
                                 str(tmp_path / "x.pdf"), *args)
    assert status != 0 and message in err


def test_the_drivethru_profile_writes_one_card_per_page(mini_catalogue, run_command, tmp_path):
    out = tmp_path / "dtc.pdf"
    assert run_command("render_deck", "slogan", "--lang", "en", "--out", str(out),
                       "--profile", "drivethru")[0] == 0
    reader = pypdf.PdfReader(out)
    assert len(reader.pages) == 2 * (1 + 9)  # front and back of every card, nothing else
    # (one slogan card: the other one is German only and not in the English edition)
    assert float(reader.pages[0].mediabox.width) == pytest.approx(2.75 * 72)


@pytest.mark.slow
def test_the_gamecrafter_profile_writes_825_by_1125_pngs(mini_catalogue, run_command, tmp_path):
    out = tmp_path / "tgc.zip"
    status, _, err = run_command("render_deck", "sauschwer", "--lang", "en", "--out", str(out),
                                 "--profile", "gamecrafter")
    assert status == 0, err
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        assert len(names) == 12 and "objects/0001-der-eiffelturm-front.png" in names
        with Image.open(io.BytesIO(archive.read(names[0]))) as image:
            assert image.size == (825, 1125)
            assert round(image.info["dpi"][0]) == 300
