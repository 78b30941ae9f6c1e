"""Two app servers, one PostgreSQL: nothing one server needs lives only in the other's memory.

Two gunicorn servers (each `make serve`'s command) on loopback share the test database. A
curator logs in on one and goes on on the other with the same cookie (sessions are in the
database), publishes on one while the other serves the pack API (which sees the new release
at once), and failed logins counted on one lock the account on the other (django-axes keeps
its counts in the database). Skipped on SQLite, which two servers do not share.
"""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection

from cards.catalogue import import_catalogue
from exports.changes import pending
from exports.models import Release
from tests.conftest import MINI
from tests.test_production import clean_environment, free_port, start_gunicorn, stop, wait_until_up

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


class Browser:
    """Just enough of a browser for the admin: cookies, CSRF token, no redirects followed."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def request(self, port: int, method: str, path: str,
                form: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            from urllib.parse import urlencode

            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection_ = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            connection_.request(method, path, body=body, headers=headers)
            response = connection_.getresponse()
            data = response.read()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    for key, morsel in SimpleCookie(value).items():
                        self.cookies[key] = morsel.value
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            connection_.close()

    def post_form(self, port: int, path: str, form: dict[str, str],
                  page_path: str | None = None) -> tuple[int, dict[str, str], bytes]:
        """POST a form with the CSRF token of the page it is on (``path`` unless told)."""
        status, _, page = self.request(port, "GET", page_path or path)
        assert status == 200, (page_path or path, status)
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token is not None, page[:500]
        return self.request(port, "POST", path, {**form, "csrfmiddlewaretoken": token.group(1).decode()})


def staff_user(name: str, password: str) -> User:
    """A staff user whose password the servers can check: they run the production settings,
    whose hashers do not include the tests' fast MD5 one (a PBKDF2 hash with few rounds)."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    user = User.objects.create_user(name, "", None, is_staff=True)
    user.password = PBKDF2PasswordHasher().encode(password, "two-servers-salt", iterations=1000)
    user.save(update_fields=["password"])
    return user


def login(browser: Browser, port: int, username: str, password: str) -> int:
    status, _, _ = browser.post_form(port, "/admin/login/?next=/admin/",
                                     {"username": username, "password": password})
    return status


@pytest.fixture
def two_servers(tmp_path, settings):  # type: ignore[no-untyped-def]
    if connection.vendor != "postgresql":
        pytest.skip("two app servers need a shared database server (PostgreSQL)")
    # The servers' files (release files, pictures) are under their KARTOTHEK_VAR_DIR; this
    # process reads them there too, as a third server would.
    settings.MEDIA_ROOT = tmp_path / "media"
    settings_dict = connection.settings_dict
    url = (f"postgres://{settings_dict['USER']}:{settings_dict['PASSWORD']}@{settings_dict['HOST']}:"
           f"{settings_dict['PORT']}/{settings_dict['NAME']}")
    base = clean_environment(
        SECRET_KEY="two-servers-share-this-secret-key-" + "x" * 30, DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1", DATABASE_URL=url, KARTOTHEK_VAR_DIR=str(tmp_path),
        WEB_CONCURRENCY="1", HOST="127.0.0.1",
    )
    collected = subprocess.run([sys.executable, "manage.py", "collectstatic", "--no-input"],
                               cwd=ROOT, env=base, capture_output=True, text=True, timeout=300)
    assert collected.returncode == 0, collected.stderr
    servers, ports = [], []
    try:
        for name in ("a", "b"):
            port = free_port()
            log = tmp_path / f"gunicorn-{name}.log"
            server = start_gunicorn({**base, "PORT": str(port)}, log)
            servers.append(server)
            wait_until_up(server, port, log)
            ports.append(port)
        yield ports
    finally:
        for server in servers:
            stop(server)


def test_a_release_published_on_one_server_is_served_by_the_other_at_once(two_servers):
    a, b = two_servers
    assert not import_catalogue(MINI).errors
    user = staff_user("carla", "karten-pw-1")
    user.groups.add(Group.objects.get(name="Curators"))
    reader = Browser()
    status, _, _ = reader.request(b, "GET", "/api/packs/sauschwer/en/latest")
    assert status == 404  # nothing published yet

    curator = Browser()
    assert login(curator, a, "carla", "karten-pw-1") == 302
    # The session is in the database: the other server knows the same cookie.
    status, _, page = curator.request(b, "GET", "/admin/")
    assert status == 200 and b"carla" in page.lower()

    for version in (1, 2):
        # what the review page shows and its confirmation sends back
        reviewed = {"reviewed_version": str(version - 1), "confirm": "on",
                    "reviewed_sha256": pending("sauschwer", "en").draft["sha256"]}
        status, headers, _ = curator.post_form(a, "/admin/exports/publish/sauschwer/en/", reviewed)
        assert status == 302, status
        status, headers, _ = reader.request(b, "GET", "/api/packs/sauschwer/en/latest")
        assert status == 302
        assert headers["location"].endswith(f"/api/packs/sauschwer/en/{version}.json")
        status, _, served = reader.request(b, "GET", f"/api/packs/sauschwer/en/{version}.json")
        assert status == 200
        release = Release.objects.get(game="sauschwer", language="en", version=version)
        assert served == bytes(release.data)
        assert json.loads(served)["content_version"] == version
        if version == 1:
            # A change between the releases (so that publishing again makes version 2).
            from cards.models import SauschwerObject

            egg = SauschwerObject.objects.order_by("pk").first()
            assert egg is not None
            egg.source = egg.source + " (checked)"
            egg.save()
    # Logged out on one server is logged out on both.
    status, _, _ = curator.post_form(b, "/admin/logout/", {}, page_path="/admin/")
    assert status in (200, 302)
    status, headers, _ = curator.request(a, "GET", "/admin/")
    assert status == 302 and "/admin/login/" in headers["location"]


def test_failed_logins_counted_on_one_server_lock_the_account_on_the_other(two_servers):
    a, b = two_servers
    staff_user("carla", "karten-pw-1")
    for port in (a, b, a, b):
        assert login(Browser(), port, "carla", "wrong") == 200
    assert login(Browser(), b, "carla", "wrong") == 429  # the fifth, on either server
    assert login(Browser(), a, "carla", "karten-pw-1") == 429
    assert login(Browser(), b, "carla", "karten-pw-1") == 429
