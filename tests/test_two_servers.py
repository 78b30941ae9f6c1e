"""Two app servers, one PostgreSQL: nothing one server needs lives only in the other's memory.

Two gunicorn servers (each `make serve`'s command) on loopback share the test database. A
curator logs in on one and goes on on the other with the same cookie (sessions are in the
database), publishes on one while the other serves the pack API (which sees the new release
at once), and failed logins counted on one lock the account on the other (django-axes keeps
its counts in the database). A play room is opened on one server and joined on the other;
its two seats play through their own servers, turn by turn, while a curator publishes on the
first and the second keeps serving packs and rooms: every seat sees the same room on both
servers, an ETag from one is a 304 on the other, the room's log holds exactly the actions
the players were told were applied, and room creations and joins spread over both servers
share one rate limit (counted in the database). Skipped on SQLite, which two servers do not
share.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from datetime import timedelta
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection

from cards.catalogue import import_catalogue
from exports.models import Release
from exports.packs import pending
from games.models import ActionLog, RateHit, Room
from tests.conftest import MINI
from tests.play.core_helpers import release_of
from tests.test_production import clean_environment, free_port, start_gunicorn, stop, wait_until_up

ROOT = Path(__file__).resolve().parent.parent

# Room creations and joins a minute per client address (both servers see 127.0.0.1).
PLAY_LIMIT = 4

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


def publish_on(browser: Browser, port: int, game: str, language: str) -> int:
    """Publish as a curator does: confirm the review page when the admin has one (the hidden
    fields say which release and draft it showed), else the plain publish form."""
    review = f"/admin/exports/publish/{game}/{language}/"
    status, _, page = browser.request(port, "GET", review)
    if status != 200:
        return browser.post_form(port, "/admin/exports/publish/", {"game": game, "language": language})[0]
    fields = {k.decode(): v.decode() for k, v in re.findall(rb'name="(reviewed_\w+)" value="([^"]*)"', page)}
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None and fields, page[:500]
    return browser.request(port, "POST", review, {**fields, "confirm": "on", "publish_untranslated": "on",
                                                   "csrfmiddlewaretoken": token.group(1).decode()})[0]


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
        WEB_CONCURRENCY="1", HOST="127.0.0.1", KARTOTHEK_PLAY_RATE_LIMIT=str(PLAY_LIMIT),
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
        reviewed = {"reviewed_version": str(version - 1), "confirm": "on", "publish_untranslated": "on",
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


def api(port: int, method: str, path: str, token: str | None = None, data: object = None,
        etag: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request of a client without cookies (a seat proved by its Bearer token)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if etag:
        headers["If-None-Match"] = etag
    connection_ = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection_.request(method, path, body=None if data is None else json.dumps(data),
                            headers=headers)
        response = connection_.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection_.close()


def test_a_room_is_played_across_both_servers_while_one_publishes(two_servers):
    a, b = two_servers
    assert not import_catalogue(MINI).errors
    release_of("slogan")  # 2 to 6 players, one turn after the other
    curator = Browser()
    user = staff_user("carla", "karten-pw-1")
    user.groups.add(Group.objects.get(name="Curators"))
    assert login(curator, a, "carla", "karten-pw-1") == 302
    assert publish_on(curator, a, "sauschwer", "en") == 302

    # Opened on A, joined on B, started on A: the room is in the database, not in a server.
    status, _, data = api(a, "POST", "/api/play/rooms",
                          data={"game": "slogan", "language": "en", "name": "Ada", "cookie": False})
    assert status == 201, data
    created = json.loads(data)
    code = created["code"]
    status, _, data = api(b, "POST", f"/api/play/rooms/{code}/seats", data={"name": "Bo", "cookie": False})
    assert status == 201, data
    seats = {created["seat"]: (created["token"], a), json.loads(data)["seat"]: (json.loads(data)["token"], b)}
    status, _, data = api(a, "POST", f"/api/play/rooms/{code}/start", created["token"], {})
    assert status == 200, data

    # Meanwhile a reader of server B polls the pack and the room's table view, and a curator
    # publishes sauschwer 2 on server A: B answers every request, never an error.
    stop_reading = threading.Event()
    read_problems: list[str] = []

    answered_at: list[float] = []

    def read_b() -> None:
        while not stop_reading.is_set():
            for path in ("/api/packs/sauschwer/en/latest", f"/api/play/rooms/{code}", "/api/packs/"):
                status, _, body = api(b, "GET", path)
                if status not in (200, 302):
                    read_problems.append(f"{path}: {status} {body[:200]!r}")
                answered_at.append(time.monotonic())

    reader = threading.Thread(target=read_b)
    reader.start()
    from cards.models import SauschwerObject

    egg = SauschwerObject.objects.order_by("pk").first()
    assert egg is not None
    egg.source = egg.source + " (checked)"
    egg.save()
    publish_answer: list[int] = []
    published_between: list[float] = []

    def publish_on_a() -> None:
        published_between.append(time.monotonic())
        publish_answer.append(publish_on(curator, a, "sauschwer", "en"))
        published_between.append(time.monotonic())

    publisher = threading.Thread(target=publish_on_a)

    rng = random.Random(14)
    told: list[tuple[str, str, int]] = []  # (seat, action id, version) as the answers said
    servers_used: list[int] = []
    for turn in range(60):
        views = {}
        for seat, (token, port) in seats.items():
            status, headers, data = api(port, "GET", f"/api/play/rooms/{code}", token)
            assert status == 200, data
            views[seat] = (json.loads(data), headers["etag"])
            # The other server shows this seat the very same room, and knows its ETag.
            other = b if port == a else a
            status, _, again = api(other, "GET", f"/api/play/rooms/{code}", token)
            assert status == 200 and json.loads(again) == views[seat][0]
            assert api(other, "GET", f"/api/play/rooms/{code}", token, etag=headers["etag"])[0] == 304
        versions = {body["version"] for body, _ in views.values()}
        assert len(versions) == 1, versions
        if any(body["status"] == "finished" for body, _ in views.values()):
            break
        movers = [seat for seat, (body, _) in views.items() if body["legal_actions"]]
        assert movers, views
        seat = movers[0]
        body = views[seat][0]
        legal = [x for x in body["legal_actions"] if x.get("type") not in ("challenge", "stop")]
        action = rng.choice(legal or body["legal_actions"])
        token, port = seats[seat]
        action_id = f"{seat}-{turn}"
        status, _, data = api(port, "POST", f"/api/play/rooms/{code}/actions", token,
                              {"id": action_id, "version": body["version"], "action": action})
        assert status == 200, data
        answer = json.loads(data)
        assert answer["version"] > body["version"]
        told.append((seat, action_id, answer["version"]))
        servers_used.append(port)
        if turn == 3:
            publisher.start()  # the game goes on meanwhile
        if not reader.is_alive() or (published_between[1:] and turn >= 12):
            break

    if not published_between:  # the game ended early: publish with only the reader going on
        publisher.start()
    publisher.join(timeout=120)
    assert publish_answer == [302]
    start, end = published_between
    assert any(start < t < end for t in answered_at)  # B answered while A published
    # Right after the publish on A, B serves the new release.
    status, headers, _ = api(b, "GET", "/api/packs/sauschwer/en/latest")
    assert status == 302 and headers["location"].endswith("/api/packs/sauschwer/en/2.json")
    stop_reading.set()
    reader.join(timeout=60)
    assert not read_problems, read_problems[:5]

    # Moves went through both servers, one after the other, and each applied action the
    # players were told of is in the room's log, in order, and nothing else is.
    assert len(told) >= 6 and {a, b} <= set(servers_used)
    switches = sum(1 for x, y in itertools.pairwise(servers_used) if x != y)
    assert switches >= len(servers_used) // 3, servers_used
    room = Room.objects.get(code=code)
    logged = list(ActionLog.objects.filter(room=room, by="player").order_by("version").values_list(
        "seat", "action_id", "version"))
    assert logged == told
    assert room.version >= told[-1][2]
    assert room.release.version == 1  # publishing changed no running game

    # Creations and joins on either server count against one limit (counted per minute: a
    # fresh count, not too near the minute's end).
    RateHit.objects.all().delete()
    if time.time() % 60 > 50:
        time.sleep(61 - time.time() % 60)
    for port in [a, b] * (PLAY_LIMIT // 2):
        status, _, _ = api(port, "POST", "/api/play/rooms",
                           data={"game": "slogan", "language": "en", "name": "Cy", "cookie": False})
        assert status == 201
    for port in (a, b):
        status, headers, data = api(port, "POST", f"/api/play/rooms/{code}/seats", data={"name": "Di"})
        assert status == 429 and headers["content-type"] == "application/json", data


def _sauschwer_room(port: int) -> dict:
    """A Sauschwer room opened through server ``port`` by Ada (no cookie): its answer."""
    release_of("sauschwer")
    status, _, data = api(port, "POST", "/api/play/rooms",
                          data={"game": "sauschwer", "language": "en", "name": "Ada", "cookie": False})
    assert status == 201, data
    return json.loads(data)


def test_an_action_on_one_server_reaches_an_event_stream_of_the_other_at_once(two_servers):
    """LISTEN/NOTIFY: a move sent to server A is pushed to a player whose stream is open on
    server B (PostgreSQL has no version check: without NOTIFY nothing would arrive). The
    issue's 150 ms from the action to the other seat's event is bench/play_speed.py's target
    (speed is checked by benchmarks); under a load average of 12 on 2 cores the moves here took
    99 to ~800 ms (median 680 ms), so the test asserts only a margin: every move within 3 s."""
    from tests.play.sse_helpers import Stream

    a, b = two_servers
    created = _sauschwer_room(a)
    code = created["code"]
    status, _, data = api(a, "POST", f"/api/play/rooms/{code}/seats", data={"name": "Bo", "cookie": False})
    guest = json.loads(data)
    tokens = {created["seat"]: created["token"], guest["seat"]: guest["token"]}
    assert api(a, "POST", f"/api/play/rooms/{code}/start", created["token"], {})[0] == 200
    watchers = {seat: Stream(f"http://127.0.0.1:{b}/api/play/rooms/{code}/events",
                             {"Authorization": f"Bearer {token}"}) for seat, token in tokens.items()}
    delays: list[float] = []
    try:
        bodies = {seat: watcher.next().body for seat, watcher in watchers.items()}
        for _ in range(8):
            active, place = next(((seat, x) for seat, body in bodies.items()
                                  for x in body["legal_actions"] if x["type"] != "stop"), None) or \
                next((seat, x) for seat, body in bodies.items() for x in body["legal_actions"])
            other = next(seat for seat in tokens if seat != active)
            sent = time.perf_counter()
            status, _, data = api(a, "POST", f"/api/play/rooms/{code}/actions", tokens[active],
                                  {"id": f"m{len(delays)}", "version": bodies[active]["version"],
                                   "action": place})
            assert status == 200, data
            version = json.loads(data)["version"]
            event = watchers[other].next(timeout=5)
            delays.append(time.perf_counter() - sent)
            assert int(event.id) == version and event.body["you"] == other
            bodies[other] = event.body
            bodies[active] = watchers[active].next(timeout=5).body
    finally:
        for watcher in watchers.values():
            watcher.close()
    assert max(delays) < 3.0, sorted(delays)


def test_a_ticket_made_on_one_server_opens_a_stream_on_the_other_which_ends_when_the_room_goes(
        two_servers):
    """Stream tickets live in the database (any server redeems them, once), and a room deleted
    by a third process (expire_rooms, from cron) ends the streams on both servers at once
    (post_delete notifies through NOTIFY)."""
    from django.core.management import call_command
    from django.utils import timezone

    from tests.play.sse_helpers import Stream

    a, b = two_servers
    created = _sauschwer_room(a)
    code = created["code"]
    status, _, data = api(a, "POST", f"/api/play/rooms/{code}/stream-tickets", created["token"], {})
    assert status == 201, data
    events_url = json.loads(data)["events_url"]
    watchers = [Stream(f"http://127.0.0.1:{b}{events_url}"),
                Stream(f"http://127.0.0.1:{a}/api/play/rooms/{code}/events",
                       {"Authorization": f"Bearer {created['token']}"})]
    try:
        assert [w.status for w in watchers] == [200, 200]
        assert all(w.next().body["you"] == created["seat"] for w in watchers)
        again = Stream(f"http://127.0.0.1:{a}{events_url}")  # used on B: refused on A too
        assert again.status == 403 and "ticket" in again.response.read().decode()
        again.close()
        Room.objects.filter(code=code).update(last_activity=timezone.now() - timedelta(days=3))
        started = time.monotonic()
        call_command("expire_rooms", stdout=open(os.devnull, "w"))  # noqa: SIM115
        for watcher in watchers:
            closed = watcher.next(timeout=5)
            assert closed.kind == "closed" and json.loads(closed.data)["status"] == 404
        assert time.monotonic() - started < 5
    finally:
        for watcher in watchers:
            watcher.close()
