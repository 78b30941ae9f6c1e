"""The shape of a pack build's cost, without timing anything: the number of queries of a build
stays the same when every table a pack reads grows (slogans with their options, Alfons cards,
Sign decks, symbol tiles, translations of all of them), for every game and language.

tests/test_packs.py checks this for Sauschwer objects and concept cards; this test grows the
other tables too, so that a query per slogan, option or Sign card would show.
bench/pack_speed.py measures the time on a 10,000-object catalogue.
"""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cards.models import (
    AlfonsCard,
    ConceptCard,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SloganCard,
    SloganOption,
    SymbolTile,
    Translation,
)
from exports.packs import build_pack, canonical

pytestmark = pytest.mark.django_db

GAMES = ["symbols", "sign", "slogan", "sauschwer"]
N = 12


def _queries(game: str, language: str) -> int:
    build_pack(game, language)  # warm ContentType's cache: only steady-state queries count
    with CaptureQueriesContext(connection) as context:
        canonical(build_pack(game, language))
    return len(context.captured_queries)


def _bulk(model, objects):  # type: ignore[no-untyped-def]
    for obj in objects:
        if hasattr(obj, "prepare_for_bulk"):
            obj.prepare_for_bulk()
    return model.objects.bulk_create(objects)


def _translate(objects, field: str) -> None:  # type: ignore[no-untyped-def]
    Translation.objects.bulk_create(
        Translation(content_type=ContentType.objects.get_for_model(type(o)), object_id=o.pk,
                    field=field, language="en", text=f"{getattr(o, field)} (en)",
                    source_text=getattr(o, field), state="translated")
        for o in objects
    )


def _grow(n: int) -> None:
    """n more of every kind of card, each with an English translation."""
    things = _bulk(SauschwerObject, [SauschwerObject(key=f"ding-{i}", name=f"Ding {i}",
                                                     weight_g=i + 1, source="Waage")
                                     for i in range(n)])
    _translate(things, "name")
    concepts = _bulk(ConceptCard, [ConceptCard(key=f"begriff-{i}", text=f"Begriff {i}")
                                   for i in range(n)])
    _translate(concepts, "text")
    first = max(SymbolTile.objects.values_list("position", flat=True), default=0) + 1
    tiles = _bulk(SymbolTile, [SymbolTile(key=f"bild-{i}", name=f"Bild {i}", icon="sun",
                                          position=first + i) for i in range(n)])
    _translate(tiles, "name")
    symbols = _bulk(SignSymbol, [SignSymbol(key=f"form-{i}", name=f"Form {i}", icon="star",
                                            position=100 + i) for i in range(n // 4)])
    colours = _bulk(SignColour, [SignColour(key=f"farbe-{i}", name=f"Farbe {i}", hex="#123456",
                                            mark=f"Z{i}", position=100 + i) for i in range(4)])
    _translate([*symbols, *colours], "name")
    _bulk(SignCard, [SignCard(key=f"{s.key}-{c.key}", symbol=s, colour=c)
                     for s in symbols for c in colours])
    cards = _bulk(SloganCard, [SloganCard(key=f"karte-{i}") for i in range(n)])
    slogans = _bulk(Slogan, [Slogan(key=f"spruch-{i}-{side}", card=card, side=side,
                                    text=f"Spruch {i} {side}", keep_german=i == 0,
                                    markets="de" if i == 0 else "de,en")
                             for i, card in enumerate(cards) for side in (1, 2)])
    _translate(slogans, "text")
    options = _bulk(SloganOption, [SloganOption(slogan=s, position=p, is_correct=p == 1,
                                                text=f"Marke {p} zu {s.key}")
                                   for s in slogans for p in (1, 2, 3, 4)])
    _translate(options, "text")
    alfons = _bulk(AlfonsCard, [AlfonsCard(key=f"alfons-{i}", text=f"Geh {i + 1} vor",
                                           effect="move", amount=i + 1) for i in range(n)])
    _translate(alfons, "text")


def test_no_table_makes_a_build_run_more_queries(mini_catalogue):
    before = {(game, language): _queries(game, language) for game in GAMES for language in ("de", "en")}
    _grow(N)
    after = {(game, language): _queries(game, language) for game in GAMES for language in ("de", "en")}
    assert after == before
    slogan = build_pack("slogan", "en")["body"]
    assert sum(len(card["slogans"]) for card in slogan["cards"]) >= 2 * N  # the growth is in the pack
    assert {o["text"] for card in slogan["cards"] for s in card["slogans"] for o in s["options"]} >= {
        "Marke 1 zu spruch-3-2 (en)"}
    assert len(build_pack("sign", "de")["body"]["cards"]) >= (N // 4) * 4
