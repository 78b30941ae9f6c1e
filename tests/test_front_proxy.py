"""deploy/nginx.conf, run for real (tools/front_proxy.py) in front of a real app server (uvicorn
with kartothek.asgi on loopback): releases come from nginx's cache with the app's bytes and
headers, their 304s from nginx alone, static files from STATIC_ROOT, what the app marks private
or leaves uncached is never kept, and a seat's event stream passes each event on at once."""

from __future__ import annotations

import gzip
import os
import shutil
import socket
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.test import override_settings

from tests.play.core_helpers import release_of, table
from tests.play.sse_helpers import Server, stream
from tools.front_proxy import FrontProxy, nginx_binary

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.skipif(nginx_binary() is None and not os.environ.get("CI"),
                       reason="nginx is not installed (.ci/run installs nginx-light)"),
]

# Headers that belong to one connection or one server, not to the answer.
HOP = {"date", "server", "connection", "keep-alive", "transfer-encoding"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def front(transactional_db, tmp_path):
    """(app URL, nginx URL): the recipe in front of the app, nginx's files in ``tmp_path``."""
    var_dir = Path(settings.STATIC_ROOT).parent
    assert Path(settings.MEDIA_ROOT).parent == var_dir  # the recipe's layout of KARTOTHEK_VAR_DIR
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as app:
        port = free_port()
        with FrontProxy(port, f"127.0.0.1:{app.port}", var_dir, tmp_path / "nginx"):
            yield app.url, f"http://127.0.0.1:{port}"


def answer_headers(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k not in HOP}


def test_a_release_through_nginx_has_the_apps_bytes_and_headers_and_then_comes_from_its_cache(
        front):
    app, proxy = front
    release = release_of("sauschwer")
    path = f"/api/packs/sauschwer/en/{release.version}.json"
    # an Origin too: whatever headers the app adds for browsers on other sites stay as well
    asked = {"Origin": "http://127.0.0.1:9", "Accept-Encoding": "identity"}
    direct = httpx.get(app + path, headers=asked)
    first = httpx.get(proxy + path, headers=asked)
    again = httpx.get(proxy + path, headers=asked)
    assert direct.status_code == first.status_code == again.status_code == 200
    assert direct.content == first.content == again.content == bytes(release.data)
    assert direct.headers["etag"] == f'"{release.sha256}"'
    assert "immutable" in direct.headers["cache-control"]
    for got in (first, again):
        headers = answer_headers(got)
        assert {k: headers.get(k) for k in answer_headers(direct)} == answer_headers(direct)
    assert (first.headers["x-cache"], again.headers["x-cache"]) == ("MISS", "HIT")

    not_modified = httpx.get(proxy + path, headers={**asked, "If-None-Match": direct.headers["etag"]})
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified.headers["etag"] == direct.headers["etag"]
    assert not_modified.headers["x-cache"] == "HIT"  # nginx's answer: the app was not asked

    zipped = httpx.get(proxy + path, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == bytes(release.data)  # httpx unzipped it


def test_what_the_app_does_not_mark_cacheable_is_never_kept(front):
    _, proxy = front
    release_of("sauschwer")
    for path in ("/api/packs/sauschwer/en/draft.json", "/api/packs/sauschwer/en/99.json"):
        answers = [httpx.get(proxy + path) for _ in range(2)]
        assert [a.status_code for a in answers] in ([403, 403], [404, 404])
        assert all(a.headers["x-cache"] == "MISS" for a in answers)
        assert all(a.json()["error"] for a in answers)


def test_static_files_come_from_static_root_hashed_names_cached_for_good(front):
    _, proxy = front
    folder = Path(settings.STATIC_ROOT) / "front-proxy-test"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "app.0123456789ab.css").write_bytes(b"body { color: black }\n")
    (folder / "plain.css").write_bytes(b"p { margin: 0 }\n")
    (folder / "plain.css.gz").write_bytes(gzip.compress(b"p { margin: 0 }\n"))
    try:
        hashed = httpx.get(f"{proxy}/static/front-proxy-test/app.0123456789ab.css")
        plain = httpx.get(f"{proxy}/static/front-proxy-test/plain.css",
                          headers={"Accept-Encoding": "gzip"})
        missing = httpx.get(f"{proxy}/static/front-proxy-test/none.css")
    finally:
        shutil.rmtree(folder)
    assert hashed.status_code == 200 and hashed.content == b"body { color: black }\n"
    assert hashed.headers["content-type"].startswith("text/css")
    assert hashed.headers["cache-control"] == "public, max-age=315360000, immutable"
    assert hashed.headers["x-content-type-options"] == "nosniff"
    assert plain.status_code == 200 and plain.content == b"p { margin: 0 }\n"
    assert plain.headers["content-encoding"] == "gzip"  # WhiteNoise's copy, sent as it is
    assert plain.headers["cache-control"] == "public, max-age=60"
    assert missing.status_code == 404


def test_a_seats_event_stream_passes_each_event_on_while_it_stays_open(front):
    _, proxy = front
    release_of("sauschwer")
    players = table("sauschwer", 2)
    watcher = players[0]
    url = f"{proxy}/api/play/rooms/{watcher.code}/events"
    with stream(url, {"Authorization": f"Bearer {watcher.token}"}) as events:
        assert events.status == 200
        assert events.headers["content-type"].startswith("text/event-stream")
        first = events.next(timeout=5)  # arrives while the stream is open: not held back
        assert first.kind == "room" and first.body == watcher.body()
        active = next(p for p in players if p.seat == first.body["view"]["active"])
        move = next(a for a in active.body()["legal_actions"] if a["type"] == "place")
        assert active.act(move).status_code == 200
        moved = events.next(timeout=5)
        assert int(moved.id) == int(first.id) + 1 and moved.body == watcher.body()
