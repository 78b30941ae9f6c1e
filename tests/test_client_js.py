"""The TypeScript client (clients/js) under Node against a real server: its own tests
(clients/js/test/*.test.mjs, `node --test`) run with the server's URL in KARTOTHEK_URL."""

from __future__ import annotations

import os
import subprocess

import pytest

from exports import api, signing
from tests.js.helpers import CLIENT, build, kartothek_server, publish_catalogue

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fresh_caches():
    signing.signing_key.cache_clear()
    yield
    api._signatures.clear()


def test_the_js_client_passes_its_node_tests_against_a_real_server(mini_catalogue):
    build()
    publish_catalogue()
    with kartothek_server() as server:
        done = subprocess.run(
            ["node", "--test", "--test-reporter=spec", *sorted(
                str(p.relative_to(CLIENT)) for p in (CLIENT / "test").glob("*.test.mjs"))],
            cwd=CLIENT, capture_output=True, text=True, timeout=180,
            env={**os.environ, "KARTOTHEK_URL": server.url})
    assert done.returncode == 0, done.stdout[-20000:] + done.stderr[-5000:]
