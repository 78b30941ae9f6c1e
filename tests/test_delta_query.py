"""`GET /api/packs/GAME/LANG/VERSION.json?since=N` is the delta path's answer under the
release's URL: the same bytes, ETag and caching, the same 303 to the full release for a client
too far behind or a delta no smaller than the release, the same errors."""

import gzip
import json

import pytest
from django.db.models import F

from cards.models import SauschwerObject
from exports import api
from exports.packs import publish
from kartothek_client.delta import apply_delta

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_api_caches():
    for cached in vars(api).values():
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()


def _history() -> None:
    """Three releases of sauschwer (de), each a small change of 60 objects."""
    for i in range(60):
        SauschwerObject.objects.create(key=f"ding-{i:03}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key="ding-007").update(weight_g=7777)
    publish("sauschwer", "de")
    SauschwerObject.objects.create(key="aaa-neu", name="Neu", weight_g=3, source="test")
    publish("sauschwer", "de")


def test_since_answers_exactly_what_the_delta_path_answers(mini_catalogue, client):
    _history()
    for query, since, version in [(q, s, v) for q in ("", "&pictures=embedded")
                                  for s, v in [(1, 2), (1, 3), (2, 3)]]:
        path = client.get(f"/api/packs/sauschwer/de/{since}..{version}.delta.json?{query[1:]}")
        asked = client.get(f"/api/packs/sauschwer/de/{version}.json?since={since}{query}")
        assert (asked.status_code, path.status_code) == (200, 200)
        assert asked.content == path.content
        for header in ("ETag", "Cache-Control", "Vary", "Content-Type"):
            assert asked[header] == path[header], header
        assert asked["Content-Location"] == f"/api/packs/sauschwer/de/{since}..{version}.delta.json"
        old = client.get(f"/api/packs/sauschwer/de/{since}.json?{query[1:]}").content
        new = client.get(f"/api/packs/sauschwer/de/{version}.json?{query[1:]}").content
        assert apply_delta(json.loads(old), asked.json()) == new
    url = "/api/packs/sauschwer/de/3.json?since=1"
    etag = client.get(url)["ETag"]
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    zipped = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(zipped.content) == client.get(url).content
    latest = client.get("/api/packs/sauschwer/de/latest?since=2")
    assert latest.status_code == 302 and latest["Location"] == "/api/packs/sauschwer/de/3.json?since=2"
    assert client.get(latest["Location"]).json()["format"] == "kartothek-pack-delta"


BAD = [
    ("/api/packs/sauschwer/de/2.json?since=3", 400, "not older"),
    ("/api/packs/sauschwer/de/2.json?since=2", 400, "not older"),
    ("/api/packs/sauschwer/de/2.json?since=0", 400, "not a release number"),
    ("/api/packs/sauschwer/de/2.json?since=-1", 400, "not a release number"),
    ("/api/packs/sauschwer/de/2.json?since=eins", 400, "not a release number"),
    ("/api/packs/sauschwer/de/2.json?since=", 400, "not a release number"),
    ("/api/packs/sauschwer/de/2.json?since=%D9%A1", 400, "not a release number"),  # Arabic 1
    ("/api/packs/sauschwer/de/9.json?since=1", 404, "do not both exist"),
    ("/api/packs/sauschwer/xx/2.json?since=1", 404, "no language"),
]


def test_too_far_behind_a_big_delta_or_a_bad_since_gets_what_the_path_gets(
        mini_catalogue, client, monkeypatch):
    _history()
    for url, status, message in BAD:
        response = client.get(url)
        assert response.status_code == status, url
        assert response.json()["status"] == status and message in response.json()["error"], url
    monkeypatch.setattr(api, "MAX_SPAN", 1)
    asked = client.get("/api/packs/sauschwer/de/3.json?since=1")
    path = client.get("/api/packs/sauschwer/de/1..3.delta.json")
    assert asked.status_code == path.status_code == 303
    assert asked["Location"] == path["Location"] == "/api/packs/sauschwer/de/3.json"
    assert asked.json() == path.json()
    assert "Content-Location" not in asked
    monkeypatch.setattr(api, "MAX_SPAN", 50)
    SauschwerObject.objects.update(name=F("key"))  # every card changes
    publish("sauschwer", "de")
    big = client.get("/api/packs/sauschwer/de/4.json?since=3")
    assert big.status_code == 303 and "not be smaller" in big.json()["reason"]
    # following the 303 gives the full release, which is what the client applies no delta to
    full = client.get(big["Location"])
    assert full.status_code == 200 and full.json()["content_version"] == 4
