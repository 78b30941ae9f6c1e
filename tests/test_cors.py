"""Cross-origin use (DESIGN.md: Interfaces): the public read-only API answers any origin with
``*``; the play API only the origins in KARTOTHEK_CORS_ALLOWED_ORIGINS; no credentials anywhere;
preflights are answered. (The event stream's own route: tests/play/test_stream_tickets.py.)"""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import override_settings

from common.env import env_origins
from tests.test_settings import start

pytestmark = pytest.mark.django_db

GAME = "http://127.0.0.1:8123"  # the web game's origin, allowed for play below
OTHER = "https://elsewhere.example"
PUBLIC_PATHS = [
    "/api/packs",
    "/api/packs/",  # the index's first URL, answering the same
    "/api/packs/sauschwer/en/latest",  # a 404 here (nothing published): readable all the same
    "/api/packs/sauschwer/en/1.json",
    "/api/keys",
    "/api/timestamp",
    "/api/schema/content-pack.json",
    "/api/openapi.json",
    f"/api/pictures/{'0' * 64}.png",
]
PLAY_PATHS = ["/api/play/rooms", "/api/play/rooms/K7XQM4TW", "/api/play/rooms/K7XQM4TW/stream-tickets"]


def _split(value: str | None) -> set[str]:
    return {part.strip().lower() for part in (value or "").split(",") if part.strip()}


@pytest.mark.parametrize("path", PUBLIC_PATHS)
@pytest.mark.parametrize("origin", [GAME, OTHER, "null"])
def test_the_public_api_answers_every_origin_with_a_star_and_exposes_the_etag(client, path, origin):
    response = client.get(path, headers={"Origin": origin})
    assert response["Access-Control-Allow-Origin"] == "*"
    assert {"etag", "content-length", "x-kartothek-signature"} <= _split(
        response["Access-Control-Expose-Headers"])
    assert not response.has_header("Access-Control-Allow-Credentials")


@pytest.mark.parametrize("path", PUBLIC_PATHS)
def test_a_preflight_to_the_public_api_is_answered(client, path):
    response = client.options(path, headers={
        "Origin": OTHER, "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "if-none-match"})
    assert response.status_code in (200, 204)
    assert response["Access-Control-Allow-Origin"] == "*"
    assert {"get", "head", "options"} <= _split(response["Access-Control-Allow-Methods"])
    assert "if-none-match" in _split(response["Access-Control-Allow-Headers"])
    assert not response.has_header("Access-Control-Allow-Credentials")
    if path == "/api/packs/":  # an OPTIONS that is no preflight stays the read-only API's 405
        assert client.options(path).status_code == 405


# (allowed origins, the request's origin, whether the play API lets that page read it)
PLAY_CASES = [
    ([], GAME, False),  # the default: no page on another origin plays
    ([GAME], GAME, True),
    ([GAME], OTHER, False),
    ([GAME], "http://127.0.0.1:8124", False),  # another port is another origin
    ([GAME], "https://127.0.0.1:8123", False),  # and another scheme
    ([GAME, OTHER], OTHER, True),
    ([GAME], "null", False),  # a sandboxed frame or a file:// page
]


@pytest.mark.parametrize(("allowed", "origin", "readable"), PLAY_CASES)
@pytest.mark.parametrize("path", PLAY_PATHS)
def test_the_play_api_answers_only_the_configured_origins(client, path, allowed, origin, readable):
    with override_settings(CORS_ALLOWED_ORIGINS=allowed):
        response = client.get(path, headers={"Origin": origin})
    assert response.get("Access-Control-Allow-Origin") == (origin if readable else None)
    assert not response.has_header("Access-Control-Allow-Credentials")
    assert "origin" in _split(response.get("Vary"))  # shared caches keep the answers apart
    if readable:
        assert "etag" in _split(response["Access-Control-Expose-Headers"])


@pytest.mark.parametrize(("allowed", "origin", "readable"), PLAY_CASES)
def test_a_preflight_to_the_play_api_allows_the_seat_headers_to_configured_origins(
        client, allowed, origin, readable):
    with override_settings(CORS_ALLOWED_ORIGINS=allowed):
        response = client.options("/api/play/rooms/K7XQM4TW/actions", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
    assert response.status_code in (200, 204)
    assert response.get("Access-Control-Allow-Origin") == (origin if readable else None)
    assert not response.has_header("Access-Control-Allow-Credentials")
    if readable:
        assert {"authorization", "content-type", "if-none-match", "last-event-id"} <= _split(
            response["Access-Control-Allow-Headers"])
        assert {"get", "post"} <= _split(response["Access-Control-Allow-Methods"])


def test_only_the_api_answers_other_origins_not_the_pages(client):
    answers = {}
    with override_settings(CORS_ALLOWED_ORIGINS=[GAME]):
        for path in ("/admin/login/", "/play/", "/api/nothing-here", "/api/keys", "/api/play/rooms"):
            answers[path] = client.get(path, headers={"Origin": GAME}).get("Access-Control-Allow-Origin")
    assert answers == {"/admin/login/": None, "/play/": None, "/api/nothing-here": None,
                       "/api/keys": "*", "/api/play/rooms": GAME}


@pytest.mark.parametrize(("raw", "origins"), [
    ("", []),
    ("https://game.example", ["https://game.example"]),
    (" http://127.0.0.1:8123 , https://game.example ", ["http://127.0.0.1:8123", "https://game.example"]),
    ("http://[::1]:8123", ["http://[::1]:8123"]),
])
def test_allowed_origins_are_read_from_the_environment(monkeypatch, raw, origins):
    monkeypatch.setenv("KARTOTHEK_CORS_ALLOWED_ORIGINS", raw)
    assert env_origins("KARTOTHEK_CORS_ALLOWED_ORIGINS") == origins


@pytest.mark.parametrize("raw", [
    "https://game.example/",  # a browser's Origin never ends in a slash: this would match nothing
    "https://game.example/play",
    "game.example",
    "ftp://game.example",
    "*",
    "https://",
    "http://127.0.0.1:99999",
    "http://user@game.example",
    "https://game.example?x=1",
])
def test_an_origin_that_is_not_an_origin_is_refused(monkeypatch, raw):
    monkeypatch.setenv("KARTOTHEK_CORS_ALLOWED_ORIGINS", f"https://ok.example,{raw}")
    with pytest.raises(ImproperlyConfigured, match="is not a web origin"):
        env_origins("KARTOTHEK_CORS_ALLOWED_ORIGINS")


def test_a_server_with_a_wrong_origin_does_not_start_and_says_why():
    result = start({"DEBUG": "1", "KARTOTHEK_CORS_ALLOWED_ORIGINS": "https://game.example/"})
    assert result.returncode != 0
    assert "KARTOTHEK_CORS_ALLOWED_ORIGINS: 'https://game.example/' is not a web origin" in result.stderr
