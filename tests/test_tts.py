"""Tabletop Simulator export: card sheets and the saved object that points to them."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from exports.pdf import DeckOptions, Selection
from exports.tts import card_pixels, export_tts
from tests import test_pdf
from tests.test_pdf import pack_of

mini_packs = test_pdf.mini_packs  # the fixture, shared with tests/test_pdf.py

pytestmark = pytest.mark.django_db

TTS_OPTIONS = DeckOptions(bleed=0.0, layout="single", contents_page=False)


def saved_object(export, pack):
    return json.loads(export.files[f"{pack['game']}-{pack['language']}.json"])


def test_sheets_hold_at_most_ten_by_seven_cards_in_4096_pixels():
    for size in ((63, 88), (70, 120), (44, 63), (88, 63)):
        w, h = card_pixels(size)
        assert 10 * w <= 4096 and 7 * h <= 4096
        assert abs(w / h - size[0] / size[1]) < 0.01


def test_a_deck_is_saved_with_card_ids_from_its_sheets(mini_packs):
    pack = pack_of(mini_packs, "sign")
    export = export_tts(pack, base_url="https://cards.example/tts/", options=TTS_OPTIONS, first_key=7)
    saved = saved_object(export, pack)
    (deck,) = saved["ObjectStates"]
    assert deck["Name"] == "Deck" and len(deck["ContainedObjects"]) == 25
    assert deck["DeckIDs"] == [700 + i for i in range(25)]
    assert [c["CardID"] for c in deck["ContainedObjects"]] == deck["DeckIDs"]
    sheet = deck["CustomDeck"]["7"]
    assert sheet["FaceURL"] == "https://cards.example/tts/sign-en-cards-1.png"
    assert sheet["BackURL"] == "https://cards.example/tts/sign-en-cards-back.png"
    assert (sheet["NumWidth"], sheet["NumHeight"], sheet["UniqueBack"]) == (10, 3, False)
    with Image.open(io.BytesIO(export.files["sign-en-cards-1.png"])) as image:
        w, h = card_pixels((63, 88))
        assert image.mode == "RGB" and image.size == (10 * w, 3 * h)


def test_a_large_deck_is_split_into_sheets_with_unique_deck_keys(mini_packs):
    pack = pack_of(mini_packs, "sign")
    body = pack["body"]
    # 80 cards: the 25 of the mini deck, repeated under new keys
    body["cards"] = [{**card, "key": f"{card['key']}-{n}"} for n in range(4) for card in body["cards"]][:80]
    export = export_tts(pack, options=TTS_OPTIONS, first_key=20)
    (deck,) = saved_object(export, pack)["ObjectStates"]
    assert sorted(deck["CustomDeck"]) == ["20", "21"]
    assert (deck["CustomDeck"]["20"]["NumWidth"], deck["CustomDeck"]["20"]["NumHeight"]) == (10, 7)
    assert (deck["CustomDeck"]["21"]["NumWidth"], deck["CustomDeck"]["21"]["NumHeight"]) == (10, 1)
    assert deck["DeckIDs"] == [2000 + i for i in range(70)] + [2100 + i for i in range(10)]
    for name, data in export.files.items():
        if name.endswith(".png"):
            with Image.open(io.BytesIO(data)) as image:
                assert image.width <= 4096 and image.height <= 4096 and image.mode == "RGB"


def test_backs_that_carry_data_come_as_sheets_like_the_faces(mini_packs):
    pack = pack_of(mini_packs, "slogan")
    export = export_tts(pack, options=TTS_OPTIONS, first_key=1)
    slogans, alfons = saved_object(export, pack)["ObjectStates"]
    assert slogans["CustomDeck"]["1"]["UniqueBack"] is True
    assert slogans["CustomDeck"]["1"]["BackURL"].endswith("slogan-en-slogans-1-back.png")
    assert alfons["CustomDeck"]["2"]["UniqueBack"] is False  # deck keys unique across decks
    assert alfons["DeckIDs"][0] == 200


def test_a_one_card_deck_is_saved_as_a_single_card(mini_packs, tmp_path):
    pack = pack_of(mini_packs, "sauschwer")
    options = DeckOptions(bleed=0.0, layout="single", contents_page=False,
                          selection=Selection("object", frozenset({"ein-blauwal"})))
    export = export_tts(pack, folder=tmp_path, options=options, first_key=3)
    (card,) = saved_object(export, pack)["ObjectStates"]
    assert card["Name"] == "Card" and card["CardID"] == 300 and card["Nickname"] == "A blue whale"
    assert card["CustomDeck"]["3"]["FaceURL"] == (tmp_path / "sauschwer-en-objects-1.png").resolve().as_uri()


def test_the_export_command_writes_sheets_and_json(mini_catalogue, run_command, tmp_path):
    status, _out, err = run_command("export_tts", "symbols", "--lang", "de", "--out", str(tmp_path),
                                   "--release", "draft", "--first-deck-key", "5")
    assert status == 0, err
    saved = json.loads((tmp_path / "symbols-de.json").read_text(encoding="utf-8"))
    concepts, tiles = saved["ObjectStates"]
    assert len(concepts["DeckIDs"]) == 9 and len(tiles["DeckIDs"]) == 9
    assert (tmp_path / "symbols-de-tiles-1.png").is_file()
    assert concepts["CustomDeck"]["5"]["FaceURL"].startswith("file://")
