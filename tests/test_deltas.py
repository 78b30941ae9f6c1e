"""Deltas between releases: every pair of a scripted history applies to exactly the bytes of
the newer release; immutable and cacheable like releases; too far behind goes to the full one."""

import gzip
import hashlib
import io
import itertools
import json
import random

import pytest
from django.core.files.base import ContentFile
from jsonschema import Draft202012Validator
from PIL import Image

from cards.models import ConceptCard, SauschwerObject, SymbolTile
from exports import api
from exports.deltas import make_delta
from exports.packs import publish
from kartothek_client.delta import DeltaError, apply_delta, canonical

pytestmark = pytest.mark.django_db
DELTA_SCHEMA = json.loads((api.OPENAPI_PATH.parent / "content-pack-delta.json").read_text())


@pytest.fixture(autouse=True)
def _fresh_api_caches():
    for cached in vars(api).values():  # release bytes are deterministic across tests' databases
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()


def _png(seed: int) -> bytes:
    rnd = random.Random(seed)
    buffer = io.BytesIO()
    Image.frombytes("RGB", (64, 64), bytes(rnd.randrange(256) for _ in range(64 * 64 * 3))).save(
        buffer, "PNG")
    return buffer.getvalue()


def _tile(key: str, position: int, seed: int) -> SymbolTile:
    tile = SymbolTile(key=key, name=key.title(), position=position,
                      image=ContentFile(_png(seed), name=f"{key}.png"))
    tile.full_clean()
    tile.save()
    return tile


def _symbols_history() -> int:
    """Five releases of symbols (de) with adds, changes, removals, moves and a new picture."""
    for i in range(40):  # enough content that a few changes make a delta worth sending
        ConceptCard.objects.create(key=f"begriff-{i:02}", text=f"Begriff Nummer {i}")
    publish("symbols", "de")
    _tile("anker", 50, seed=1)
    ConceptCard.objects.filter(key="oma").update(text="Großmutter")
    publish("symbols", "de")
    ConceptCard.objects.filter(key="papst").delete()
    SymbolTile.objects.filter(key="anker").update(name="Schiffsanker")  # picture unchanged
    SymbolTile.objects.filter(key="handy").update(position=60)  # moves to the end
    publish("symbols", "de")
    anker = SymbolTile.objects.get(key="anker")
    anker.image = ContentFile(_png(2), name="anker2.png")
    anker.save()
    ConceptCard.objects.create(key="aaa-neu", text="Ganz neu")
    publish("symbols", "de")
    SymbolTile.objects.filter(key="anker").delete()
    ConceptCard.objects.filter(key__startswith="begriff-0").update(text="geändert")
    return publish("symbols", "de").release.version


def _sauschwer_history() -> int:
    for i in range(200):
        SauschwerObject.objects.create(key=f"ding-{i:03}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    SauschwerObject.objects.create(key="aaa-erstes", name="Erstes", weight_g=5, source="test")
    SauschwerObject.objects.filter(key="ding-007").update(weight_g=7777)
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key__in=["ding-010", "ding-011"]).delete()
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key="ding-100").update(name="Hundert")
    SauschwerObject.objects.create(key="zzz-letztes", name="Letztes", weight_g=9, source="test")
    return publish("sauschwer", "de").release.version


@pytest.mark.parametrize("game,history", [("symbols", _symbols_history),
                                          ("sauschwer", _sauschwer_history)])
def test_every_delta_of_a_history_applies_to_exactly_the_newer_release(
        mini_catalogue, client, game, history):
    last = history()
    assert last >= 4
    releases = {v: client.get(f"/api/packs/{game}/de/{v}.json").content for v in range(1, last + 1)}
    validator = Draft202012Validator(DELTA_SCHEMA)
    for since, version in itertools.combinations(range(1, last + 1), 2):
        response = client.get(f"/api/packs/{game}/de/{since}..{version}.delta.json")
        assert response.status_code == 200, (since, version, response.content[:200])
        delta = json.loads(response.content)
        validator.validate(delta)
        assert delta["to_sha256"] == hashlib.sha256(releases[version]).hexdigest()
        result = apply_delta(json.loads(releases[since]), delta)
        assert result == releases[version], (since, version)
        assert len(response.content) < len(releases[version])
    # and a delta applied to the wrong release is refused, never a wrong pack
    delta = client.get(f"/api/packs/{game}/de/1..{last}.delta.json").json()
    with pytest.raises(DeltaError):
        apply_delta(json.loads(releases[2]), delta)


def test_a_delta_names_only_what_changed(mini_catalogue, client):
    _sauschwer_history()
    delta = client.get("/api/packs/sauschwer/de/1..2.delta.json").json()
    cards = delta["lists"]["cards"]
    assert [a["item"]["key"] for a in cards["added"]] == ["aaa-erstes"]
    assert cards["added"][0]["index"] == 0
    assert [c["key"] for c in cards["changed"]] == ["ding-007"]
    assert cards["changed"][0]["weight_g"] == 7777
    assert "removed" not in cards and "order" not in cards
    assert set(delta["set"]) == {"content_version", "sha256"}
    delta = client.get("/api/packs/sauschwer/de/2..3.delta.json").json()
    assert delta["lists"]["cards"] == {"removed": ["ding-010", "ding-011"]}


def test_unchanged_pictures_are_not_resent(mini_catalogue, client):
    _symbols_history()
    # the plain pack names pictures by sha256 only: no picture bytes in any delta
    assert b'"data"' not in client.get("/api/packs/symbols/de/1..5.delta.json").content
    # embedded: 2..3 renames the tile, its picture stays: no bytes; 3..4 sends the new picture
    renamed = client.get("/api/packs/symbols/de/2..3.delta.json?pictures=embedded").json()
    changed = {s["key"]: s for s in renamed["lists"]["symbols"]["changed"]}
    assert changed["anker"]["name"] == "Schiffsanker" and "data" not in changed["anker"]["picture"]
    new_picture = client.get("/api/packs/symbols/de/3..4.delta.json?pictures=embedded")
    symbols = new_picture.json()["lists"]["symbols"]
    assert [s["key"] for s in symbols["changed"]] == ["anker"]
    assert new_picture.content.count(b'"data"') == 1
    for since, version in itertools.combinations(range(1, 6), 2):
        full = client.get(f"/api/packs/symbols/de/{version}.json?pictures=embedded").content
        old = client.get(f"/api/packs/symbols/de/{since}.json?pictures=embedded").content
        delta = client.get(
            f"/api/packs/symbols/de/{since}..{version}.delta.json?pictures=embedded").json()
        assert apply_delta(json.loads(old), delta) == full


def test_a_delta_is_immutable_cacheable_and_gzipped(mini_catalogue, client):
    _sauschwer_history()
    url = "/api/packs/sauschwer/de/1..4.delta.json"
    plain = client.get(url)
    assert plain["Cache-Control"] == "public, max-age=31536000, immutable"
    assert plain["Vary"] == "Accept-Encoding"
    zipped = client.get(url, headers={"Accept-Encoding": "gzip"})
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.content) == plain.content
    assert zipped["ETag"] == plain["ETag"]
    again = client.get(url, headers={"If-None-Match": plain["ETag"]})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/api/packs/sauschwer/de/2..4.delta.json")["ETag"] != plain["ETag"]


def test_a_client_too_far_behind_or_a_big_delta_is_sent_to_the_full_release(
        mini_catalogue, client, monkeypatch):
    _sauschwer_history()
    monkeypatch.setattr(api, "MAX_SPAN", 2)
    far = client.get("/api/packs/sauschwer/de/1..4.delta.json")
    assert far.status_code == 303
    assert far["Location"] == "/api/packs/sauschwer/de/4.json" == far.json()["full"]
    assert client.get("/api/packs/sauschwer/de/2..4.delta.json").status_code == 200
    monkeypatch.setattr(api, "MAX_SPAN", 50)
    SauschwerObject.objects.update(weight_g=1)  # every card changes
    publish("sauschwer", "de")
    big = client.get("/api/packs/sauschwer/de/4..5.delta.json")
    assert big.status_code == 303 and "not be smaller" in big.json()["reason"]


@pytest.mark.parametrize("url,status", [
    ("/api/packs/sauschwer/de/3..2.delta.json", 400),
    ("/api/packs/sauschwer/de/2..2.delta.json", 400),
    ("/api/packs/sauschwer/de/1..99.delta.json", 404),
    ("/api/packs/poker/de/1..2.delta.json", 404),
    ("/api/packs/sauschwer/xx/1..2.delta.json", 404),
])
def test_a_bad_delta_request_gets_a_json_error(mini_catalogue, client, url, status):
    _sauschwer_history()
    response = client.get(url)
    assert response.status_code == status
    assert response.json()["status"] == status


def test_make_delta_keeps_order_when_kept_objects_move():
    def pack(version, keys):
        body = {"cards": [{"key": k} for k in keys]}
        return {"game": "g", "language": "de", "content_version": version,
                "sha256": hashlib.sha256(canonical(body)).hexdigest(), "body": body}
    old, new = pack(1, ["a", "b", "c"]), pack(2, ["c", "x", "a"])
    delta = make_delta(old, new, from_sha256="0" * 64,
                       to_sha256=hashlib.sha256(canonical(new)).hexdigest())
    assert delta["lists"]["cards"]["order"] == ["c", "x", "a"]
    assert apply_delta(old, json.loads(canonical(delta))) == canonical(new)
