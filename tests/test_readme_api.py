"""The README's API examples run: the client's update loop against a live server (full
release, then a delta, then the cache), and the webhook receiver on a real signed message."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cards.models import SauschwerObject
from exports import api, webhooks
from exports.models import Release
from exports.packs import publish

README = Path(__file__).resolve().parent.parent / "README.md"


def _example(marker: str) -> str:
    text = README.read_text(encoding="utf-8")
    return text.split(f"<!-- {marker}", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


class _Stop(Exception):
    pass


@pytest.mark.django_db(transaction=True)
def test_the_readme_update_loop_fetches_in_full_then_a_delta_then_from_its_cache(
        mini_catalogue, live_server, tmp_path, monkeypatch, capsys):
    for cached in vars(api).values():
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
    for i in range(40):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    rounds = []

    def sleep(seconds: float) -> None:  # between the loop's rounds: the server goes on
        assert seconds == 60
        rounds.append(seconds)
        if len(rounds) == 1:
            SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
            publish("sauschwer", "de")
        elif len(rounds) == 3:
            raise _Stop

    monkeypatch.setattr(time, "sleep", sleep)
    code = (_example("update-loop-example")
            .replace("https://kartothek.example.org", live_server.url)
            .replace("~/.cache/kartothek", str(tmp_path / "cache")))
    assert code.count(live_server.url) == 1 and str(tmp_path) in code
    with pytest.raises(_Stop):
        exec(compile(code, "README update loop", "exec"), {})
    cards = SauschwerObject.objects.count()
    assert capsys.readouterr().out.splitlines() == [
        f"1 full {cards} cards", f"2 delta {cards} cards", f"2 cached {cards} cards"]
    kept = (tmp_path / "cache" / "sauschwer" / "de" / "pack.json").read_bytes()
    assert kept == bytes(Release.objects.get(game="sauschwer", language="de", version=2).data)


@pytest.mark.django_db
def test_the_readme_webhook_receiver_accepts_a_real_message_and_refuses_a_forged_one(
        mini_catalogue, capsys):
    release = publish("sauschwer", "de").release
    secret = webhooks.new_secret()
    body = webhooks.message_body(release)
    headers = webhooks.signed_headers(secret, "msg_readme", body)
    code = _example("webhook-example")
    assert len(code.strip().splitlines()) == 5
    scope: dict[str, object] = {}
    exec(compile(code.replace("whsec_…the endpoint's secret…", secret), "README webhook",
                 "exec"), scope)
    on_post = scope["on_post"]
    on_post(body, headers)  # type: ignore[operator]
    assert capsys.readouterr().out == (
        "new release: /api/packs/sauschwer/de/1.json {'added': 6, 'removed': 0, 'changed': 0}\n")
    from standardwebhooks.webhooks import WebhookVerificationError

    with pytest.raises(WebhookVerificationError):
        on_post(body.replace(b'"version":1', b'"version":2'), headers)  # type: ignore[operator]


@pytest.mark.django_db(transaction=True)
def test_the_readme_key_chain_example_accepts_a_rotated_key_and_not_an_added_one(
        mini_catalogue, live_server, monkeypatch):
    import base64
    import io

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from django.core.management import call_command

    from exports import signing

    first = Ed25519PrivateKey.generate()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", base64.b64encode(first.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
        serialization.NoEncryption())).decode())
    monkeypatch.delenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", raising=False)
    signing.signing_key.cache_clear()
    old = signing.public_keys()[0]
    out = io.StringIO()
    call_command("rotate_signing_key", stdout=out, stderr=io.StringIO())
    for line in out.getvalue().splitlines():
        name, _, value = line.partition("=")
        monkeypatch.setenv(name, value)
    signing.signing_key.cache_clear()
    try:
        new_id = signing.signing_key().key_id
        code = (_example("key-chain-example").replace("http://127.0.0.1:8000", live_server.url)
                .replace('"0123456789abcdef": "…the base64 public key you kept…"',
                         f'"{old["id"]}": "{old["public_key"]}"'))
        assert len(code.strip().splitlines()) == 4
        scope: dict[str, object] = {}
        exec(compile(code, "README key chain", "exec"), scope)
        assert set(scope["kept"]) == {old["id"], new_id}  # type: ignore[arg-type]
        # a key someone adds to the list without an endorsement by a kept key stays out
        stranger = Ed25519PrivateKey.generate().public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        from kartothek_client.client import endorsed_keys
        listed = [*signing.public_keys(), {"id": signing.key_id_of(stranger),
                                           "public_key": base64.b64encode(stranger).decode(),
                                           "endorsed_by": old["id"],
                                           "endorsement": base64.b64encode(b"x" * 64).decode()}]
        assert set(endorsed_keys({old["id"]: old["public_key"]}, listed)) == {new_id}
    finally:
        signing.signing_key.cache_clear()
