"""kartothek/asgi.py's three ways through: a play request runs from start to end on one thread
of the play pool (as under a WSGI server), with the whole middleware; everything else keeps
Django's ASGI path. Driven through the ASGI application itself, as uvicorn calls it."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from django.core import signals

from kartothek.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


def call(method: str, path: str, *, headers: dict[str, str] | None = None,
         body: bytes = b"", query: bytes = b"", messages: bool = False) -> Any:
    """One request through ``kartothek.asgi.application``: status, headers, body (and with
    ``messages`` the ASGI messages sent)."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query,
        "root_path": "", "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
        "headers": [(b"host", b"testserver"),
                    *((k.lower().encode(), v.encode()) for k, v in (headers or {}).items())],
    }
    sent: list[dict[str, Any]] = []

    async def run() -> None:
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # a client that stays until the answer is sent
            raise AssertionError("unreachable")

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await application(scope, receive, send)

    # on a thread of its own: a browser test's Playwright keeps an event loop running on the
    # main thread for the whole session, and asyncio.run() refuses to start inside one
    failures: list[BaseException] = []

    def drive() -> None:
        try:
            asyncio.run(run())
        except BaseException as error:  # handed to the test's thread below
            failures.append(error)

    driver = threading.Thread(target=drive, name="asgi-test-client")
    driver.start()
    driver.join()
    if failures:
        raise failures[0]
    start = sent[0]
    assert start["type"] == "http.response.start"
    answer = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    content = b"".join(m.get("body", b"") for m in sent[1:])
    if messages:
        return start["status"], answer, content, sent
    return start["status"], answer, content


@pytest.fixture
def threads_seen() -> Any:
    """The names of the threads that sent request_started and request_finished."""
    seen: dict[str, list[str]] = {"started": [], "finished": []}

    def started(**kwargs: Any) -> None:
        seen["started"].append(threading.current_thread().name)

    def finished(**kwargs: Any) -> None:
        seen["finished"].append(threading.current_thread().name)

    signals.request_started.connect(started, weak=False)
    signals.request_finished.connect(finished, weak=False)
    yield seen
    signals.request_started.disconnect(started)
    signals.request_finished.disconnect(finished)


def test_a_play_request_runs_from_start_to_finish_on_one_play_thread(threads_seen):
    status, _, body = call("GET", "/api/play/rooms/ZZZZZZ")
    assert status == 404 and json.loads(body)["status"] == 404
    assert len(threads_seen["started"]) == len(threads_seen["finished"]) == 1
    assert threads_seen["started"] == threads_seen["finished"]
    assert threads_seen["started"][0].startswith("kartothek-play")


def test_a_play_page_gets_the_whole_middleware(threads_seen):
    status, headers, body = call("GET", "/play/")
    assert status == 200 and b"<html" in body.lower()
    # the security middleware, django-csp and the clickjacking guard all ran
    assert "content-security-policy" in headers and headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert threads_seen["started"][0].startswith("kartothek-play")


def test_a_forged_play_post_with_a_cookie_and_no_csrf_token_is_still_refused():
    status, _, body = call("POST", "/api/play/rooms", body=b'{"game": "symbols"}',
                           headers={"content-type": "application/json",
                                    "cookie": "sessionid=forged"})
    assert status == 403 and "CSRF" in json.loads(body)["error"]


def test_a_room_is_opened_joined_and_read_through_the_play_path():
    from tests.play.core_helpers import release_of

    release_of("sauschwer")
    json_type = {"content-type": "application/json"}
    status, _, body = call("POST", "/api/play/rooms", headers=json_type,
                           body=json.dumps({"game": "sauschwer", "language": "en",
                                            "name": "Ada"}).encode())
    assert status == 201, body
    opened = json.loads(body)
    code, host_token = opened["code"], opened["token"]
    status, _, body = call("POST", f"/api/play/rooms/{code}/seats", headers=json_type,
                           body=b'{"name": "Bo"}')
    assert status == 201, body
    status, headers, body = call("GET", f"/api/play/rooms/{code}",
                                 headers={"authorization": f"Bearer {host_token}"})
    assert status == 200 and headers["etag"]
    names = [seat["name"] for seat in json.loads(body)["seats"]]
    assert names == ["Ada", "Bo"]
    # the same version again is a 304 without a body, as the polling pages rely on
    status, _, body = call("GET", f"/api/play/rooms/{code}",
                           headers={"authorization": f"Bearer {host_token}",
                                    "if-none-match": headers["etag"]})
    assert status == 304 and body == b""


def test_other_paths_keep_djangos_asgi_path(threads_seen):
    status, _, _ = call("GET", "/admin/login/")
    assert status in (200, 302, 404)
    started = threads_seen["started"]
    assert started and not started[0].startswith(("kartothek-play", "kartothek-packs"))


def test_a_packs_request_runs_on_one_thread_of_the_packs_pool_with_the_whole_middleware(
        threads_seen):
    status, headers, body = call("GET", "/api/packs/")
    assert status == 200 and json.loads(body)["games"]
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
    assert threads_seen["started"] == threads_seen["finished"]
    assert len(threads_seen["started"]) == 1
    assert threads_seen["started"][0].startswith("kartothek-packs")


def test_a_media_file_is_read_whole_on_the_packs_pool_and_sent_in_one_piece(threads_seen):
    from django.conf import settings

    folder = Path(settings.MEDIA_ROOT) / "asgi-paths-test"
    folder.mkdir(parents=True, exist_ok=True)
    data = os.urandom(200_000)  # several of Django's 64 KiB chunks
    (folder / "file.bin").write_bytes(data)
    try:
        status, headers, body, messages = call("GET", "/media/asgi-paths-test/file.bin",
                                               messages=True)
    finally:
        shutil.rmtree(folder)
    assert status == 200 and body == data and headers["content-length"] == str(len(data))
    assert len([m for m in messages if m.get("body")]) == 1
    assert threads_seen["started"] == threads_seen["finished"]
    assert threads_seen["started"][0].startswith("kartothek-packs")


def test_a_play_request_hands_its_database_connection_back():
    from django.db import connections

    seen: list[Any] = []

    def finished(**kwargs: Any) -> None:
        seen.append(connections["default"])  # this thread's own wrapper, not the proxy

    call("GET", "/api/play/rooms/ZZZZZZ")  # the first request may start the pool's thread
    signals.request_finished.connect(finished, weak=False)
    try:
        call("GET", "/api/play/rooms/ZZZZZZ")
    finally:
        signals.request_finished.disconnect(finished)
    # request_finished ran on the play thread and closed that thread's connection afterwards
    assert seen and seen[0] is not connections["default"]  # it ran on the play thread
    assert seen[0].connection is None


def test_the_app_server_freezes_what_it_loaded_and_collects_garbage_less_often():
    import gc

    from kartothek.asgi import GC_YOUNG

    assert gc.get_threshold()[0] == GC_YOUNG > 700
    assert gc.get_freeze_count() > 10_000  # Django and the app, loaded before the first request


def test_a_releases_304_once_answered_by_django_is_answered_again_without_it(
        mini_catalogue, threads_seen):
    """Issue 36: a release and so its 304 never change; after Django's first 304 the same
    conditional request is answered on the event loop (no request reaches Django), with the
    very same headers, while anything else still goes through Django."""
    from exports.packs import publish

    release = publish("sauschwer", "en").release
    path = f"/api/packs/sauschwer/en/{release.version}.json"
    etag = f'"{release.sha256}"'

    status, first, body = call("GET", path)
    assert status == 200 and first["etag"] == etag
    status, django_304, body = call("GET", path, headers={"If-None-Match": etag})
    assert status == 304 and body == b""
    through_django = len(threads_seen["started"])
    assert through_django == 2

    status, kept_304, body = call("GET", path, headers={"If-None-Match": etag})
    assert status == 304 and body == b"" and kept_304 == django_304
    assert kept_304["access-control-allow-origin"] == "*"
    assert kept_304["cache-control"] == "public, max-age=31536000, immutable"
    assert len(threads_seen["started"]) == through_django  # Django never saw it

    # another ETag, a list of them, a query or another method: Django answers, as before
    for headers, query in (({"If-None-Match": '"0000"'}, b""),
                           ({"If-None-Match": f'"0000", {etag}'}, b""),
                           ({"If-None-Match": etag}, b"pictures=embedded"),
                           ({}, b"")):
        status, _answer, _body = call("GET", path, headers=headers, query=query)
        assert status in (200, 304)
    assert len(threads_seen["started"]) == through_django + 4


def test_a_drafts_or_an_unknown_releases_answer_is_never_kept(mini_catalogue, threads_seen):
    status, _h, _b = call("GET", "/api/packs/sauschwer/en/99.json", headers={"If-None-Match": '"x"'})
    assert status == 404
    call("GET", "/api/packs/sauschwer/en/99.json", headers={"If-None-Match": '"x"'})
    assert len(threads_seen["started"]) == 2
