"""A retired signing key signs nothing more (issue 38, finding 2).

After the operator rotates K1 -> K2, K1's statement (v2) names K2 as its one successor, the
retirement time and the last release K1 signed of each pack. A client that saw it holds K1 to
those releases (a release forged with the leaked K1 is refused) and follows no other key K1
"endorses"; a client meeting the server after the rotation pins the current key only.
"""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command

from cards.models import SauschwerObject
from exports import api, signing
from exports.models import Release
from exports.packs import publish
from kartothek_client import Client, VerificationError
from tests.test_client_trust import Mirror, _b64, _raw, _rotate, _served_keys, _snapshot

pytestmark = pytest.mark.django_db(transaction=True)
PACK = "/api/packs/sauschwer/de"


@pytest.fixture(autouse=True)
def _fresh_caches(monkeypatch):
    monkeypatch.delenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", raising=False)
    signing.signing_key.cache_clear()
    yield
    signing.signing_key.cache_clear()
    api._signatures.clear()


@pytest.fixture
def mirror(live_server):
    made = Mirror(live_server.url)
    yield made
    made.close()


def _seed(private: Ed25519PrivateKey) -> str:
    return _b64(private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                      serialization.NoEncryption()))


@pytest.fixture
def rotated(mini_catalogue, live_server, tmp_path, monkeypatch):
    """K1 signs sauschwer (de) release 1, which a client pins and keeps; the operator rotates to
    K2, which signs release 2, and the client updates to it (and so sees the rotation)."""
    first = Ed25519PrivateKey.generate()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", _seed(first))
    for i in range(20):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    client = Client(live_server.url, tmp_path / "client")
    assert client.update("sauschwer", "de").version == 1
    second_id = _rotate(monkeypatch)
    SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
    publish("sauschwer", "de")
    assert client.update("sauschwer", "de").key_id == second_id
    return first, second_id, client


def _forge_release_3(mirror: Mirror, key: Ed25519PrivateKey) -> None:
    """The thief's release 3 of sauschwer (de): release 2 renumbered, signed with ``key``."""
    pack = json.loads(bytes(Release.objects.get(game="sauschwer", language="de", version=2).data))
    pack["content_version"] = 3
    forged = json.dumps(pack, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    header = f"keyid={signing.key_id_of(_raw(key))}, ed25519={_b64(key.sign(forged))}"
    mirror.forged.update({
        f"{PACK}/latest": (302, {"Location": f"{PACK}/3.json"}, b""),
        f"{PACK}/2..3.delta.json": (303, {"Location": f"{PACK}/3.json"}, b""),
        f"{PACK}/3.json": (200, {"ETag": f'"{hashlib.sha256(forged).hexdigest()}"',
                                 "X-Kartothek-Signature": header}, forged)})


def test_a_release_forged_with_the_retired_key_beyond_its_last_release_is_refused(
        rotated, mirror, tmp_path, live_server):
    first, second_id, _client = rotated
    first_id = signing.key_id_of(_raw(first))
    assert json.loads((tmp_path / "client" / "retired.json").read_text())[first_id] == {
        "public_key": _b64(_raw(first)), "successor": second_id,
        "retired_at": _served_keys(live_server)["keys"][0]["retired_at"],
        "last_releases": {"sauschwer/de": 1}}
    _forge_release_3(mirror, first)
    through_mirror = Client(mirror.url, tmp_path / "client")
    before = _snapshot(tmp_path / "client")
    with pytest.raises(VerificationError, match=f"retired at .* for key {second_id}; the last "
                                                "release it signed of this pack is 1"):
        through_mirror.update("sauschwer", "de")
    assert _snapshot(tmp_path / "client") == before
    # a client meeting the server after the rotation: the same refusal
    with pytest.raises(VerificationError, match="the last release it signed of this pack is 1"):
        Client(mirror.url, tmp_path / "fresh").update("sauschwer", "de")
    assert Client(mirror.url, tmp_path / "fresh").cached("sauschwer", "de") is None
    # keys passed in (K1 only): the client learns the rotation from release 2, then refuses
    given = Client(live_server.url, tmp_path / "given",
                   public_keys={first_id: _b64(_raw(first))})
    assert given.update("sauschwer", "de").version == 2
    given.base_url = mirror.url
    with pytest.raises(VerificationError, match="retired at"):
        given.update("sauschwer", "de")
    # the genuine release 1 K1 signed still verifies, for every one of them
    assert Client(live_server.url, tmp_path / "fresh")._full("sauschwer", "de", 1).key_id == first_id



def test_a_cache_pinned_before_rotation_statements_learns_them_once(rotated, mirror, tmp_path,
                                                                    live_server):
    """What the client before v2 pinned on first use after a rotation: every listed key. The
    updated client reads the statements between them once, and holds K1 to its releases."""
    first, _, _ = rotated
    served = {k["id"]: k["public_key"] for k in _served_keys(live_server)["keys"]}
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "keys.json").write_text(json.dumps(served))
    _forge_release_3(mirror, first)
    client = Client(mirror.url, tmp_path / "legacy")
    with pytest.raises(VerificationError, match="the last release it signed of this pack is 1"):
        client.update("sauschwer", "de")
    assert set(client.retired_keys()) == {signing.key_id_of(_raw(first))}
    assert client.requests.count("/api/keys") == 1

def _endorsed_by_first(first: Ed25519PrivateKey, thief: Ed25519PrivateKey, served: dict,
                       facts: dict) -> dict:
    """The thief's key list: K1 (whose private key leaked) 'retired' again, for the thief's K3."""
    keys = [dict(served["keys"][0], **facts), *served["keys"][1:]]
    keys.append({"id": signing.key_id_of(_raw(thief)), "algorithm": "ed25519",
                 "public_key": _b64(_raw(thief)), "pem": "", "status": "current",
                 "endorsed_by": keys[0]["id"],
                 "endorsement": _b64(first.sign(signing.endorsement_statement(
                     _raw(thief), retired_key_id=keys[0]["id"], **facts)))})
    return {"algorithm": "ed25519", "keys": keys}


def test_a_second_key_endorsed_by_the_retired_key_is_refused_and_never_pinned(
        rotated, mirror, tmp_path, live_server):
    first, _second_id, _ = rotated
    thief = Ed25519PrivateKey.generate()
    thief_id = signing.key_id_of(_raw(thief))
    _forge_release_3(mirror, thief)
    served = _served_keys(live_server)
    listed = _endorsed_by_first(first, thief, served, {
        "retired_at": "2099-01-01T00:00:00Z", "last_releases": {"sauschwer/de": 99}})
    mirror.forged["/api/keys"] = (200, {"Content-Type": "application/json"},
                                  json.dumps(listed).encode())
    client = Client(mirror.url, tmp_path / "client")
    before = _snapshot(tmp_path / "client")
    with pytest.raises(VerificationError, match=f"key {thief_id}, which this client does not"):
        client.update("sauschwer", "de")
    assert _snapshot(tmp_path / "client") == before  # K3 not pinned, K1's statement unchanged
    assert thief_id not in client.trusted_keys()

    # a client that pinned K1 before the rotation and meets a list where K1 names two
    # successors (K2 and K3) follows neither
    genuine = {name: served["keys"][0][name] for name in ("retired_at", "last_releases")}
    mirror.forged["/api/keys"] = (200, {"Content-Type": "application/json"}, json.dumps(
        _endorsed_by_first(first, thief, served, genuine)).encode())
    old = Client(mirror.url, tmp_path / "old",
                 public_keys={signing.key_id_of(_raw(first)): _b64(_raw(first))})
    with pytest.raises(VerificationError, match="does not trust"):
        old.update("sauschwer", "de")
    assert set(old.trusted_keys()) == {signing.key_id_of(_raw(first))}


def test_a_client_meeting_the_server_after_a_rotation_pins_the_current_key_only(
        rotated, live_server, tmp_path):
    first, second_id, _ = rotated
    fresh = Client(live_server.url, tmp_path / "fresh")
    assert fresh.update("sauschwer", "de").key_id == second_id
    assert json.loads((tmp_path / "fresh" / "keys.json").read_text()) == {
        second_id: _served_keys(live_server)["keys"][-1]["public_key"]}
    kept = fresh.retired_keys()[signing.key_id_of(_raw(first))]
    assert (kept.successor, dict(kept.last_releases)) == (second_id, {"sauschwer/de": 1})


def test_an_old_format_previous_key_is_refused_and_restate_makes_the_new_line(
        mini_catalogue, monkeypatch, tmp_path):
    first, second = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", _seed(first))
    publish("slogan", "de")
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", _seed(second))
    v1 = first.sign(b"kartothek-signing-key-endorsement-v1\n...")  # what main's command made
    monkeypatch.setenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", f"{_b64(_raw(first))}:{_b64(v1)}")
    signing.signing_key.cache_clear()
    [error] = signing.check_signing_key(None)
    assert error.id == "exports.E002" and "rotate_signing_key --restate" in error.msg
    (tmp_path / "old.key").write_text(_seed(first))
    out = io.StringIO()
    call_command("rotate_signing_key", "--restate", str(tmp_path / "old.key"), stdout=out,
                 stderr=io.StringIO())
    name, _, line = out.getvalue().strip().partition("=")
    assert name == "KARTOTHEK_PREVIOUS_SIGNING_KEYS"
    assert line.startswith(f"{_b64(_raw(first))}:") and line.endswith(":slogan/de=1")
    monkeypatch.setenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", line)
    assert signing.check_signing_key(None) == []
    retired = signing.public_keys()[0]
    assert (retired["status"], retired["last_releases"]) == ("retired", {"slogan/de": 1})
    # without the old private key, the command says what to do instead
    monkeypatch.setenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", f"{_b64(_raw(first))}:{_b64(v1)}")
    (tmp_path / "other.key").write_text(_seed(Ed25519PrivateKey.generate()))
    with pytest.raises(Exception, match="drop its entry"):
        call_command("rotate_signing_key", "--restate", str(tmp_path / "other.key"),
                     stdout=io.StringIO(), stderr=io.StringIO())


def test_the_server_refuses_a_chain_naming_a_key_twice(monkeypatch):
    current, old = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", _seed(current))
    statement = signing.endorsement_statement(
        _raw(current), retired_key_id=signing.key_id_of(_raw(old)),
        retired_at="2026-12-05T07:10:00Z", last_releases={})
    entry = f"{_b64(_raw(old))}:{_b64(old.sign(statement))}:20261205T071000Z:-"
    monkeypatch.setenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", entry)
    signing.signing_key.cache_clear()
    assert signing.check_signing_key(None) == []
    monkeypatch.setenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", f"{entry},{entry}")
    assert "names a key twice" in signing.check_signing_key(None)[0].msg


def test_the_rotated_key_list_matches_the_openapi_description(rotated, live_server):
    from jsonschema import Draft202012Validator

    from tests.test_openapi import BASE, REGISTRY

    body = _served_keys(live_server)
    assert [k["status"] for k in body["keys"]] == ["retired", "current"]
    assert body["keys"][0]["last_releases"] == {"sauschwer/de": 1}
    validator = Draft202012Validator({"$ref": BASE + "#/components/schemas/Keys"},
                                     registry=REGISTRY)
    assert [e.message for e in validator.iter_errors(body)] == []
    body["keys"][0]["last_releases"] = {"sauschwer/de": "1"}  # the description is not vacuous
    assert list(validator.iter_errors(body))


def test_a_hostile_key_list_gives_no_key():
    from kartothek_client.keys import MAX_KEYS, endorsed_chain, first_use

    key = _raw(Ed25519PrivateKey.generate())
    entry = {"id": signing.key_id_of(key), "public_key": _b64(key), "status": "current"}
    assert first_use([entry]) == ({entry["id"]: entry["public_key"]}, {})
    for hostile in (None, 5, "keys", {"keys": []}, [1, None, [], {"id": 3}],
                    [{"id": "0123456789abcdef", "public_key": "!!"}], [entry, dict(entry)],
                    [entry] + [{"id": str(n)} for n in range(MAX_KEYS)]):
        assert first_use(hostile) == ({}, {}), hostile
        assert endorsed_chain({}, {}, hostile) == ({}, {})
