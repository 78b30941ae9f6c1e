"""The pack API is read-only: every route answers every unsafe method with the documented
JSON 405 and an ``Allow`` header — never Django's HTML CSRF page — and writes nothing.

The routes come from the URL resolver (namespace ``api``), so a new route is checked without
editing this test; the client enforces CSRF the way a browser-less client meets it.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from exports.models import Release
from exports.packs import build_pack, publish

pytestmark = pytest.mark.django_db

UNSAFE_METHODS = ("post", "put", "patch", "delete")

# What each URL argument of the API is filled with: a real game, language, release, picture.
ARGUMENTS = {"game": "symbols", "language": "en", "version": "1", "since": "0", "path": "no/such/thing"}


def api_patterns() -> list[str]:
    """Every URL pattern mounted under the ``api`` namespace, as its route text."""
    found: list[str] = []

    def walk(resolver: URLResolver, prefix: str, inside: bool) -> None:
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                walk(entry, prefix + str(entry.pattern), inside or entry.namespace == "api")
            elif isinstance(entry, URLPattern) and inside:
                found.append(prefix + str(entry.pattern))

    walk(get_resolver(), "", False)
    return found


def concrete_url(route: str, picture: str) -> str:
    """A route with each argument replaced by a real value (regex or path converter)."""
    values = {**ARGUMENTS, "digest": picture}
    url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m.group(1)], route)
    url = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: values[m.group(1)], url)
    url = url.replace("^", "").replace("$", "").replace("\\.", ".")
    return "/" + url


ROUTES = api_patterns()


def test_the_api_routes_are_found():
    # The resolver walk itself must see the API (else the tests below would pass vacuously).
    assert any("draft.json" in route for route in ROUTES)
    assert any("pictures" in route for route in ROUTES)
    assert len(ROUTES) >= 8


@pytest.fixture
def world(mini_catalogue):
    publish("symbols", "en")
    picture = next(s["picture"]["sha256"] for s in build_pack("symbols", "en")["body"]["symbols"]
                   if s.get("picture"))
    curator = User.objects.create_user(username="carla", password="pw", is_staff=True)
    curator.groups.add(Group.objects.get(name="Curators"))
    return picture, curator


@pytest.mark.parametrize("route", ROUTES)
def test_every_unsafe_method_on_every_api_route_is_a_json_405(world, route):
    picture, curator = world
    url = concrete_url(route, picture)
    assert client_for(None).get(url).status_code in (200, 302, 403, 404), url
    releases = list(Release.objects.values_list("sha256", flat=True))
    for user in (None, curator):
        client = client_for(user)
        for method in UNSAFE_METHODS:
            response = getattr(client, method)(url, {"x": "1"} if method == "post" else "x=1",
                                               **({} if method == "post" else
                                                  {"content_type": "application/x-www-form-urlencoded"}))
            assert response.status_code == 405, (method, url, response.content[:200])
            assert response["Content-Type"] == "application/json", (method, url)
            assert response["Allow"] == "GET, HEAD", (method, url)
            body = response.json()
            assert body["status"] == 405 and "read-only" in body["error"], (method, url)
    assert list(Release.objects.values_list("sha256", flat=True)) == releases


def client_for(user: User | None) -> Client:
    # A real client meets the CSRF check (the test client skips it unless told).
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client
