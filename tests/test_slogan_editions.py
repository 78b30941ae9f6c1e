"""Slogan editions: a slogan is known in markets, and a deck holds only cards its players know.

A card holds two slogans, so an edition is made of whole cards: the English pack and deck hold
the cards whose two slogans are both known in the English market, never a German-only slogan.
"""

from __future__ import annotations

import csv

import pypdf
from django.urls import reverse

from cards.catalogue import export_catalogue, import_catalogue
from cards.models import AlfonsCard, Slogan, SloganCard, SloganOption, Translation
from cards.validation import find_problems
from exports.packs import build_pack, publish
from tests.conftest import MINI


def keys_of(pack):
    return [s["key"] for c in pack["body"]["cards"] for s in c["slogans"]]


def messages(where_part):
    return [p.message for p in find_problems() if where_part in p.where]


def test_the_english_pack_holds_only_cards_whose_two_slogans_english_players_know(mini_catalogue):
    english = build_pack("slogan", "en", strict=True)
    assert keys_of(english) == ["nichts-ist-unmoeglich", "just-do-it"]
    assert "ich-bin-doch-nicht-bloed" not in keys_of(english)  # German only
    assert "quadratisch-praktisch-gut" not in keys_of(english)  # known, but on a German-only card
    german = build_pack("slogan", "de")
    assert len(german["body"]["cards"]) == 2


def test_an_english_only_card_stays_out_of_the_german_pack(mini_catalogue):
    card = SloganCard.objects.create(key="karte-en-001")
    for side, (key, text) in enumerate([("every-little-helps", "Every little helps."),
                                        ("love-it-or-hate-it", "Love it or hate it.")], 1):
        slogan = Slogan.objects.create(card=card, side=side, key=key, text=text, markets="en")
        for position, brand in enumerate(["Tesco", "Asda", "Marmite", "Lidl"], 1):
            SloganOption.objects.create(slogan=slogan, position=position, text=brand,
                                        is_correct=position == side)
    assert "every-little-helps" in keys_of(build_pack("slogan", "en"))
    assert "every-little-helps" not in keys_of(build_pack("slogan", "de"))


def test_moving_a_slogan_out_of_the_english_market_takes_its_whole_card_out(mini_catalogue):
    Slogan.objects.filter(key="just-do-it").update(markets="de")
    assert build_pack("slogan", "en")["body"]["cards"] == []
    assert find_problems() == []  # a German-only deck is a valid catalogue


def test_the_english_deck_prints_no_german_only_slogan(mini_catalogue, run_command, tmp_path):
    out = tmp_path / "en.pdf"
    status, _, err = run_command("render_deck", "slogan", "--lang", "en", "--out", str(out))
    assert status == 0, err
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(out).pages)
    assert "Nothing is impossible." in text and "Just do it." in text
    for german in ("Ich bin doch nicht", "Quadratisch", "Nichts ist", "Media Markt", "Spießer",
                   "Rücke", "Felder"):
        assert german not in text
    assert "Alfons" in text and "photocopier" in text  # Alfons cards, in English


def test_validate_content_refuses_a_german_only_slogan_in_the_english_market(mini_catalogue):
    Slogan.objects.filter(key="ich-bin-doch-nicht-bloed").update(markets="de,en")
    assert messages("slogan 'ich-bin-doch-nicht-bloed'") == [
        "stays German but is marked as known in 'en': the en deck would print German."
    ]


def test_validate_content_refuses_an_english_card_whose_slogan_has_no_english_text(mini_catalogue):
    slogan = Slogan.objects.get(key="nichts-ist-unmoeglich")
    Translation.objects.filter(object_id=slogan.pk, field="text", language="en").delete()
    option = slogan.options.get(position=2)
    Translation.objects.filter(object_id=option.pk, language="en").delete()
    assert messages("slogan 'nichts-ist-unmoeglich'") == [
        "its card is in the en deck, but the slogan has no en text yet (it would print German).",
        "its card is in the en deck, but option 2 has no en text yet (it would print German).",
    ]


def test_validate_content_names_a_card_that_no_deck_can_print(mini_catalogue):
    Slogan.objects.filter(key="ich-bin-doch-nicht-bloed").update(markets="en", keep_german=False)
    assert any("share no market" in m for m in messages("slogan card 'karte-001'"))


def test_validate_content_refuses_an_english_release_holding_a_german_only_slogan(mini_catalogue):
    published = publish("slogan", "en").release
    assert find_problems() == []
    # the card is taken out of the English market after the release went out
    Slogan.objects.filter(key="nichts-ist-unmoeglich").update(markets="de")
    found = messages(f"Slogan release {published.version} (en)")
    assert found == [
        "holds 1 slogans not known in market 'en' (nichts-ist-unmoeglich); publish the pack "
        "again to print only the cards of that edition."
    ]
    publish("slogan", "en")
    assert messages("Slogan release") == []


def test_an_unknown_market_is_refused_by_name_and_nothing_changes(mini_catalogue, tmp_path):
    folder = tmp_path / "catalogue"
    (folder / "slogan").mkdir(parents=True)
    source = (MINI / "slogan" / "slogans.csv").read_text(encoding="utf-8")
    (folder / "slogan" / "slogans.csv").write_text(
        source.replace('"Nike, seit 1988",de,en', '"Nike, seit 1988","de,fr"')
        .replace('"Nike, seit 1988","de,en"', '"Nike, seit 1988","de,fr"'), encoding="utf-8")
    report = import_catalogue(folder)
    assert report.errors and "Unknown market fr" in " ".join(report.errors)
    assert Slogan.objects.get(key="just-do-it").markets == "de,en"


def test_markets_are_written_one_way_whatever_the_spreadsheet_says(mini_catalogue, tmp_path):
    folder = tmp_path / "catalogue"
    (folder / "slogan").mkdir(parents=True)
    with (MINI / "slogan" / "slogans.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["markets"] = " EN , de,en"
    rows[1]["markets"] = ""
    with (folder / "slogan" / "slogans.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    report = import_catalogue(folder)
    assert not report.errors, report.errors
    assert Slogan.objects.get(key="quadratisch-praktisch-gut").markets == "de,en"
    assert Slogan.objects.get(key="ich-bin-doch-nicht-bloed").markets == "de"  # empty: German


def test_the_admin_lists_and_filters_slogans_by_market(mini_catalogue, admin_client):
    url = reverse("admin:cards_slogan_changelist")
    english = admin_client.get(url, {"market": "en"}).content.decode()
    assert "Just do it." in english and "Nichts ist unmöglich." in english
    assert "Ich bin doch nicht blöd!" not in english and "Quadratisch" not in english
    german = admin_client.get(url, {"market": "de"}).content.decode()
    assert "Ich bin doch nicht blöd!" in german and "Just do it." in german


def test_the_card_list_shows_in_which_decks_each_card_is(mini_catalogue, admin_client):
    page = admin_client.get(reverse("admin:cards_slogancard_changelist")).content.decode()
    rows = {key: page.split(f">{key}<", 1)[1].split("</tr>", 1)[0]
            for key in ("karte-001", "karte-002")}
    assert ">de<" in rows["karte-001"] and "de, en" in rows["karte-002"]


def test_the_catalogue_export_carries_the_markets_column_and_reads_back(mini_catalogue, tmp_path):
    export_catalogue(tmp_path / "backup")
    rows = (tmp_path / "backup" / "slogan" / "slogans.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].endswith(",source,markets")
    assert any(r.startswith("karte-002,2,just-do-it,") and r.endswith(',"de,en"') for r in rows)
    Slogan.objects.filter(key="just-do-it").update(markets="de")
    assert not import_catalogue(tmp_path / "backup").errors
    assert Slogan.objects.get(key="just-do-it").markets == "de,en"


def test_a_pack_restored_into_an_empty_installation_keeps_the_markets(mini_catalogue, tmp_path,
                                                                     run_command):
    pack_file = tmp_path / "slogan-de.json"
    assert run_command("build_pack", "slogan", "--lang", "de", "--out", str(pack_file))[0] == 0
    for model in (Slogan, SloganCard, AlfonsCard):
        model.objects.all().delete()
    status, _, err = run_command("import_pack", str(pack_file))
    assert status == 0, err
    assert Slogan.objects.get(key="just-do-it").markets == "de,en"
    assert Slogan.objects.get(key="ich-bin-doch-nicht-bloed").markets == "de"
