"""A web game on another origin, using only clients/js, in Chromium: the Kartothek server on
one loopback port (CORS open to the page's origin), the page on another. It lists the packs,
downloads and verifies a release, makes the next one from a delta, opens a room and follows a
seat's stream (by ticket) to the end of a game (issue 36's "Done when")."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import Page

from exports import api, signing
from tests.js.helpers import CLIENT, build, kartothek_server, publish_catalogue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class _Files(SimpleHTTPRequestHandler):
    extensions_map = {".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript",
                      ".map": "application/json", "": "application/octet-stream"}

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def page_origin() -> Iterator[str]:
    """clients/js served as static files from a loopback port of its own: the page's origin."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Files, directory=str(CLIENT)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def _fresh_caches():
    signing.signing_key.cache_clear()
    yield
    api._signatures.clear()


def test_a_page_on_another_origin_reads_packs_and_follows_a_seat_to_the_end_of_a_game(
        mini_catalogue, page: Page):
    build()
    publish_catalogue()
    # the server with what KARTOTHEK_CORS_ALLOWED_ORIGINS=<the page's origin> sets
    with page_origin() as origin, kartothek_server(CORS_ALLOWED_ORIGINS=[origin]) as server:
        assert server.url != origin
        page.goto(f"{origin}/test/browser.html?api={server.url}")
        page.wait_for_function("window.report !== undefined", timeout=60_000)
        report = page.evaluate("window.report")
    assert "error" not in report, report["error"]
    assert {"sauschwer", "symbols"} <= set(report["games"])
    assert report["release"]["version"] == 1 and report["release"]["how"] == "full"
    assert report["delta"] == {"how": "delta", "version": 2, "sameBytes": True}
    seen = report["stream"]["seen"]
    assert all(step["you"] == report["stream"]["seat"] for step in seen)
    assert [step["version"] for step in seen] == sorted({step["version"] for step in seen})
    assert seen[0]["status"] == "lobby" and seen[-1]["status"] == "finished"
