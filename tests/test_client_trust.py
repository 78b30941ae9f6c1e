"""What a client trusts (issue 21, findings 1 and 2): a mirror between the client and the
server can add keys, re-sign packs and answer with other genuine releases; the client keeps
none of it. A key rotated by the operator (endorsed by the pinned key) is accepted."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command

import kartothek_client.client as client_module
from cards.models import SauschwerObject
from exports import api, signing
from exports.models import Release
from exports.packs import publish
from kartothek_client import Client, VerificationError

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_caches(monkeypatch):
    monkeypatch.delenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", raising=False)
    signing.signing_key.cache_clear()
    for cached in vars(api).values():
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
    yield
    signing.signing_key.cache_clear()
    api._signatures.clear()


class Mirror:
    """A real HTTP server in front of the live server: answers the paths in ``forged``
    itself (status, headers, body) and passes every other GET through unchanged."""

    def __init__(self, upstream: str) -> None:
        self.forged: dict[str, tuple[int, dict[str, str], bytes]] = {}
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path in mirror.forged:
                    status, headers, body = mirror.forged[self.path]
                else:
                    try:
                        with urllib.request.urlopen(upstream + self.path) as answer:
                            status, body = answer.status, answer.read()
                            headers = {k: v for k, v in answer.headers.items()
                                       if k.lower() in ("etag", "x-kartothek-signature",
                                                        "content-type")}
                    except urllib.error.HTTPError as exc:  # 302 latest, 303 delta…
                        status, body = exc.code, exc.read()
                        headers = {k: v for k, v in exc.headers.items()
                                   if k.lower() in ("location", "content-type")}
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
                return None

        urllib.request.install_opener(urllib.request.build_opener(NoRedirect))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        urllib.request.install_opener(urllib.request.build_opener())


@pytest.fixture
def mirror(live_server):
    made = Mirror(live_server.url)
    yield made
    made.close()


def _raw(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(serialization.Encoding.Raw,
                                             serialization.PublicFormat.Raw)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _served_keys(live_server) -> dict:
    with urllib.request.urlopen(live_server.url + "/api/keys") as answer:
        return json.load(answer)


def _snapshot(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _re_signed_slogan(mirror: Mirror, live_server, mirror_key: Ed25519PrivateKey,
                      endorsement: dict[str, str] | None = None) -> bytes:
    """The mirror's forgery: release 2 of slogan (de) is release 1 with every 'correct'
    flipped, signed with the mirror's own key, which it adds to /api/keys."""
    genuine = bytes(Release.objects.get(game="slogan", language="de", version=1).data)
    assert genuine.count(b'"correct":true') and genuine.count(b'"correct":false')
    pack = json.loads(genuine)
    flipped = (genuine.replace(b'"correct":true', b'"correct":@').replace(
        b'"correct":false', b'"correct":true').replace(b'"correct":@', b'"correct":false'))
    forged_pack = json.loads(flipped)
    forged_pack["content_version"] = 2
    forged = json.dumps(forged_pack, sort_keys=True, separators=(",", ":"),
                        ensure_ascii=False).encode()
    assert forged_pack["body"] != pack["body"]
    key_id = signing.key_id_of(_raw(mirror_key))
    keys = _served_keys(live_server)
    keys["keys"].append({"id": key_id, "algorithm": "ed25519", "public_key": _b64(_raw(mirror_key)),
                         "pem": "", "status": "current", **(endorsement or {})})
    signature = _b64(mirror_key.sign(forged))
    mirror.forged.update({
        "/api/keys": (200, {"Content-Type": "application/json"}, json.dumps(keys).encode()),
        "/api/packs/slogan/de/latest": (302, {"Location": "/api/packs/slogan/de/2.json"}, b""),
        "/api/packs/slogan/de/1..2.delta.json": (303, {"Location": "/api/packs/slogan/de/2.json"},
                                                 b""),
        "/api/packs/slogan/de/2.json": (200, {
            "ETag": f'"{hashlib.sha256(forged).hexdigest()}"',
            "X-Kartothek-Signature": f"keyid={key_id}, ed25519={signature}"}, forged),
        "/api/packs/slogan/de/2.json.sig": (200, {}, json.dumps(
            {"key_id": key_id, "signature": signature}).encode()),
    })
    return forged


def test_a_key_a_mirror_adds_to_api_keys_is_refused_and_nothing_is_stored(
        mini_catalogue, live_server, mirror, tmp_path):
    publish("slogan", "de")
    client = Client(mirror.url, tmp_path)
    assert client.update("slogan", "de").version == 1  # genuine, keys pinned on first use
    before = _snapshot(tmp_path)
    _re_signed_slogan(mirror, live_server, Ed25519PrivateKey.generate())
    with pytest.raises(VerificationError, match="does not trust"):
        client.update("slogan", "de")
    assert _snapshot(tmp_path) == before  # no key pinned, no pack kept
    assert client.cached("slogan", "de").version == 1

    # keys passed in: the same refusal, and the given keys stay as they were
    given = {k["id"]: k["public_key"] for k in _served_keys(live_server)["keys"]}
    other = Client(mirror.url, tmp_path / "given", public_keys=dict(given))
    with pytest.raises(VerificationError, match="does not trust"):
        other.update("slogan", "de")
    assert other.trusted_keys() == given and other.cached("slogan", "de") is None


def test_a_forged_endorsement_does_not_make_a_key_trusted(mini_catalogue, live_server, mirror,
                                                         tmp_path):
    publish("slogan", "de")
    client = Client(mirror.url, tmp_path)
    client.update("slogan", "de")
    before = _snapshot(tmp_path)
    pinned_id = next(iter(json.loads((tmp_path / "keys.json").read_text())))
    mirror_key = Ed25519PrivateKey.generate()
    # "endorsed" by the pinned key's id, but signed by the mirror's key itself
    _re_signed_slogan(mirror, live_server, mirror_key, {
        "endorsed_by": pinned_id,
        "endorsement": _b64(mirror_key.sign(signing.endorsement_statement(
            _raw(mirror_key), retired_key_id=pinned_id, retired_at="2026-01-01T00:00:00Z",
            last_releases={})))})
    with pytest.raises(VerificationError, match="does not trust"):
        client.update("slogan", "de")
    assert _snapshot(tmp_path) == before


def _rotate(monkeypatch) -> str:
    """What the operator does: run rotate_signing_key, put its two lines into the environment."""
    out, err = io.StringIO(), io.StringIO()
    call_command("rotate_signing_key", stdout=out, stderr=err)
    assert "endorsed by the current key" in err.getvalue()
    for line in out.getvalue().splitlines():
        name, _, value = line.partition("=")
        assert name in ("KARTOTHEK_SIGNING_KEY", "KARTOTHEK_PREVIOUS_SIGNING_KEYS")
        monkeypatch.setenv(name, value)
    signing.signing_key.cache_clear()
    return signing.signing_key().key_id


def test_a_rotated_key_endorsed_by_the_pinned_key_is_accepted_and_pinned(
        mini_catalogue, live_server, tmp_path, monkeypatch, settings):
    settings.KARTOTHEK_SIGNING_KEY_GENERATE = True
    first_key = Ed25519PrivateKey.generate()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", _b64(first_key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())))
    for i in range(20):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    client = Client(live_server.url, tmp_path)
    client.update("sauschwer", "de")
    old_id = signing.key_id_of(_raw(first_key))
    assert set(json.loads((tmp_path / "keys.json").read_text())) == {old_id}

    # two rotations: the client walks the chain old -> middle -> newest
    middle_id = _rotate(monkeypatch)
    newest_id = _rotate(monkeypatch)
    assert signing.check_signing_key(None) == []
    served = _served_keys(live_server)["keys"]
    assert [(k["id"], k["status"], k.get("endorsed_by")) for k in served] == [
        (old_id, "retired", None), (middle_id, "retired", old_id), (newest_id, "current", middle_id)]
    SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
    publish("sauschwer", "de")
    pack = client.update("sauschwer", "de")
    assert (pack.version, pack.key_id) == (2, newest_id)
    assert set(json.loads((tmp_path / "keys.json").read_text())) == {old_id, middle_id, newest_id}
    # release 1, signed by the retired key, still verifies for a new client
    fresh = Client(live_server.url, tmp_path / "fresh")
    assert fresh._full("sauschwer", "de", 1).key_id == old_id
    # keys passed in: the endorsed key is trusted for this client's life, nothing written
    given = Client(live_server.url, tmp_path / "given",
                   public_keys={old_id: _b64(_raw(first_key))})
    assert given.update("sauschwer", "de").key_id == newest_id
    assert not (tmp_path / "given" / "keys.json").exists()


def test_a_broken_endorsement_chain_is_a_clear_error_on_the_server(monkeypatch):
    current = Ed25519PrivateKey.generate()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", _b64(current.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())))
    old = Ed25519PrivateKey.generate()
    # the old key endorsed some other key, not the current one
    wrong = old.sign(signing.endorsement_statement(
        _raw(Ed25519PrivateKey.generate()), retired_key_id=signing.key_id_of(_raw(old)),
        retired_at="2026-12-05T07:10:00Z", last_releases={"slogan/de": 3}))
    monkeypatch.setenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS",
                       f"{_b64(_raw(old))}:{_b64(wrong)}:20261205T071000Z:slogan/de=3")
    signing.signing_key.cache_clear()
    messages = signing.check_signing_key(None)
    assert [m.id for m in messages] == ["exports.E001"]
    assert "endorsement does not verify" in messages[0].msg
    monkeypatch.setenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", "not-a-key")
    assert "is not PUBLIC:ENDORSEMENT:RETIRED_AT:LAST_RELEASES" in signing.check_signing_key(
        None)[0].msg


def test_the_client_and_the_server_endorse_the_same_bytes():
    raw = _raw(Ed25519PrivateKey.generate())
    facts = {"retired_key_id": "0123456789abcdef", "retired_at": "2026-12-05T07:10:00Z",
             "last_releases": {"slogan/en-GB": 4, "sauschwer/de": 12}}
    made = signing.endorsement_statement(raw, **facts)  # type: ignore[arg-type]
    assert client_module.endorsement_statement(raw, **facts) == made  # type: ignore[arg-type]
    assert made.decode().splitlines()[0] == "kartothek-signing-key-endorsement-v2"
    assert made.decode().splitlines()[-2:] == ["last_release=sauschwer/de=12",
                                               "last_release=slogan/en-GB=4"]


def test_a_genuine_release_of_another_pack_is_refused(mini_catalogue, live_server, mirror,
                                                     tmp_path):
    """Asked for sauschwer/de latest, the mirror answers with symbols/en release 1 as 9.json,
    its genuine signature and sha256 with it."""
    for i in range(20):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    other = publish("symbols", "en").release
    with urllib.request.urlopen(f"{live_server.url}/api/packs/symbols/en/1.json") as answer:
        body, etag, sig = answer.read(), answer.headers["ETag"], answer.headers[
            "X-Kartothek-Signature"]
    assert body == bytes(other.data)
    mirror.forged.update({
        "/api/packs/sauschwer/de/latest": (302, {"Location": "/api/packs/sauschwer/de/9.json"},
                                           b""),
        "/api/packs/sauschwer/de/9.json": (200, {"ETag": etag, "X-Kartothek-Signature": sig},
                                           body)})
    client = Client(mirror.url, tmp_path)
    with pytest.raises(VerificationError, match=r"release 1 of 'symbols' \('en'\)"):
        client.update("sauschwer", "de")
    assert client.cached("sauschwer", "de") is None


def test_the_cache_never_goes_back_to_an_older_release(mini_catalogue, live_server, mirror,
                                                       tmp_path):
    for i in range(20):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
    publish("sauschwer", "de")
    client = Client(mirror.url, tmp_path)
    assert client.update("sauschwer", "de").version == 2
    one = bytes(Release.objects.get(game="sauschwer", language="de", version=1).data)
    with urllib.request.urlopen(f"{live_server.url}/api/packs/sauschwer/de/1.json") as answer:
        sig = answer.headers["X-Kartothek-Signature"]
    # a lagging mirror says latest is 1: ignored, the cached release 2 is kept and returned
    mirror.forged["/api/packs/sauschwer/de/latest"] = (
        302, {"Location": "/api/packs/sauschwer/de/1.json"}, b"")
    assert client.update("sauschwer", "de").version == 2
    # genuine release 1 served as "3": refused (it says it is release 1)
    mirror.forged.update({
        "/api/packs/sauschwer/de/latest": (302, {"Location": "/api/packs/sauschwer/de/3.json"}, b""),
        "/api/packs/sauschwer/de/2..3.delta.json": (303, {}, b""),
        "/api/packs/sauschwer/de/3.json": (200, {
            "ETag": f'"{hashlib.sha256(one).hexdigest()}"', "X-Kartothek-Signature": sig}, one)})
    with pytest.raises(VerificationError, match="release 1 of 'sauschwer'"):
        client.update("sauschwer", "de")
    assert client.cached("sauschwer", "de").version == 2
    # and a slower process finishing an older update never overwrites the newer cache
    assert client._keep(client._full("sauschwer", "de", 1)).version == 2
    assert client.cached("sauschwer", "de").version == 2


def test_a_delta_to_another_release_than_asked_is_refused(mini_catalogue, live_server, mirror,
                                                          tmp_path):
    for i in range(40):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    client = Client(mirror.url, tmp_path)
    client.update("sauschwer", "de")
    for step in (2, 3):
        SauschwerObject.objects.filter(key="ding-03").update(weight_g=300 + step)
        publish("sauschwer", "de")
    with urllib.request.urlopen(f"{live_server.url}/api/packs/sauschwer/de/1..2.delta.json") as a:
        delta_to_2 = a.read()
    mirror.forged.update({
        "/api/packs/sauschwer/de/latest": (302, {"Location": "/api/packs/sauschwer/de/3.json"}, b""),
        "/api/packs/sauschwer/de/1..3.delta.json": (200, {}, delta_to_2)})
    with pytest.raises(VerificationError, match="got one to release 2"):
        client.update("sauschwer", "de")
    assert client.cached("sauschwer", "de").version == 1
