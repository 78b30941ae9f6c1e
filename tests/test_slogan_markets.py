"""The English edition's markets: a slogan is known in the UK (en-GB), the US (en-US) or both (en).

A market's deck (pack, release, PDF, room) holds the cards whose two slogans are known there;
the plain English deck holds the cards known in both. The German deck is not touched.
"""

from __future__ import annotations

import json

import pypdf
import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from cards.catalogue import export_catalogue, import_catalogue
from cards.models import (
    BrandOwnership,
    Slogan,
    SloganCard,
    SloganOption,
    Translation,
    TranslationState,
    market_list,
)
from cards.validation import find_problems
from exports.models import Release
from exports.packs import build_pack, canonical, publish

# Two slogans per card: (key, text, markets, options; the first option is the answer).
UK_CARD = [("every-little-helps", "Every little helps.", "en-GB",
            ["Tesco", "Sainsbury's", "Asda", "Morrisons"]),
           ("because-im-worth-it", "Because I'm worth it.", "en",
            ["L'Oréal", "Nivea", "Dove", "Pantene"])]
US_CARD = [("eat-fresh", "Eat fresh.", "en-US", ["Subway", "Quiznos", "Arby's", "Wendy's"]),
           ("the-quicker-picker-upper", "The quicker picker-upper.", "en-US",
            ["Bounty", "Sparkle", "Viva", "Brawny"])]
SPLIT_CARD = [("should-have-gone-to-specsavers", "Should've gone to …", "en-GB",
               ["Specsavers", "Vision Express", "Boots", "Optical Express"]),
              ("got-milk", "Got milk?", "en-US", ["Milk", "Juice", "Soda", "Water"])]


def make_card(key: str, slogans: list[tuple[str, str, str, list[str]]]) -> SloganCard:
    """An English card, its texts approved in English (as the fixtures write them); each
    brand its own group in the brand table (test data: the group checks stay quiet)."""
    card = SloganCard.objects.create(key=key)
    for side, (slogan_key, text, markets, brands) in enumerate(slogans, 1):
        slogan = Slogan.objects.create(card=card, side=side, key=slogan_key, text=text,
                                       markets=markets)
        _approve(slogan, text)
        for position, brand in enumerate(brands, 1):
            option = SloganOption.objects.create(slogan=slogan, position=position, text=brand,
                                                 is_correct=position == 1)
            _approve(option, brand)
            BrandOwnership.objects.get_or_create(brand=brand, defaults={
                "group": brand, "source": "tests/test_slogan_markets.py (test data)"})
    return card


def _approve(obj, text):
    Translation.objects.create(content_object=obj, field="text", language="en", text=text,
                               source_text=text, state=TranslationState.APPROVED)


def card_keys(pack):
    return [c["key"] for c in pack["body"]["cards"]]


@pytest.fixture
def markets(mini_catalogue):
    """The mini catalogue (karte-002 is known in both markets) and three English cards."""
    make_card("karte-en-uk", UK_CARD)
    make_card("karte-en-us", US_CARD)
    return mini_catalogue


# --- the tokens --------------------------------------------------------------------------


def test_market_codes_are_written_one_way():
    assert market_list("en-us, EN-gb, de") == ["de", "en"]  # both markets: the whole language
    assert market_list("de,en,en-US") == ["de", "en"]
    assert market_list(" en_us ,de") == ["de", "en-US"]


def test_a_slogan_stores_its_markets_one_way(markets):
    slogan = Slogan.objects.get(key="eat-fresh")
    slogan.markets = "EN-us , de"
    slogan.full_clean()
    slogan.save()
    assert Slogan.objects.get(key="eat-fresh").markets == "de,en-US"


def test_an_unknown_market_is_refused_with_the_markets_there_are(markets):
    slogan = Slogan.objects.get(key="eat-fresh")
    slogan.markets = "en-AU"
    with pytest.raises(ValidationError) as caught:
        slogan.full_clean()
    message = " ".join(caught.value.message_dict["markets"])
    assert message == ("Unknown market en-AU; the markets are: de, en (UK and US), "
                       "en-GB (UK only), en-US (US only).")
    assert Slogan.objects.get(key="eat-fresh").markets == "en-US"


def test_a_slogan_that_stays_german_cannot_be_in_one_english_market(markets):
    slogan = Slogan.objects.get(key="ich-bin-doch-nicht-bloed")
    slogan.markets = "de,en-GB"
    with pytest.raises(ValidationError) as caught:
        slogan.full_clean()
    assert "stays German" in " ".join(caught.value.message_dict["keep_german"])
    Slogan.objects.filter(pk=slogan.pk).update(markets="de,en-US")  # past the form: the check
    assert [p.message for p in find_problems() if p.where == "slogan 'ich-bin-doch-nicht-bloed'"] == [
        "stays German but is marked as known in 'en': the en deck would print German."]


def test_an_import_with_an_unknown_market_changes_nothing(markets, tmp_path):
    export_catalogue(tmp_path / "backup")
    path = tmp_path / "backup" / "slogan" / "slogans.csv"
    text = path.read_text(encoding="utf-8")
    assert "karte-en-us,1,eat-fresh," in text and text.count(",en-US\n") == 2
    path.write_text(text.replace(",en-US\n", ",en-CA\n"), encoding="utf-8")
    report = import_catalogue(tmp_path / "backup")
    assert report.errors and "Unknown market en-CA" in " ".join(report.errors)
    assert set(Slogan.objects.filter(card__key="karte-en-us").values_list("markets", flat=True)) == {
        "en-US"}


def test_the_markets_round_trip_through_the_catalogue_files(markets, tmp_path):
    export_catalogue(tmp_path / "backup")
    rows = (tmp_path / "backup" / "slogan" / "slogans.csv").read_text(encoding="utf-8").splitlines()
    assert any(r.startswith("karte-en-uk,1,every-little-helps,") and r.endswith(",en-GB")
               for r in rows)
    Slogan.objects.filter(key="every-little-helps").update(markets="en")
    assert not import_catalogue(tmp_path / "backup").errors
    assert Slogan.objects.get(key="every-little-helps").markets == "en-GB"


# --- the decks ---------------------------------------------------------------------------


def test_each_market_deck_holds_the_cards_known_there(markets):
    uk, us, both = (build_pack("slogan", e) for e in ("en-GB", "en-US", "en"))
    assert card_keys(uk) == ["karte-002", "karte-en-uk"]
    assert card_keys(us) == ["karte-002", "karte-en-us"]
    assert card_keys(both) == ["karte-002"]  # the plain English deck: what both markets know
    assert card_keys(build_pack("slogan", "de")) == ["karte-001", "karte-002"]


def test_a_market_pack_says_its_market_and_a_language_pack_does_not(markets):
    assert build_pack("slogan", "en-GB")["market"] == "GB"
    assert build_pack("slogan", "en-US")["market"] == "US"
    plain = build_pack("slogan", "en")
    assert "market" not in plain and plain["language"] == "en"
    slogan = build_pack("slogan", "en-GB")["body"]["cards"][1]["slogans"][0]
    assert slogan["key"] == "every-little-helps" and slogan["markets"] == ["en-GB"]


def test_a_market_pack_is_deterministic_and_valid(markets, tmp_path, run_command):
    first = canonical(build_pack("slogan", "en-GB"))
    assert canonical(build_pack("slogan", "en-GB")) == first
    out = tmp_path / "uk.json"
    status, _, err = run_command("build_pack", "slogan", "--lang", "en", "--market", "GB",
                                 "--out", str(out))
    assert status == 0, err
    assert out.read_bytes() == first


def test_the_plain_english_pack_keeps_its_bytes_while_every_slogan_is_known_in_both(mini_catalogue):
    # no market-only slogan: the UK and US decks are the English deck, and its pack has not
    # changed form (published English releases stay the newest, nothing is republished)
    plain, uk = build_pack("slogan", "en"), build_pack("slogan", "en-GB")
    assert uk["body"] == plain["body"] and uk["sha256"] == plain["sha256"]
    assert set(plain) == {"format", "format_version", "game", "language", "source_language",
                          "content_version", "sha256", "body"}


@pytest.mark.parametrize(("args", "message"), [
    (["sauschwer", "--lang", "en", "--market", "GB"], "Only the slogan game has markets"),
    (["slogan", "--lang", "en", "--market", "FR"],
     "There is no market 'FR' for 'en'; the markets are: GB (UK), US (US)."),
    (["slogan", "--lang", "de", "--market", "GB"], "The 'de' edition has one market"),
    (["slogan", "--lang", "en-GB", "--market", "US"], "name two markets"),
])
def test_build_pack_refuses_a_market_that_does_not_exist(markets, run_command, tmp_path, args,
                                                         message):
    out = tmp_path / "pack.json"
    status, _, err = run_command("build_pack", *args, "--out", str(out))
    assert status != 0 and message in err
    assert not out.exists()


def test_the_uk_market_is_also_called_uk(markets, run_command, tmp_path):
    out = tmp_path / "uk.json"
    status, _, err = run_command("build_pack", "slogan", "--lang", "en", "--market", "uk",
                                 "--out", str(out))
    assert status == 0, err
    assert json.loads(out.read_bytes())["market"] == "GB"


def test_a_card_split_between_the_uk_and_the_us_is_in_no_deck_and_named(markets):
    make_card("karte-en-split", SPLIT_CARD)
    assert all("karte-en-split" not in card_keys(build_pack("slogan", e))
               for e in ("en", "en-GB", "en-US"))
    found = [p.message for p in find_problems() if p.where == "slogan card 'karte-en-split'"]
    assert found and "share no market" in found[0]


def test_validate_content_prints_each_market_deck_size(markets, run_command):
    status, out, err = run_command("validate_content", "--game", "slogan")
    assert status == 0, out + err
    assert "Deck slogan (en): 1 cards, 9 alfons" in out
    assert "Deck slogan (en-GB): 2 cards, 9 alfons" in out
    assert "Deck slogan (en-US): 2 cards, 9 alfons" in out
    assert "Deck slogan (de): 2 cards, 9 alfons" in out


# --- releases and the API ----------------------------------------------------------------


def test_each_market_is_published_and_numbered_on_its_own(markets, run_command):
    status, out, err = run_command("publish_pack", "slogan", "--lang", "en", "--market", "US")
    assert status == 0, err
    assert "Published slogan (en-US) release 1" in out
    assert publish("slogan", "en-GB").release.version == 1
    assert publish("slogan", "en").release.version == 1
    status, out, _ = run_command("publish_pack", "slogan", "--lang", "en", "--market", "US")
    assert "No change: slogan (en-US) release 1" in out
    assert sorted(Release.objects.values_list("language", flat=True)) == ["en", "en-GB", "en-US"]


def test_the_api_serves_a_market_release_under_its_tag(markets, client):
    publish("slogan", "en-GB")
    latest = client.get("/api/packs/slogan/en-GB/latest")
    assert latest.status_code == 302 and latest["Location"] == "/api/packs/slogan/en-GB/1.json"
    pack = json.loads(client.get(latest["Location"]).content)
    assert pack["language"] == "en" and pack["market"] == "GB"
    assert card_keys(pack) == ["karte-002", "karte-en-uk"]
    assert client.get("/api/packs/slogan/en-US/latest").status_code == 404  # not published yet
    wrong = client.get("/api/packs/sauschwer/en-GB/latest")
    assert wrong.status_code == 404
    assert json.loads(wrong.content)["languages"] == ["de", "en"]


def test_the_api_index_lists_each_market_edition(markets, client):
    publish("slogan", "en-US")
    index = json.loads(client.get("/api/packs/").content)
    slogan = next(g for g in index["games"] if g["game"] == "slogan")
    editions = {e["language"]: e for e in slogan["languages"]}
    assert list(editions) == ["de", "en", "en-GB", "en-US"]
    assert editions["en-US"]["market"] == "US" and "market" not in editions["en"]
    assert editions["en-US"]["latest"] == "/api/packs/slogan/en-US/latest"
    assert editions["en-GB"]["latest"] is None
    sauschwer = next(g for g in index["games"] if g["game"] == "sauschwer")
    assert [e["language"] for e in sauschwer["languages"]] == ["de", "en"]


def test_a_market_release_that_holds_a_slogan_no_longer_known_there_is_named(markets):
    publish("slogan", "en-GB")
    assert find_problems() == []
    Slogan.objects.filter(key="every-little-helps").update(markets="en-US")
    found = [p.message for p in find_problems() if p.where == "Slogan release 1 (en-GB)"]
    assert found == ["holds 1 slogans not known in market 'en-GB' (every-little-helps); publish "
                     "the pack again to print only the cards of that edition."]


# --- PDFs --------------------------------------------------------------------------------


def _pdf_text(path):
    reader = pypdf.PdfReader(path)
    return " ".join(page.extract_text() for page in reader.pages), reader.metadata


@pytest.mark.slow
def test_the_uk_and_the_us_decks_print_their_own_slogans(markets, run_command, tmp_path):
    texts = {}
    for market in ("GB", "US"):
        out = tmp_path / f"{market}.pdf"
        status, _, err = run_command("render_deck", "slogan", "--lang", "en", "--market", market,
                                     "--out", str(out))
        assert status == 0, err
        texts[market] = _pdf_text(out)
    uk, uk_meta = texts["GB"]
    us, us_meta = texts["US"]
    assert "Every little helps." in uk and "Eat fresh." not in uk
    assert "Eat fresh." in us and "Every little helps." not in us
    assert "Just do it." in uk and "Just do it." in us  # known in both
    assert "UK only" in uk and "US only" in us  # the contents page names the market
    # every card's band names its market, so the two decks stay apart at the cutter
    assert uk.count("SLOGAN · UK") == 2 * 2 and "SLOGAN · US" not in uk  # 2 cards, 2 faces
    assert us.count("SLOGAN · US") == 2 * 2 and "SLOGAN · UK" not in us
    assert "language=en-GB" in uk_meta.subject and "language=en-US" in us_meta.subject


def test_the_print_page_offers_each_market_deck(markets, admin_client):
    page = admin_client.get(reverse("admin:exports_print", args=["slogan"])).content.decode()
    assert 'value="en-GB"' in page and "en-GB (UK deck)" in page and 'value="en-US"' in page
    page = admin_client.get(reverse("admin:exports_print", args=["sauschwer"])).content.decode()
    assert 'value="en-GB"' not in page


# --- the admin ---------------------------------------------------------------------------


def test_the_admin_filters_slogans_by_market_code(markets, admin_client):
    url = reverse("admin:cards_slogan_changelist")
    page = admin_client.get(url).content.decode()
    assert "English, UK only (en-GB)" in page and "English, UK and US (en)" in page  # the filter's choices
    uk_only = admin_client.get(url, {"market": "en-GB"}).content.decode()
    assert "Every little helps." in uk_only
    assert "Eat fresh." not in uk_only and "Just do it." not in uk_only


def test_the_card_list_names_a_market_deck(markets, admin_client):
    page = admin_client.get(reverse("admin:cards_slogancard_changelist")).content.decode()
    row = page.split(">karte-en-us<", 1)[1].split("</tr>", 1)[0]
    assert "en-US (US only)" in row


def test_the_card_page_says_which_market_decks_hold_the_card(markets, admin_client):
    card = SloganCard.objects.get(key="karte-en-us")
    url = reverse("admin:cards_slogancard_change", args=[card.pk])
    page = admin_client.get(url, {"preview_language": ["de", "en"]}).content.decode()
    assert 'data-decks-lang="en"' in page
    assert "In the US deck only, not in the UK deck" in page
    both = SloganCard.objects.get(key="karte-002")
    page = admin_client.get(reverse("admin:cards_slogancard_change", args=[both.pk]),
                            {"preview_language": ["de", "en"]}).content.decode()
    assert "data-decks-lang" not in page.split("card-preview-cards", 1)[1].split("</div>", 1)[0]


def test_the_publish_page_lists_each_market_deck_of_the_slogan_game(markets, admin_client):
    page = admin_client.get(reverse("admin:exports_publish")).content.decode()
    assert 'id="pack-slogan-en-GB"' in page and 'id="pack-slogan-en-US"' in page
    assert 'id="pack-sauschwer-en-GB"' not in page
    review = admin_client.get(reverse("admin:exports_publish_review", args=["slogan", "en-US"]))
    assert review.status_code == 200 and "karte-en-us" in review.content.decode()
    assert admin_client.get(reverse("admin:exports_publish_review",
                                    args=["sauschwer", "en-US"])).status_code == 404


def test_a_webhook_for_english_hears_of_a_market_release(db):
    from exports.models import WebhookEndpoint

    english = WebhookEndpoint(url="https://hooks.example.org/en", languages=["en"], active=True)
    german = WebhookEndpoint(url="https://hooks.example.org/de", languages=["de"], active=True)
    assert english.matches("slogan", "en-GB") and english.matches("slogan", "en")
    assert not german.matches("slogan", "en-US")


@pytest.mark.slow
def test_the_tabletop_simulator_export_takes_a_market(markets, run_command, tmp_path):
    status, out, err = run_command("export_tts", "slogan", "--lang", "en", "--market", "US",
                                   "--out", str(tmp_path / "tts"))
    assert status == 0, err
    assert "slogan-en-US.json" in out
    saved = json.loads((tmp_path / "tts" / "slogan-en-US.json").read_text(encoding="utf-8"))
    assert "Eat fresh." in json.dumps(saved) and "Every little helps." not in json.dumps(saved)
