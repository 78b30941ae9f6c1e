"""Signed releases: Ed25519 over the exact release bytes, written once, served beside it."""

import base64
import io
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.core import checks
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from cards.models import SauschwerObject
from exports import api, signing
from exports.errors import PackError
from exports.models import Release, ReleaseIsImmutable, ReleaseSignature
from exports.packs import publish

pytestmark = pytest.mark.django_db
README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.fixture(autouse=True)
def _fresh_key_cache():
    # Release bytes are deterministic, so another test's signature of the same bytes under
    # another key could be in the server's per-process cache.
    signing.signing_key.cache_clear()
    api._signatures.clear()
    yield
    signing.signing_key.cache_clear()
    api._signatures.clear()


def _public(client) -> Ed25519PublicKey:
    keys = client.get("/api/keys").json()["keys"]
    assert len(keys) == 1
    return Ed25519PublicKey.from_public_bytes(base64.b64decode(keys[0]["public_key"]))


def test_a_published_release_carries_a_signature_of_its_exact_bytes(mini_catalogue, client):
    release = publish("sauschwer", "de").release
    public = _public(client)
    response = client.get("/api/packs/sauschwer/de/1.json")
    header = response["X-Kartothek-Signature"]
    key_id, signature = re.fullmatch(r"keyid=([0-9a-f]{16}), ed25519=(\S+)", header).groups()
    assert key_id == client.get("/api/keys").json()["keys"][0]["id"]
    public.verify(base64.b64decode(signature), response.content)  # raises if it does not match
    sig = client.get("/api/packs/sauschwer/de/1.json.sig")
    assert sig.status_code == 200
    assert sig["Cache-Control"] == "public, max-age=31536000, immutable"
    assert sig.json()["signature"] == signature and sig.json()["sha256"] == release.sha256
    # one changed byte no longer verifies
    assert not signing.verify(client.get("/api/keys").json()["keys"][0]["public_key"],
                              response.content.replace(b"de", b"dE", 1), signature)


def test_a_signature_cannot_be_changed_or_deleted(mini_catalogue):
    release = publish("sauschwer", "de").release
    signature = ReleaseSignature.objects.get(release=release)
    signature.signature = base64.b64encode(b"x" * 64).decode()
    with pytest.raises(ReleaseIsImmutable):
        signature.save()
    with pytest.raises(ReleaseIsImmutable):
        ReleaseSignature.objects.filter(release=release).update(key_id="0" * 16)
    with pytest.raises(ReleaseIsImmutable):
        signature.delete()
    # the database refuses too (SQLite and PostgreSQL raise different error classes)
    with pytest.raises(Exception, match="release signatures are immutable"), \
            transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE exports_releasesignature SET key_id = 'x'")
    with pytest.raises(IntegrityError), transaction.atomic():
        ReleaseSignature.objects.create(release=release, key_id="0" * 16, signature="AA==")


def test_without_a_key_releases_are_unsigned_a_check_warns_and_sign_releases_fills_them(
        mini_catalogue, client, settings, monkeypatch):
    monkeypatch.delenv("KARTOTHEK_SIGNING_KEY", raising=False)
    settings.KARTOTHEK_SIGNING_KEY_GENERATE = False
    settings.DEBUG = False
    first = publish("sauschwer", "de").release
    assert not ReleaseSignature.objects.filter(release=first).exists()
    assert "X-Kartothek-Signature" not in client.get("/api/packs/sauschwer/de/1.json")
    assert client.get("/api/packs/sauschwer/de/1.json.sig").status_code == 404
    assert client.get("/api/keys").json()["keys"] == []
    assert [m.id for m in signing.check_signing_key(None)] == ["exports.W001"]

    seed = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", base64.b64encode(seed).decode())
    signing.signing_key.cache_clear()
    assert signing.check_signing_key(None) == []
    SauschwerObject.objects.create(key="ein-stein", name="Ein Stein", weight_g=500, source="x")
    second = publish("sauschwer", "de").release
    kept = ReleaseSignature.objects.get(release=second).signature
    out = io.StringIO()
    call_command("sign_releases", stdout=out)
    assert "Signed 1 release(s)" in out.getvalue()
    assert ReleaseSignature.objects.get(release=second).signature == kept  # left as it was
    signed_first = client.get("/api/packs/sauschwer/de/1.json.sig").json()
    _public(client).verify(base64.b64decode(signed_first["signature"]), bytes(first.data))


def test_a_pem_key_is_read_and_a_bad_key_is_a_clear_error(monkeypatch):
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", pem)
    assert signing.signing_key().public_raw == private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    for bad, words in [("not base64 !", "neither PEM nor base64"),
                       (base64.b64encode(b"short").decode(), "decodes to 5 bytes")]:
        monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", bad)
        signing.signing_key.cache_clear()
        with pytest.raises(signing.SigningKeyError, match=words):
            signing.signing_key()
        assert [m.id for m in signing.check_signing_key(None)] == ["exports.E001"]
        assert isinstance(signing.check_signing_key(None)[0], checks.Error)


@pytest.mark.django_db(transaction=True)
def test_the_readme_verify_example_runs_against_a_live_server(mini_catalogue, live_server):
    publish("sauschwer", "de")
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- verify-example", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) == 5
    code = block.replace("http://127.0.0.1:8000", live_server.url)
    exec(compile(code, "README verify example", "exec"), {})  # raises InvalidSignature if wrong
    # and it does fail when the pack is not the signed one
    tampered = code.replace(".verify(base64.b64decode(sig[\"signature\"]), pack)",
                            ".verify(base64.b64decode(sig[\"signature\"]), pack + b' ')")
    assert tampered != code
    from cryptography.exceptions import InvalidSignature
    with pytest.raises(InvalidSignature):
        exec(compile(tampered, "tampered", "exec"), {})


def test_an_unreadable_key_publishes_nothing_and_says_why(mini_catalogue, monkeypatch):
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", base64.b64encode(b"short").decode())
    with pytest.raises(PackError, match=r"Not published: .*decodes to 5 bytes"):
        publish("sauschwer", "de")
    assert not Release.objects.exists()
