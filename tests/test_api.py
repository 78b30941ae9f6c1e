"""The pack API: index, releases with ETag/304/gzip, latest, drafts, JSON errors, OpenAPI."""

import gzip
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from cards.models import SauschwerObject
from exports.models import Release
from exports.packs import publish, validate
from tests.publishing import confirm_publish, review_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def released(mini_catalogue):
    publish("sauschwer", "en")
    SauschwerObject.objects.create(key="ein-stein", name="Ein Stein", weight_g=500, source="x")
    return publish("sauschwer", "en").release  # version 2


def test_the_index_lists_games_languages_and_releases(released, client):
    response = client.get("/api/packs/")
    assert response.status_code == 200
    data = response.json()
    games = {g["game"]: g for g in data["games"]}
    assert set(games) == {"symbols", "sign", "slogan", "sauschwer"}
    english = next(lang for lang in games["sauschwer"]["languages"] if lang["language"] == "en")
    assert [r["version"] for r in english["releases"]] == [2, 1]
    assert english["releases"][0]["sha256"] == released.sha256
    assert english["releases"][0]["url"] == "/api/packs/sauschwer/en/2.json"
    assert english["latest"] == "/api/packs/sauschwer/en/latest"
    assert data["schema"] == "/api/schema/content-pack.json"


def test_a_release_is_served_immutable_with_its_sha256_as_etag(released, client):
    response = client.get("/api/packs/sauschwer/en/2.json")
    assert response.status_code == 200
    assert response["ETag"] == f'"{released.sha256}"'
    assert response["Cache-Control"] == "public, max-age=31536000, immutable"
    assert response["Content-Type"] == "application/json"
    assert response.content == bytes(released.data)
    pack = json.loads(response.content)
    validate(pack)
    assert pack["content_version"] == 2


def test_if_none_match_gets_304_without_reading_the_pack(released, client):
    etag = f'"{released.sha256}"'
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/packs/sauschwer/en/2.json", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag
    assert len(queries) == 1  # the sha256 only: the pack's bytes are not read
    assert '"data"' not in queries[0]["sql"] and "data_gzip" not in queries[0]["sql"]
    with CaptureQueriesContext(connection) as queries:  # and once known, no query at all
        assert client.get("/api/packs/sauschwer/en/2.json",
                          HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert len(queries) == 0


@pytest.mark.parametrize(("header", "gzipped"), [
    ("gzip", True), ("br, gzip;q=0.5", True), ("*;q=0, gzip", True), ("gzip;q=0", False),
    ("*", True), ("identity", False), ("", False),
])
def test_accept_encoding_is_read_with_its_qualities(released, client, header, gzipped):
    response = client.get("/api/packs/sauschwer/en/2.json", HTTP_ACCEPT_ENCODING=header)
    assert (response.get("Content-Encoding") == "gzip") is gzipped


def test_a_stale_etag_gets_the_pack(released, client):
    response = client.get("/api/packs/sauschwer/en/2.json", HTTP_IF_NONE_MATCH='"0000"')
    assert response.status_code == 200


def test_gzip_is_served_to_clients_that_accept_it(released, client):
    response = client.get("/api/packs/sauschwer/en/2.json", HTTP_ACCEPT_ENCODING="gzip, br")
    assert response["Content-Encoding"] == "gzip"
    assert response["Vary"] == "Accept-Encoding"
    assert gzip.decompress(response.content) == bytes(released.data)
    assert len(response.content) < released.size / 2
    plain = client.get("/api/packs/sauschwer/en/2.json", HTTP_ACCEPT_ENCODING="identity")
    assert "Content-Encoding" not in plain


def test_latest_redirects_to_the_newest_release_and_is_cached_briefly(released, client):
    response = client.get("/api/packs/sauschwer/en/latest")
    assert response.status_code == 302
    assert response["Location"] == "/api/packs/sauschwer/en/2.json"
    assert response["Cache-Control"] == "public, max-age=60"


def test_the_index_answers_the_same_with_and_without_a_trailing_slash(released, client):
    without, with_slash = client.get("/api/packs"), client.get("/api/packs/")
    assert without.status_code == with_slash.status_code == 200
    assert without.content == with_slash.content
    assert b'"url": "/api/packs/sauschwer/en/2.json"' in without.content
    assert without.headers == with_slash.headers


def test_latest_without_redirect_names_the_newest_release_in_json(released, client):
    response = client.get("/api/packs/sauschwer/en/latest?redirect=false")
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=60"
    entry = next(lang for game in client.get("/api/packs").json()["games"]
                 for lang in game["languages"] if game["game"] == "sauschwer"
                 and lang["language"] == "en")["releases"][0]
    assert response.json() == {"game": "sauschwer", "language": "en", **entry,
                               "location": "/api/packs/sauschwer/en/2.json"}
    assert entry["version"] == 2 and entry["sha256"] == released.sha256


@pytest.mark.parametrize(("query", "status", "location"), [
    ("since=1&redirect=false", 200, "/api/packs/sauschwer/en/2.json?since=1"),
    ("redirect=False&pictures=embedded", 200, "/api/packs/sauschwer/en/2.json?pictures=embedded"),
    ("since=1", 302, "/api/packs/sauschwer/en/2.json?since=1"),
    ("redirect=true&since=1", 302, "/api/packs/sauschwer/en/2.json?since=1"),
    ("since=2&redirect=false", 304, None),  # up to date: nothing to fetch, in either form
])
def test_latest_keeps_the_query_but_redirect_in_its_location(released, client, query, status,
                                                               location):
    response = client.get(f"/api/packs/sauschwer/en/latest?{query}")
    assert response.status_code == status
    if status == 304:
        assert response.content == b"" and "Location" not in response
    else:
        assert (response.json()["location"] if status == 200 else response["Location"]) == location


@pytest.mark.parametrize("value", ["no", "0", "", "falsch"])
def test_latest_refuses_a_redirect_that_is_neither_true_nor_false(released, client, value):
    response = client.get(f"/api/packs/sauschwer/en/latest?redirect={value}")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert f"redirect={value!r} is neither true nor false" in response.json()["error"]


def test_latest_since_the_newest_release_is_a_304_and_since_an_older_one_the_delta(released, client):
    up_to_date = client.get("/api/packs/sauschwer/en/latest?since=2")
    assert up_to_date.status_code == 304 and up_to_date.content == b""
    assert up_to_date["ETag"] == f'"{released.sha256}"'
    assert up_to_date["Cache-Control"] == "public, max-age=60"
    behind = client.get("/api/packs/sauschwer/en/latest?since=1")
    assert behind.status_code == 302 and behind["Location"] == "/api/packs/sauschwer/en/2.json?since=1"


def test_the_index_has_an_etag_that_changes_with_a_publish(released, client):
    first = client.get("/api/packs/")
    etag = first["ETag"]
    assert etag.startswith('"') and len(etag) == 66
    again = client.get("/api/packs/", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    SauschwerObject.objects.create(key="noch-ein-stein", name="Noch ein Stein", weight_g=700, source="x")
    publish("sauschwer", "en")
    changed = client.get("/api/packs/", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed["ETag"] != etag


def test_a_pack_with_embedded_pictures_for_offline_clients(mini_catalogue, client):
    publish("symbols", "en")
    response = client.get("/api/packs/symbols/en/1.json?pictures=embedded")
    pack = json.loads(response.content)
    validate(pack)
    assert all(s["picture"]["data"] for s in pack["body"]["symbols"])
    etag = response["ETag"]
    assert etag != f'"{Release.objects.get().sha256}"'
    assert client.get("/api/packs/symbols/en/1.json?pictures=embedded",
                      HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_pictures_are_served_by_their_sha256(mini_catalogue, client):
    publish("symbols", "en")
    pack = json.loads(client.get("/api/packs/symbols/en/1.json").content)
    picture = pack["body"]["symbols"][0]["picture"]
    response = client.get(picture["url"])
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    import hashlib
    assert hashlib.sha256(response.content).hexdigest() == picture["sha256"]


@pytest.mark.parametrize(("url", "message"), [
    ("/api/packs/poker/en/1.json", "There is no game 'poker'."),
    ("/api/packs/sauschwer/fr/1.json", "There is no language 'fr'."),
    ("/api/packs/sauschwer/en/9.json", "There is no release 9 of sauschwer (en)."),
    ("/api/packs/sign/en/latest", "No release of sign (en) has been published yet."),
    ("/api/nothing/here", "There is nothing at /api/nothing/here"),
])
def test_unknown_things_are_a_json_404_with_a_message(released, client, url, message):
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert message in response.json()["error"]


def test_drafts_are_not_served_to_anonymous_clients(mini_catalogue, client, admin_client):
    response = client.get("/api/packs/sauschwer/en/draft.json")
    assert response.status_code == 403
    assert "only served to logged-in curators" in response.json()["error"]
    staff = admin_client.get("/api/packs/sauschwer/en/draft.json")
    assert staff.status_code == 200
    assert json.loads(staff.content)["content_version"] == "draft"
    assert staff["Cache-Control"] == "private, no-store"


def test_the_api_is_read_only(released, client):
    for method in (client.post, client.put, client.delete, client.patch):
        response = method("/api/packs/sauschwer/en/2.json")
        assert response.status_code == 405
        assert response["Allow"] == "GET, HEAD"
        assert "read-only" in response.json()["error"]
    assert Release.objects.count() == 2


def test_the_schema_and_the_openapi_description_are_served(client):
    schema = client.get("/api/schema/content-pack.json")
    assert schema.status_code == 200
    assert schema.json()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    openapi = client.get("/api/openapi.json").json()
    assert openapi["openapi"] == "3.1.0"
    assert "/api/packs/{game}/{language}/{version}.json" in openapi["paths"]


def test_a_curator_publishes_from_the_admin_and_unchanged_content_is_no_change(mini_catalogue,
                                                                               client):
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    page = client.get("/admin/exports/publish/").content.decode()
    assert "Review and publish v1" in page
    response = confirm_publish(client, "sign", "en")
    release = Release.objects.get()
    assert (f'Published <a href="/admin/exports/release/{release.pk}/change/">Sign (en) v1</a>'
            in response.content.decode())
    assert release.published_by == user
    # The releases list no longer publishes in one click (its action is gone), and the
    # review page has nothing to offer for unchanged content.
    assert client.post("/admin/exports/release/", {
        "action": "publish_again", "_selected_action": [release.pk]}).status_code == 403
    again = client.get(review_url("sign", "en")).content.decode()
    assert "Nothing changed since" in again and 'id="publish-form"' not in again
    # The same confirmation sent again (a second tab opened before) publishes nothing.
    response = client.post(review_url("sign", "en"), {
        "confirm": "on",
            "publish_untranslated": "on", "reviewed_version": "0", "reviewed_sha256": release.body_sha256})
    assert "Sign (en) v1 was published by carla while you were reviewing" in (
        response.content.decode())
    assert Release.objects.count() == 1


def test_releases_are_read_only_in_the_admin(released, admin_client):
    release = Release.objects.first()
    url = f"/admin/exports/release/{release.pk}/change/"
    page = admin_client.get(url)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert admin_client.post(url, {"version": 99}).status_code == 403
    assert admin_client.post(f"/admin/exports/release/{release.pk}/delete/",
                             {"post": "yes"}).status_code == 403
    assert admin_client.get("/admin/exports/release/add/").status_code == 403
    assert Release.objects.get(pk=release.pk).version == release.version


def test_translators_cannot_publish(mini_catalogue, client):
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(username="tina", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Translators"))
    client.force_login(user)
    assert client.post("/admin/exports/publish/", {"game": "sign", "language": "en"}
                       ).status_code == 403
    assert client.get(review_url("sign", "en")).status_code == 403
    assert client.post(review_url("sign", "en"), {"confirm": "on",
        "publish_untranslated": "on"}).status_code == 403
    assert not Release.objects.exists()
