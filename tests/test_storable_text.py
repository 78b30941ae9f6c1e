"""Issue 38, finding 5: text the database cannot store (a NUL byte, a lone surrogate) is a 400 at
the door, in the answer type the path expects, and a failed room lookup under /play/; numbers
read from requests are bounded. On today's main these were 500s on PostgreSQL (a NUL in a room
code, the editor's search, a dismissal's reason; SQLite stores a NUL, or fails on the search
too), and ``?since=`` with 5,000 digits was a 500 on both databases.

kartothek/storable_text.py; tests/permission_matrix/test_hostile_requests.py fuzzes every URL."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cards.models import CheckDismissal
from games.models import Room
from tests.play.core_helpers import all_releases, open_room

pytestmark = pytest.mark.django_db

REFUSED = "cannot be stored as text"


@pytest.fixture
def releases(db):
    all_releases()


@pytest.fixture(autouse=True)
def _one_minute(monkeypatch):
    """Every request of a test falls in one window of the rate limits."""
    from games import ratelimit

    monkeypatch.setattr(ratelimit, "clock", lambda: 1_800_000_030.0)


def _html_400(response) -> str:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    text = response.content.decode()
    assert REFUSED in text
    return text


def _json_400(response) -> dict:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert REFUSED in body["error"] and body["status"] == 400
    return body


@pytest.mark.parametrize("path", ["/play/A%00B/", "/play/A%00B/table", "/play/A%00B/join"])
def test_a_nul_in_a_play_page_code_is_an_html_400(releases, path):
    _html_400(Client(raise_request_exception=False).get(path))


@pytest.mark.parametrize("path", ["/api/play/rooms/A%00B", "/api/play/rooms/A%00B/replay",
                                  "/api/packs/sauschwer/en%00/latest"])
def test_a_nul_in_an_api_path_is_a_json_400(releases, path):
    _json_400(Client(raise_request_exception=False).get(path))


def test_a_nul_in_a_query_a_header_or_a_json_body_is_a_json_400(releases):
    client = Client(raise_request_exception=False)
    host = open_room(Client(), "slogan")
    _json_400(client.get(f"/api/play/rooms/{host.code}", {"as": "ta\x00ble"}))
    _json_400(client.get(f"/api/play/rooms/{host.code}", HTTP_AUTHORIZATION="Bearer x\x00y"))
    for name in ('"Ha\\u0000nna"', '"\\ud800"', '"x\\udc00"'):  # a NUL, lone surrogates
        body = f'{{"game": "slogan", "language": "en", "name": {name}}}'
        _json_400(client.post("/api/play/rooms", body, content_type="application/json"))
    assert Room.objects.count() == 1


def test_escaped_backslashes_and_surrogate_pairs_are_ordinary_text(releases):
    client = Client(raise_request_exception=False)
    for name in ('"a\\\\u0000"', '"\\ud83d\\ude00"'):  # the text \u0000, and an emoji
        body = f'{{"game": "slogan", "language": "en", "name": {name}}}'
        response = client.post("/api/play/rooms", body, content_type="application/json")
        assert response.status_code == 201, response.content[:300]


def test_the_editor_search_with_a_nul_is_an_html_400(admin_client):
    admin_client.raise_request_exception = False
    _html_400(admin_client.get("/admin/cards/translate/sauschwer/en/", {"q": "\x00"}))
    _html_400(admin_client.get("/admin/cards/translate/sauschwer/en/?q=%00"))


@pytest.mark.parametrize("multipart", [True, False])
def test_a_dismissal_reason_with_a_nul_is_refused_and_nothing_stored(admin_client, multipart):
    admin_client.raise_request_exception = False
    data = {"unit": "sauschwerobject-1-name", "check": "unchanged", "reason": "Stays\x00."}
    url = "/admin/cards/dismiss/sauschwer/en/"
    if multipart:
        response = admin_client.post(url, data)
    else:
        body = "unit=sauschwerobject-1-name&check=unchanged&reason=Stays%00."
        response = admin_client.post(url, body, content_type="application/x-www-form-urlencoded")
    _html_400(response)
    assert not CheckDismissal.objects.exists()


def test_an_uploaded_file_with_nul_bytes_is_the_import_s_to_judge(admin_client):
    admin_client.raise_request_exception = False
    upload = SimpleUploadedFile("cards.csv", b"key,name\r\nx\x00,y\r\n", content_type="text/csv")
    response = admin_client.post("/admin/cards/conceptcard/import/",
                                 {"format": "0", "import_file": upload})
    assert response.status_code < 500 and REFUSED not in response.content.decode()


@pytest.fixture
def lookups(settings):
    from django.core.cache import cache

    cache.clear()
    settings.KARTOTHEK_PLAY_LOOKUP_LIMIT = 3
    yield
    cache.clear()


def test_nul_codes_count_as_failed_room_lookups(releases, lookups):
    """On main on PostgreSQL each was a 500, counted nowhere: unlimited guessing of a kind."""
    host = open_room(Client(REMOTE_ADDR="10.7.7.7"), "slogan")
    guesser = Client(raise_request_exception=False)
    for path in ("/api/play/rooms/A%00A", "/play/B%00B/", "/api/play/rooms/C%00C/seats"):
        assert guesser.get(path).status_code == 400
    assert guesser.get("/api/play/rooms/D%00D").status_code == 429
    assert guesser.get(f"/api/play/rooms/{host.code}").status_code == 429
    assert Client(REMOTE_ADDR="10.1.2.3").get(f"/api/play/rooms/{host.code}").status_code == 200


@pytest.mark.parametrize("since", ["9" * 5000, "9" * 4000, "9" * 10, "²", "-1"])
def test_since_with_too_many_digits_is_a_json_400(releases, since):
    response = Client(raise_request_exception=False).get("/api/packs/sauschwer/en/1.json",
                                                         {"since": since})
    assert response.status_code == 400, response.content[:300]
    assert "not a release number" in response.json()["error"]


@pytest.mark.django_db(transaction=True)
def test_an_event_stream_with_a_nul_in_its_code_is_a_json_400_through_asgi(releases):
    from tests.test_asgi_paths import call

    status, headers, body = call("GET", "/api/play/rooms/A\x00B/events")
    assert status == 400, body[:300]
    assert headers["content-type"].startswith("application/json")
    assert REFUSED in json.loads(body)["error"]
    status, headers, body = call("GET", "/play/A\x00B/table")  # the play pool's way
    assert status == 400 and headers["content-type"].startswith("text/html")
    status, _headers, body = call("GET", "/api/play/rooms/AAAAAAAA/events", query=b"ticket=%00")
    assert status == 400, body[:300]


@pytest.mark.parametrize("number", ["9" * 4000, "9" * 5000, str(2**70), str(2**63), "0"])
def test_a_release_number_no_column_holds_is_a_json_404(releases, number):
    client = Client(raise_request_exception=False)
    for path in (f"/api/packs/sauschwer/en/{number}.json", f"/api/packs/sauschwer/en/{number}.json.sig",
                 f"/api/packs/sauschwer/en/{number}..1.delta.json",
                 f"/api/packs/sauschwer/en/1..{number}.delta.json"):
        response = client.get(path)
        assert response.status_code in (303, 400, 404), (path[:80], response.content[:300])
        assert response["Content-Type"].startswith("application/json")
