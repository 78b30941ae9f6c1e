"""The TypeScript client (clients/js) under Node against a real server: its own tests
(clients/js/test/*.test.mjs, `node --test`) run with the server's URL in KARTOTHEK_URL."""

from __future__ import annotations

import os
import subprocess

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from exports import api, signing
from exports.packs import publish
from tests.js.helpers import CLIENT, build, kartothek_server, publish_catalogue
from tests.test_client_trust import _b64, _rotate

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fresh_caches(monkeypatch):
    monkeypatch.delenv("KARTOTHEK_PREVIOUS_SIGNING_KEYS", raising=False)
    signing.signing_key.cache_clear()
    yield
    signing.signing_key.cache_clear()
    api._signatures.clear()


def test_the_js_client_passes_its_node_tests_against_a_real_server(mini_catalogue, monkeypatch):
    """The catalogue is published under a first key; then the operator rotates the key and
    publishes slogan (de) release 1 under the new one (packs.test.mjs: "the server's own key
    rotation")."""
    first = Ed25519PrivateKey.generate()
    monkeypatch.setenv("KARTOTHEK_SIGNING_KEY", _b64(first.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
        serialization.NoEncryption())))
    signing.signing_key.cache_clear()
    build()
    publish_catalogue()
    _rotate(monkeypatch)
    publish("slogan", "de")
    with kartothek_server() as server:
        done = subprocess.run(
            ["node", "--test", "--test-reporter=spec", *sorted(
                str(p.relative_to(CLIENT)) for p in (CLIENT / "test").glob("*.test.mjs"))],
            cwd=CLIENT, capture_output=True, text=True, timeout=180,
            env={**os.environ, "KARTOTHEK_URL": server.url})
    # node's spec reporter repeats each failure under "failing tests": show that part first,
    # each line cut short (a failed comparison of two stores prints them whole)
    failing = done.stdout.partition("failing tests")[2] or done.stdout
    shown = "\n".join(line[:400] for line in failing.splitlines())[-20000:]
    assert done.returncode == 0, shown + done.stderr[-5000:]
