"""kartothek_client against a live server: full release first, deltas after, sha256 and
signature checked, a disk cache that survives restarts and notices damage."""

import base64
import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cards.models import SauschwerObject
from exports import api, signing
from exports.models import Release
from exports.packs import publish
from kartothek_client import Client, KartothekError, VerificationError

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_caches():
    signing.signing_key.cache_clear()
    for cached in vars(api).values():  # release bytes are deterministic across tests' databases
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()


def _release_bytes(version: int) -> bytes:
    return bytes(Release.objects.get(game="sauschwer", language="de", version=version).data)


def _add(n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        SauschwerObject.objects.create(key=f"ding-{i:03}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")


def test_the_client_fetches_in_full_then_by_delta_and_keeps_exact_bytes(
        mini_catalogue, live_server, tmp_path):
    _add(100)
    publish("sauschwer", "de")
    client = Client(live_server.url, tmp_path)
    first = client.update("sauschwer", "de")
    assert (first.version, first.how) == (1, "full")
    assert first.data == _release_bytes(1)
    assert first.content["content_version"] == 1

    SauschwerObject.objects.filter(key="ding-005").update(weight_g=5555)
    _add(2, start=500)
    publish("sauschwer", "de")
    client.requests.clear()
    second = client.update("sauschwer", "de")
    assert (second.version, second.how) == (2, "delta")
    assert second.data == _release_bytes(2)
    assert client.requests == ["/api/timestamp", "/api/packs/sauschwer/de/latest",
                               "/api/packs/sauschwer/de/1..2.delta.json",
                               "/api/packs/sauschwer/de/2.json.sig"]

    # a new process with the same cache: current, so two small requests and no download
    again = Client(live_server.url, tmp_path)
    current = again.update("sauschwer", "de")
    assert (current.version, current.how, current.data) == (2, "cached", second.data)
    assert again.requests == ["/api/timestamp", "/api/packs/sauschwer/de/latest"]


def test_a_damaged_cache_is_fetched_again_in_full(mini_catalogue, live_server, tmp_path):
    _add(50)
    publish("sauschwer", "de")
    Client(live_server.url, tmp_path).update("sauschwer", "de")
    pack_file = tmp_path / "sauschwer" / "de" / "pack.json"
    pack_file.write_bytes(pack_file.read_bytes().replace(b"Ding 1", b"Ding X", 1))
    client = Client(live_server.url, tmp_path)
    assert client.cached("sauschwer", "de") is None
    fresh = client.update("sauschwer", "de")
    assert fresh.how == "full" and fresh.data == _release_bytes(1)


def test_a_client_too_far_behind_takes_the_full_release(mini_catalogue, live_server, tmp_path,
                                                        monkeypatch):
    _add(50)
    publish("sauschwer", "de")
    client = Client(live_server.url, tmp_path)
    client.update("sauschwer", "de")
    for step in range(3):
        _add(1, start=200 + step)
        publish("sauschwer", "de")
    monkeypatch.setattr(api, "MAX_SPAN", 2)  # the live server runs in this process
    pack = client.update("sauschwer", "de")
    assert (pack.version, pack.how) == (4, "full") and pack.data == _release_bytes(4)
    assert "/api/packs/sauschwer/de/1..4.delta.json" in client.requests


def test_a_pack_signed_by_an_untrusted_key_is_refused_and_not_kept(
        mini_catalogue, live_server, tmp_path):
    _add(20)
    publish("sauschwer", "de")
    stranger = Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    server_key_id = json.loads(Client(live_server.url, tmp_path / "x")._get("/api/keys").body)[
        "keys"][0]["id"]
    # the right key id, the wrong key: as if a mirror had re-signed the pack
    client = Client(live_server.url, tmp_path,
                    public_keys={server_key_id: base64.b64encode(stranger).decode()})
    with pytest.raises(VerificationError, match="does not verify"):
        client.update("sauschwer", "de")
    assert client.cached("sauschwer", "de") is None
    unknown = Client(live_server.url, tmp_path, public_keys={"0" * 16: base64.b64encode(
        stranger).decode()})
    with pytest.raises(VerificationError, match="does not trust"):
        unknown.update("sauschwer", "de")


def test_keys_are_pinned_on_first_use(mini_catalogue, live_server, tmp_path):
    _add(20)
    publish("sauschwer", "de")
    client = Client(live_server.url, tmp_path)
    client.update("sauschwer", "de")
    pinned = json.loads((tmp_path / "keys.json").read_text())
    assert list(pinned.values()) == [k["public_key"] for k in signing.public_keys()]


def test_no_release_yet_is_a_clear_error(mini_catalogue, live_server, tmp_path):
    with pytest.raises(KartothekError, match="No release of sauschwer"):
        Client(live_server.url, tmp_path).update("sauschwer", "de")
