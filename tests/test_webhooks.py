"""Webhooks on publish: a real receiver on loopback checks every message with the
`standardwebhooks` package (an implementation independent of exports/webhooks.py), the real
worker (`db_worker --batch`) delivers and retries, and the database records every attempt."""

from __future__ import annotations

import datetime as dt
import json
import ssl
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from standardwebhooks import Webhook

from cards.models import SauschwerObject
from exports import webhooks
from exports.models import Release, WebhookDelivery, WebhookEndpoint
from exports.packs import publish

# The tests that publish run the real worker on committed rows: transaction=True. The tests
# of the sender alone need no database.
DB = pytest.mark.django_db(transaction=True)


class Receiver:
    """An HTTP server on a loopback port answering each POST with the next planned answer."""

    def __init__(self, statuses: list[int], *, secret: str = "", redirect: str = "",
                 body: bytes = b"ok", delay: float = 0.0, tls: ssl.SSLContext | None = None,
                 drip: float = 0.0) -> None:
        self.statuses = statuses
        self.secret = secret
        self.seen: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                headers = dict(self.headers)
                verified: Any = None
                if receiver.secret:
                    verified = Webhook(receiver.secret).verify(raw, headers)  # raises if forged
                receiver.seen.append({"headers": headers, "body": raw, "verified": verified,
                                      "path": self.path})
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                time.sleep(delay)  # a receiver that keeps the sender waiting for its answer
                self.send_response(status)
                if redirect:
                    self.send_header("Location", redirect)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not drip:
                    self.wfile.write(body)
                for byte in body if drip else b"":  # 200 OK at once, then a byte at a time
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:  # the sender hung up at its deadline
                        return
                    time.sleep(drip)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_port}/hooks/kartothek?team=7"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receivers() -> Iterator[list[Receiver]]:
    made: list[Receiver] = []
    yield made
    for receiver in made:
        receiver.close()


@pytest.fixture
def loopback_allowed(settings):
    settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE = True
    settings.KARTOTHEK_PUBLIC_URL = "https://cards.example.org"


def _endpoint(url: str, **fields: Any) -> WebhookEndpoint:
    return WebhookEndpoint.objects.create(name="Partner app", url=url,
                                          secret=webhooks.new_secret(), **fields)


def _publish_in_the_admin(client: Client, game: str, language: str) -> Any:
    """Publish as a curator does in the admin: the publish page's button, or, where the admin
    reviews first (the publish branch's review page), that page confirmed."""
    try:
        from tests.publishing import confirm_publish  # type: ignore[import-not-found]
    except ImportError:
        return client.post("/admin/exports/publish/", {"game": game, "language": language})
    return confirm_publish(client, game, language, follow=False)


def _run_worker() -> None:
    call_command("db_worker", "--batch", "--interval", "0", "--no-startup-delay")


def _make_due(delivery: WebhookDelivery) -> None:
    """The scheduled retry's time has come (instead of waiting for it)."""
    DBTaskResult.objects.filter(status="READY", args_kwargs__args=[delivery.pk]).update(
        run_after=timezone.now())


def _attempts() -> list[tuple[int, str, int | None]]:
    return list(WebhookDelivery.objects.order_by("attempt").values_list(
        "attempt", "status", "http_status"))


@DB
def test_a_receiver_that_fails_twice_gets_the_signed_release_on_the_third_attempt(
        mini_catalogue, loopback_allowed, receivers):
    publish("sauschwer", "de")  # release 1, before anyone listened
    receiver = Receiver([500, 500, 200])
    receivers.append(receiver)
    endpoint = _endpoint(receiver.url, games=["sauschwer"], languages=["de"])
    receiver.secret = endpoint.secret
    _endpoint(receiver.url, games=["sign"])  # another game: hears nothing
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    egg.weight_g += 1
    egg.save()
    for key in ("ein-stein", "ein-ziegel"):
        SauschwerObject.objects.create(key=key, name=key.title(), weight_g=900, source="test")
    call_command("publish_pack", "sauschwer", "--lang", "de", stdout=None)  # release 2
    release = Release.objects.get(game="sauschwer", language="de", version=2)
    assert _attempts() == [(1, "pending", None)]  # queued, not sent in the publish

    _run_worker()
    assert _attempts() == [(1, "failed", 500), (2, "pending", None)]
    first, second = WebhookDelivery.objects.order_by("attempt")
    assert first.next_attempt_at == second.scheduled_for
    assert first.next_attempt_at - first.finished_at == timedelta(seconds=30)
    task = DBTaskResult.objects.get(status="READY", task_path__endswith=".deliver_webhook")
    assert task.run_after == second.scheduled_for  # the retry waits in the queue, not a worker
    _run_worker()  # not due yet: nothing is sent
    assert len(receiver.seen) == 1

    _make_due(second)
    _run_worker()
    assert _attempts() == [(1, "failed", 500), (2, "failed", 500), (3, "pending", None)]
    second.refresh_from_db()
    third = WebhookDelivery.objects.get(attempt=3)
    assert third.scheduled_for - second.finished_at == timedelta(seconds=60)  # doubled

    _make_due(third)
    _run_worker()
    assert _attempts() == [(1, "failed", 500), (2, "failed", 500), (3, "delivered", 200)]
    third.refresh_from_db()
    assert third.next_attempt_at is None and third.response_excerpt == "ok"

    # Three signed requests of one message: same id and body, each verified by the package.
    assert len(receiver.seen) == 3
    assert len({seen["headers"]["webhook-id"] for seen in receiver.seen}) == 1
    assert len({seen["body"] for seen in receiver.seen}) == 1
    assert receiver.seen[0]["path"] == "/hooks/kartothek?team=7"
    message = receiver.seen[2]["verified"]
    base = "https://cards.example.org/api/packs/sauschwer/de"
    assert message == {
        "type": "release.published",
        "timestamp": release.published_at.isoformat(),
        "data": {
            "game": "sauschwer", "language": "de", "version": 2, "previous_version": 1,
            "sha256": release.sha256, "size": release.size,
            "url": f"{base}/2.json", "signature_url": f"{base}/2.json.sig",
            "delta_url": f"{base}/1..2.delta.json",
            "changes": {"added": 2, "removed": 0, "changed": 1},
            "published_at": release.published_at.isoformat(),
        },
    }
    assert receiver.seen[2]["headers"]["Content-Type"] == "application/json"

    # and the package refuses the same message altered, under another secret, or replayed
    from standardwebhooks.webhooks import WebhookVerificationError

    seen, hook = receiver.seen[2], Webhook(endpoint.secret)
    with pytest.raises(WebhookVerificationError):
        hook.verify(seen["body"].replace(b'"version":2', b'"version":9'), seen["headers"])
    with pytest.raises(WebhookVerificationError):
        Webhook(webhooks.new_secret()).verify(seen["body"], seen["headers"])
    old = {**seen["headers"], "webhook-timestamp": str(int(time.time()) - 3600)}
    with pytest.raises(WebhookVerificationError):
        hook.verify(seen["body"], old)


@DB
def test_a_dead_endpoint_neither_blocks_the_publish_nor_the_other_endpoints(
        mini_catalogue, loopback_allowed, receivers, settings):
    good = Receiver([200])
    receivers.append(good)
    closed = Receiver([])
    closed.close()  # a port where nothing listens any more
    _endpoint(closed.url, games=["sauschwer"])
    _endpoint(good.url)
    _endpoint(good.url, active=False)  # switched off: nothing queued
    curator = User.objects.create_user("carla", password="karten-pw-1", is_staff=True)
    curator.groups.add(Group.objects.get(name="Curators"))
    client = Client()
    client.force_login(curator)
    response = _publish_in_the_admin(client, "sauschwer", "en")
    assert response.status_code == 302
    assert Release.objects.filter(game="sauschwer", language="en", version=1).exists()
    # the request only queued them: nothing was sent while the curator waited
    assert sorted(WebhookDelivery.objects.values_list("status", flat=True)) == ["pending"] * 2
    assert closed.seen == good.seen == []

    _run_worker()
    dead = WebhookDelivery.objects.get(url=closed.url, attempt=1)
    assert dead.status == "failed" and dead.http_status is None
    assert "Connection" in dead.error and dead.next_attempt_at is not None
    assert WebhookDelivery.objects.get(url=closed.url, attempt=2).status == "pending"
    assert WebhookDelivery.objects.get(url=good.url).status == "delivered"
    assert len(good.seen) == 1

    # Private addresses no longer allowed: the retry is refused, and a refused address is
    # not tried again.
    settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE = False
    retry = WebhookDelivery.objects.get(url=closed.url, attempt=2)
    _make_due(retry)
    _run_worker()
    retry.refresh_from_db()
    assert retry.status == "failed" and "not a public address" in retry.error
    assert retry.next_attempt_at is None and WebhookDelivery.objects.count() == 3


def test_loopback_private_and_link_local_targets_are_refused_unless_allowed(settings,
                                                                         receivers):
    settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE = False
    for url in ["http://127.0.0.1:9/", "http://10.0.0.5/", "http://192.168.1.1/",
                "http://169.254.169.254/latest/meta-data/", "http://[::1]/",
                "http://[::ffff:127.0.0.1]/", "http://localhost/", "http://api.localhost/",
                "http://0.0.0.0/", "http://100.64.0.1/", "http://[fe80::1]/",
                "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://224.0.0.1/"]:
        with pytest.raises(webhooks.UnsafeTarget):
            webhooks.check_url(url)
    for url in ["ftp://example.org/", "file:///etc/passwd", "http://user:pw@example.org/",
                "gopher://example.org/"]:
        with pytest.raises(webhooks.UnsafeTarget):
            webhooks.check_url(url)
    webhooks.check_url("https://hooks.example.org/kartothek")  # a name: checked when sent

    # Names are resolved when sent: 2130706433 and 127.1 are 127.0.0.1 in disguise.
    receiver = Receiver([200])
    receivers.append(receiver)
    port = receiver.server.server_port
    for url in [receiver.url, f"http://2130706433:{port}/", f"http://127.1:{port}/"]:
        answer = webhooks.post(url, b"{}", {"Content-Type": "application/json"})
        assert not answer.delivered and "not a public address" in answer.error, url
    assert receiver.seen == []  # not one request reached the loopback server

    settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE = True
    assert webhooks.post(receiver.url, b"{}", {}).delivered


def test_redirects_are_not_followed_and_only_an_excerpt_of_the_answer_is_kept(
        loopback_allowed, receivers, monkeypatch):
    elsewhere = Receiver([200])
    receivers.append(elsewhere)
    redirecting = Receiver([307], redirect=elsewhere.url)
    receivers.append(redirecting)
    answer = webhooks.post(redirecting.url, b"{}", {})
    assert (answer.delivered, answer.http_status) == (False, 307)
    assert "not followed" in answer.error and elsewhere.seen == []

    big = Receiver([200], body=b"x" * 5_000_000)
    receivers.append(big)
    answer = webhooks.post(big.url, b"{}", {})
    assert answer.delivered and answer.excerpt == "x" * webhooks.EXCERPT_BYTES

    monkeypatch.setattr(webhooks, "DEADLINE", 0.5)
    slow = Receiver([200], body=b"late", delay=3)
    receivers.append(slow)
    started = time.monotonic()
    answer = webhooks.post(slow.url, b"{}", {})
    assert time.monotonic() - started < 2.5
    assert not answer.delivered and "within 0.5 s" in answer.error


@DB
def test_an_answer_dripped_past_the_deadline_is_a_failed_delivery_and_is_retried(
        loopback_allowed, receivers, monkeypatch, mini_catalogue):
    """200 OK at once, then one byte every 0.2 s of a 40-byte answer: not done by the
    deadline (0.5 s here, 10 s in production), so it failed, whatever the status said."""
    monkeypatch.setattr(webhooks, "DEADLINE", 0.5)
    dripping = Receiver([200], body=b"d" * 40, drip=0.2)
    receivers.append(dripping)
    started = time.monotonic()
    answer = webhooks.post(dripping.url, b"{}", {})
    assert time.monotonic() - started < 2.5
    assert (answer.delivered, answer.http_status) == (False, None)
    assert "No complete answer within 0.5 s" in answer.error

    # through the worker: the attempt is recorded as failed and a retry is scheduled
    endpoint = _endpoint(dripping.url)
    publish("sauschwer", "de")
    _run_worker()
    first = WebhookDelivery.objects.get(endpoint=endpoint, attempt=1)
    assert first.status == "failed" and "within 0.5 s" in first.error
    assert first.next_attempt_at is not None
    assert WebhookDelivery.objects.get(endpoint=endpoint, attempt=2).status == "pending"


@DB
def test_a_curator_sees_the_secret_once_and_can_send_a_delivery_again(
        mini_catalogue, loopback_allowed, receivers, settings):
    receiver = Receiver([500, 200])
    receivers.append(receiver)
    curator = User.objects.create_user("carla", password="karten-pw-1", is_staff=True)
    curator.groups.add(Group.objects.get(name="Curators"))
    client = Client()
    client.force_login(curator)
    page = client.post("/admin/exports/webhookendpoint/add/", {
        "name": "Partner", "url": receiver.url, "games": ["sauschwer"], "active": "on"})
    assert page.status_code == 200, page.content[:2000]
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.secret.startswith("whsec_") and endpoint.secret in page.content.decode()
    assert (endpoint.games, endpoint.languages, endpoint.created_by) == (["sauschwer"], [],
                                                                         curator)
    change = client.get(f"/admin/exports/webhookendpoint/{endpoint.pk}/change/").content.decode()
    listing = client.get("/admin/exports/webhookendpoint/").content.decode()
    assert endpoint.secret not in change and endpoint.secret not in listing
    assert webhooks.masked(endpoint.secret) in change

    settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE = False
    refused = client.post("/admin/exports/webhookendpoint/add/", {
        "name": "Metadata", "url": "http://169.254.169.254/latest/", "active": "on"})
    assert refused.status_code == 200 and WebhookEndpoint.objects.count() == 1
    assert "link-local" in refused.content.decode()
    settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE = True

    receiver.secret = endpoint.secret
    publish("sauschwer", "en")
    _run_worker()
    first = WebhookDelivery.objects.get(attempt=1)
    assert first.status == "failed"
    listing = client.get("/admin/exports/webhookdelivery/").content.decode()
    assert f"/admin/exports/webhookdelivery/{first.pk}/change/" in listing and "failed" in listing
    response = client.post("/admin/exports/webhookdelivery/", {
        "action": "send_again", "_selected_action": [first.pk], "index": "0"})
    assert response.status_code == 302
    resent = WebhookDelivery.objects.get(manual=True)
    assert (resent.attempt, resent.message_id, resent.requested_by) == (3, first.message_id,
                                                                        curator)
    _make_due(resent)  # the automatic retry (attempt 2) waits; the manual one runs now
    _run_worker()
    resent.refresh_from_db()
    assert resent.status == "delivered" and resent.next_attempt_at is None
    assert json.loads(receiver.seen[-1]["body"])["data"]["version"] == 1

    # A new secret: shown once again, and the messages are signed with it from now on.
    old = endpoint.secret
    page = client.post(f"/admin/exports/webhookendpoint/{endpoint.pk}/change/", {
        "name": "Partner", "url": receiver.url, "games": ["sauschwer"], "active": "on",
        "new_secret": "on"})
    endpoint.refresh_from_db()
    assert endpoint.secret != old and endpoint.secret in page.content.decode()


@pytest.mark.django_db(transaction=False)
def test_every_publish_path_queues_one_message_per_matching_endpoint(
        mini_catalogue, django_capture_on_commit_callbacks, admin_client):
    wanted = _endpoint("https://hooks.example.org/a", games=["sauschwer"], languages=["en"])
    _endpoint("https://hooks.example.org/b", languages=["de"])  # another language
    paths = [
        lambda: call_command("publish_pack", "sauschwer", "--lang", "en", stdout=None),
        lambda: _publish_in_the_admin(admin_client, "sauschwer", "en"),
        lambda: publish("sauschwer", "en"),  # as publish_starter and the list action do
    ]
    for version, path in enumerate(paths, start=1):
        SauschwerObject.objects.create(key=f"neu-{version}", name=f"Neu {version}", weight_g=9,
                                       source="test")
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            path()
        assert callbacks  # the announcement waits for the commit
        release = Release.objects.get(game="sauschwer", language="en", version=version)
        queued = WebhookDelivery.objects.filter(release=release)
        assert [(d.endpoint, d.attempt, d.status) for d in queued] == [(wanted, 1, "pending")]
        assert DBTaskResult.objects.filter(args_kwargs__args=[queued[0].pk]).exists()
    # a publish that changes nothing makes no release and sends nothing
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        call_command("publish_pack", "sauschwer", "--lang", "en", stdout=None)
    assert callbacks == [] and WebhookDelivery.objects.count() == len(paths)


@DB
def test_an_answer_with_nul_bytes_is_stored_cleaned_and_its_delivery_finishes(
        mini_catalogue, loopback_allowed, receivers):
    """A receiver answering NUL bytes (PostgreSQL refuses them in text), a broken character
    and a NUL in its Location header: each attempt is recorded, not left "sending"."""
    failing = Receiver([500, 200], body=b"bad\x00answer \xff" + b"\x00" * 5000)
    redirecting = Receiver([302], redirect="https://elsewhere.example/\x00x", body=b"\x00")
    receivers.extend([failing, redirecting])
    _endpoint(failing.url)
    _endpoint(redirecting.url)
    publish("sauschwer", "de")
    _run_worker()
    first = WebhookDelivery.objects.get(url=failing.url, attempt=1)
    assert (first.status, first.http_status) == ("failed", 500)
    assert first.response_excerpt.startswith("bad\ufffdanswer \ufffd")
    assert "\x00" not in first.response_excerpt and first.next_attempt_at is not None
    moved = WebhookDelivery.objects.get(url=redirecting.url, attempt=1)
    assert (moved.status, moved.http_status) == ("failed", 302)
    assert "\x00" not in moved.error + moved.response_excerpt and "not followed" in moved.error
    assert not WebhookDelivery.objects.filter(status="sending").exists()

    retry = WebhookDelivery.objects.get(url=failing.url, attempt=2)
    _make_due(retry)
    _run_worker()
    retry.refresh_from_db()
    assert retry.status == "delivered" and "\x00" not in retry.response_excerpt
    assert len(retry.response_excerpt) <= 300


class _WorkerKilled(BaseException):
    """What the worker meets when it is killed mid-delivery: nothing after it runs."""


@DB
def test_a_delivery_left_sending_by_a_killed_worker_is_shown_stuck_and_retried(
        mini_catalogue, loopback_allowed, receivers, monkeypatch, admin_client):
    receiver = Receiver([200])
    receivers.append(receiver)
    _endpoint(receiver.url)
    publish("sauschwer", "de")

    def killed(*args: Any) -> Any:
        raise _WorkerKilled

    monkeypatch.setattr(webhooks, "post", killed)
    _run_worker()
    monkeypatch.undo()
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "sending" and receiver.seen == []
    listing = admin_client.get("/admin/exports/webhookdelivery/").content.decode()
    assert "stuck" not in listing  # sending for a moment is not stuck

    # Six minutes later: the admin names it stuck, and the check queued by the attempt
    # (due STUCK_AFTER after it started) fails it and schedules the retry.
    started = timezone.now() - webhooks.STUCK_AFTER - timedelta(minutes=1)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(started_at=started)
    listing = admin_client.get("/admin/exports/webhookdelivery/").content.decode()
    assert "stuck: sending for 6 min" in listing
    watch = DBTaskResult.objects.get(status="READY", task_path__endswith="check_stuck_deliveries")
    assert watch.run_after > timezone.now() + webhooks.STUCK_AFTER - timedelta(minutes=1)
    watch.run_after = timezone.now()
    watch.save(update_fields=["run_after"])
    _run_worker()
    delivery.refresh_from_db()
    assert delivery.status == "failed" and "worker stopped" in delivery.error
    retry = WebhookDelivery.objects.get(attempt=2)
    assert retry.status == "pending" and retry.message_id == delivery.message_id
    _make_due(retry)
    _run_worker()
    retry.refresh_from_db()
    assert retry.status == "delivered" and len(receiver.seen) == 1


@DB
def test_every_delivery_the_worker_runs_first_recovers_the_stuck_ones(
        mini_catalogue, loopback_allowed, receivers):
    """No check queued (a worker killed before it could queue one): the next delivery any
    worker runs fails and retries the stuck attempt."""
    receiver = Receiver([200, 200, 200])
    receivers.append(receiver)
    endpoint = _endpoint(receiver.url)
    publish("sauschwer", "de")
    stuck = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=stuck.pk).update(
        status="sending", started_at=timezone.now() - timedelta(hours=2))
    fresh = WebhookDelivery.objects.create(
        endpoint=endpoint, url=endpoint.url, release=stuck.release, message_id="msg_fresh",
        status="sending", started_at=timezone.now(), scheduled_for=timezone.now())
    SauschwerObject.objects.create(key="ein-stein", name="Ein Stein", weight_g=900, source="t")
    publish("sauschwer", "de")  # release 2: its delivery runs the sweep
    _run_worker()
    stuck.refresh_from_db()
    fresh.refresh_from_db()
    assert stuck.status == "failed" and "worker stopped" in stuck.error
    assert fresh.status == "sending"  # a running attempt is left alone
    assert WebhookDelivery.objects.filter(message_id=stuck.message_id, attempt=2,
                                          status="pending").exists()


def _self_signed(tmp_path) -> tuple[Any, Any]:
    """A certificate for the name "localhost" only, and its key, as PEM files."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=1))
            .not_valid_after(now + dt.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def test_https_is_checked_against_the_host_name_not_the_pinned_address(
        loopback_allowed, receivers, tmp_path, monkeypatch):
    cert_file, key_file = _self_signed(tmp_path)
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert_file, key_file)
    receiver = Receiver([200, 200], tls=server_tls)
    receivers.append(receiver)
    port = receiver.server.server_port
    # a certificate nobody vouches for is refused
    answer = webhooks.post(f"https://localhost:{port}/", b"{}", {})
    assert not answer.delivered and "CERTIFICATE_VERIFY_FAILED" in answer.error
    # trusted, it is accepted for its name; the same server reached by its address is not
    trusting = ssl.create_default_context(cafile=str(cert_file))
    monkeypatch.setattr(webhooks.ssl, "create_default_context", lambda: trusting)
    assert webhooks.post(f"https://localhost:{port}/", b"{}", {}).delivered
    by_address = webhooks.post(f"https://127.0.0.1:{port}/", b"{}", {})
    assert not by_address.delivered and "IP address mismatch" in by_address.error
    assert len(receiver.seen) == 1
