"""The reference client and the English Slogan markets: it keeps a market's pack and its
deltas, and refuses another edition's genuine release served under a market's path."""

from __future__ import annotations

import urllib.request

import pytest

from cards.models import Slogan
from exports.packs import publish
from kartothek_client import Client, VerificationError
from tests.test_client_trust import _fresh_caches, mirror  # noqa: F401  (fixtures)
from tests.test_slogan_markets import UK_CARD, US_CARD, make_card

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def english_cards(mini_catalogue):
    make_card("karte-en-uk", UK_CARD)
    make_card("karte-en-us", US_CARD)


def test_the_client_keeps_the_uk_pack_and_follows_it_by_delta(english_cards, live_server,
                                                              tmp_path):
    publish("slogan", "en-GB")
    client = Client(live_server.url, tmp_path)
    first = client.update("slogan", "en-GB")
    assert first.how == "full" and first.content["market"] == "GB"
    assert [c["key"] for c in first.content["body"]["cards"]] == ["karte-002", "karte-en-uk"]
    Slogan.objects.filter(key="eat-fresh").update(markets="en")  # now known in the UK too
    Slogan.objects.filter(key="the-quicker-picker-upper").update(markets="en")
    assert publish("slogan", "en-GB").release.version == 2
    second = client.update("slogan", "en-GB")
    assert second.version == 2 and second.how in ("delta", "full")
    assert [c["key"] for c in second.content["body"]["cards"]] == [
        "karte-002", "karte-en-uk", "karte-en-us"]
    assert client.cached("slogan", "en-GB").version == 2


def test_a_genuine_english_release_served_as_the_uk_deck_is_refused(english_cards, live_server,
                                                                   mirror, tmp_path):  # noqa: F811
    """The plain en pack is signed and genuine, but it is not the UK deck: not kept."""
    publish("slogan", "en")
    with urllib.request.urlopen(f"{live_server.url}/api/packs/slogan/en/1.json") as answer:
        body, etag, sig = answer.read(), answer.headers["ETag"], answer.headers[
            "X-Kartothek-Signature"]
    mirror.forged.update({
        "/api/packs/slogan/en-GB/latest": (302, {"Location": "/api/packs/slogan/en-GB/1.json"},
                                           b""),
        "/api/packs/slogan/en-GB/1.json": (200, {"ETag": etag, "X-Kartothek-Signature": sig},
                                           body)})
    client = Client(mirror.url, tmp_path)
    with pytest.raises(VerificationError, match=r"release 1 of 'slogan' \('en'\)"):
        client.update("slogan", "en-GB")
    assert client.cached("slogan", "en-GB") is None
