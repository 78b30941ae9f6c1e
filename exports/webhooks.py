"""Webhooks on publish: every matching endpoint hears of a new release.

Each publish path ends in ``Release.objects.create`` (exports/packs.py ``publish``: the
``publish_pack`` command, the admin's publish page and list action, ``publish_starter``), so
a ``post_save`` receiver catches them all; after the publish's transaction commits it queues
one delivery per matching endpoint as a background job (django-tasks, ``make worker``). A
failing or slow endpoint costs the publish nothing and holds up no other endpoint: each
delivery is a job of its own, bounded in time, and a failure schedules its retry with
exponential backoff instead of waiting for it.

Messages follow the Standard Webhooks spec (https://www.standardwebhooks.com): headers
``webhook-id`` (the same for every attempt of one message), ``webhook-timestamp`` (seconds),
``webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` keyed with the
endpoint's ``whsec_`` secret (base64 after the prefix).

A curator chooses the URL, so the sender treats it as hostile (server-side request forgery):
only http/https, no credentials in the URL; the host is resolved once and every address it
resolves to must be public (not loopback, private, link-local, shared, reserved or multicast,
IPv4 inside IPv6 included) unless ``KARTOTHEK_WEBHOOK_ALLOW_PRIVATE`` is on; the connection
goes to that checked address (no second lookup a DNS rebinding could answer differently), TLS
still verified against the host name; redirects are never followed; the whole exchange has a
deadline; and only a short excerpt of the answer is read and kept.

What is stored of an answer (its excerpt, the error it gave) goes through
``common.storable.storable_text`` first: a NUL or a broken character from the receiver never
fails the write that records the attempt. An attempt still "sending" after ``STUCK_AFTER``
(its worker was killed mid-delivery) is recorded as failed and retried like any failure:
each attempt queues a check for itself that long ahead, and every delivery the worker runs
first sweeps the stuck ones (``recover_stuck_deliveries``).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import secrets
import socket
import ssl
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone
from django_tasks import task

from common.storable import storable_text
from exports.deltas import _keyed, _list_change
from exports.models import Release, ReleaseSignature, WebhookDelivery, WebhookEndpoint

logger = logging.getLogger(__name__)

EVENT = "release.published"
SECRET_PREFIX = "whsec_"
CONNECT_TIMEOUT = 5.0  # seconds for the connection and for each read
DEADLINE = 10.0  # seconds for the whole exchange: a receiver that drips bytes is cut off
MAX_ADDRESSES = 3  # of a host name's addresses, tried in turn while none accepts a connection
EXCERPT_BYTES = 200  # of the answer's body: read this much, never more, and keep it
MAX_ATTEMPTS = 8  # automatic ones: the retries wait 30 s, 1, 2, 4, 8, 16, 32 min (~1 h in all)
BACKOFF_BASE = 30  # seconds before the first retry; doubled for each further one
USER_AGENT = "Kartothek-Webhooks/1"
ERROR_CHARS = 500  # WebhookDelivery.error's length
EXCERPT_CHARS = 300  # WebhookDelivery.response_excerpt's length
# An attempt takes at most MAX_ADDRESSES connections and the DEADLINE (~45 s): one still
# "sending" after this lost its worker, and is failed and retried.
STUCK_AFTER = timedelta(minutes=5)
Status = WebhookDelivery.Status


NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class UnsafeTarget(ValueError):
    """A URL the server must not send to (the message says why)."""


# --- secrets and signatures ---------------------------------------------------------------


def new_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def masked(secret: str) -> str:
    return f"{secret[:len(SECRET_PREFIX) + 4]}…" if secret else "—"


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value for one attempt."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    mac = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def signed_headers(secret: str, message_id: str, body: bytes,
                   now: datetime | None = None) -> dict[str, str]:
    timestamp = int((now or timezone.now()).timestamp())
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, message_id, timestamp, body),
    }


# --- the message ----------------------------------------------------------------------------


def change_counts(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, int]:
    """Objects added, removed and changed in the keyed lists of the body (cards, symbols,
    colours…), counted as a delta (exports/deltas.py) from ``old`` to ``new`` would hold
    them; with no older release everything is added."""
    counts = {"added": 0, "removed": 0, "changed": 0}
    old_body: dict[str, Any] = old["body"] if old else {}
    for name, value in new["body"].items():
        before = old_body.get(name)
        if not _keyed(value) or (before is not None and not _keyed(before)):
            continue
        change = _list_change(before or [], value)
        for kind in counts:
            counts[kind] += len(change.get(kind, []))
    for name, before in old_body.items():
        if name not in new["body"] and _keyed(before):
            counts["removed"] += len(before)
    return counts


def _absolute(path: str) -> str:
    return f"{settings.KARTOTHEK_PUBLIC_URL}{path}"


def message_body(release: Release) -> bytes:
    """The JSON body announcing a release: the same bytes for every endpoint and attempt."""
    previous = Release.objects.filter(game=release.game, language=release.language,
                                      version__lt=release.version).order_by("-version").first()
    if release.changes is not None:  # counted once, at publish (exports/changes.py)
        counts = dict(release.changes["counts"])
    else:  # a release published before releases kept their changes
        new = json.loads(bytes(release.data))
        counts = change_counts(json.loads(bytes(previous.data)) if previous else None, new)
    args = [release.game, release.language, release.version]
    signed = ReleaseSignature.objects.filter(release=release).exists()
    data = {
        "game": release.game,
        "language": release.language,
        "version": release.version,
        "previous_version": previous.version if previous else None,
        "sha256": release.sha256,
        "size": release.size,
        "url": _absolute(reverse("api:release", args=args)),
        "signature_url": _absolute(reverse("api:release-signature", args=args)) if signed else None,
        "delta_url": _absolute(reverse("api:delta", kwargs={
            "game": release.game, "language": release.language, "since": previous.version,
            "version": release.version})) if previous else None,
        "changes": counts,
        "published_at": release.published_at.isoformat(),
    }
    envelope = {"type": EVENT, "timestamp": release.published_at.isoformat(), "data": data}
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":")).encode()


# --- where a message may go ---------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str


def parse_target(url: str) -> Target:
    """The parts of an endpoint URL, or UnsafeTarget saying what is wrong with it."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise UnsafeTarget(f"The URL cannot be read: {exc}.") from None
    if parts.scheme not in ("http", "https"):
        raise UnsafeTarget("Only http:// and https:// URLs can receive webhooks.")
    if parts.username is not None or parts.password is not None:
        raise UnsafeTarget("A user name or password in the URL is not allowed; authenticate "
                           "the messages by their signature.")
    if not parts.hostname:
        raise UnsafeTarget("The URL has no host.")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80),
                  path)


def _unsafe_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone (fe80::1%eth0) goes
    if isinstance(ip, ipaddress.IPv6Address):
        # an IPv4 address dressed as IPv6 is judged as the IPv4 address it reaches
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is None and ip in NAT64:  # 64:ff9b::a.b.c.d reaches a.b.c.d
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None and _unsafe_address(str(inner)):
            return True
    return not ip.is_global or ip.is_multicast


def check_url(url: str) -> Target:
    """What the admin checks when an endpoint is saved: the URL's form, and a host written as
    an address or a loopback name. (Names are resolved, and checked again, at each send.)"""
    target = parse_target(url)
    if settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE:
        return target
    host = target.host.rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        raise UnsafeTarget(f"{target.host} is this machine; webhooks go to other servers "
                           "(KARTOTHEK_WEBHOOK_ALLOW_PRIVATE allows it).")
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return target
    if _unsafe_address(str(literal)):
        raise UnsafeTarget(f"{target.host} is a loopback, private, link-local or reserved "
                           "address; webhooks go to public addresses only "
                           "(KARTOTHEK_WEBHOOK_ALLOW_PRIVATE allows it).")
    return target


def resolve(target: Target) -> list[str]:
    """Every address the host resolves to; UnsafeTarget if any is not public (an attacker's
    name may hold a public and a private address at once)."""
    try:
        found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise OSError(f"{target.host} cannot be resolved: {exc}") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    if not settings.KARTOTHEK_WEBHOOK_ALLOW_PRIVATE:
        unsafe = [a for a in addresses if _unsafe_address(a)]
        if unsafe:
            raise UnsafeTarget(f"{target.host} resolves to {', '.join(unsafe)}: not a public "
                               "address (KARTOTHEK_WEBHOOK_ALLOW_PRIVATE allows it).")
    return addresses


class _PinnedHTTP(http.client.HTTPConnection):
    """Connects to an address checked before, whatever the host name resolves to now."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address
        # kept here too: http.client forgets self.sock once a closing answer's head is read
        self.pinned: socket.socket | None = None

    def connect(self) -> None:
        self.sock = self.pinned = socket.create_connection((self.address, self.port),
                                                           self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address
        self.pinned: socket.socket | None = None

    def connect(self) -> None:
        raw = self.pinned = socket.create_connection((self.address, self.port), self.timeout)
        # the certificate is checked against the host name, not the address
        self.sock = self.pinned = self._context.wrap_socket(  # type: ignore[attr-defined]
            raw, server_hostname=self.host)


@dataclass(frozen=True)
class Answer:
    http_status: int | None
    error: str = ""
    excerpt: str = ""

    @property
    def delivered(self) -> bool:
        return self.http_status is not None and 200 <= self.http_status < 300


def _cut_off(connection: _PinnedHTTP | _PinnedHTTPS, fired: threading.Event) -> None:
    fired.set()  # before the shutdown, so the reader that fails sees why
    sock = connection.pinned
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # wakes a read blocked in the worker's thread


def post(url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST the body to the URL under the rules above; never raises for the receiver's sake."""
    try:
        target = parse_target(url)
        addresses = resolve(target)
    except (UnsafeTarget, OSError) as exc:
        return Answer(None, str(exc)[:500])
    last_error = ""
    for address in addresses[:MAX_ADDRESSES]:  # a name with 100 dead addresses is not 100 tries
        connection: _PinnedHTTP | _PinnedHTTPS = (_PinnedHTTPS if target.scheme == "https"
                                                  else _PinnedHTTP)(
            target.host, target.port, address, CONNECT_TIMEOUT)
        fired = threading.Event()
        timer = threading.Timer(DEADLINE, _cut_off, args=(connection, fired))
        timer.daemon = True
        timer.start()
        try:
            connection.request("POST", target.path, body=body, headers=headers)
            response = connection.getresponse()
            status, location = response.status, response.getheader("Location", "")
            excerpt = response.read(EXCERPT_BYTES).decode("utf-8", "replace")
            response.close()  # the rest of the answer is never read
            if fired.is_set():  # the cut-off ended a dripping answer: a short read, no error
                return Answer(None, f"No complete answer within {DEADLINE:g} s.", excerpt)
        except (OSError, http.client.HTTPException) as exc:
            if fired.is_set():
                return Answer(None, f"No complete answer within {DEADLINE:g} s.")
            last_error = f"{address}: {type(exc).__name__}: {exc}"[:500]
            if connection.pinned is None:
                continue  # never connected: the host's next address may answer
            return Answer(None, last_error)
        finally:
            timer.cancel()
            connection.close()
            if connection.pinned is not None:
                connection.pinned.close()
        if 300 <= status < 400:
            where = location[:200]
            return Answer(status, f"Redirects are not followed (to {where or 'nowhere'}); "
                                  "register the final URL.", excerpt)
        error = "" if 200 <= status < 300 else f"The endpoint answered {status}."
        return Answer(status, error, excerpt)
    return Answer(None, last_error or "No address to connect to.")


# --- queueing and delivering --------------------------------------------------------------


def backoff(attempt: int) -> timedelta:
    """How long after failed attempt ``attempt`` the next one is due."""
    return timedelta(seconds=BACKOFF_BASE * 2 ** (attempt - 1))


def _enqueue(delivery: WebhookDelivery) -> None:
    try:
        runner = deliver_webhook
        if delivery.scheduled_for > timezone.now():
            runner = deliver_webhook.using(run_after=delivery.scheduled_for)
        runner.enqueue(delivery.pk)
    except Exception as exc:  # a queue that cannot take it must not fail the caller
        logger.exception("webhook delivery %s could not be queued", delivery.pk)
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=Status.FAILED, error=storable_text(f"Could not be queued: {exc}", ERROR_CHARS),
            finished_at=timezone.now())


def queue_release(release_id: int) -> list[WebhookDelivery]:
    """A first delivery to every active endpoint that wants this release's game and
    language. Never raises: a publish has already happened and stands."""
    queued: list[WebhookDelivery] = []
    try:
        release = Release.objects.defer("changes").get(pk=release_id)
        for endpoint in WebhookEndpoint.objects.filter(active=True):
            if not endpoint.matches(release.game, release.language):
                continue
            delivery = WebhookDelivery.objects.create(
                endpoint=endpoint, url=endpoint.url, release=release, message_id=f"msg_{uuid.uuid4().hex}",
                attempt=1, scheduled_for=timezone.now())
            _enqueue(delivery)
            queued.append(delivery)
    except Exception:
        logger.exception("webhooks for release %s could not be queued", release_id)
    return queued


@receiver(post_save, sender=Release, dispatch_uid="exports.webhooks.on_publish")
def _on_publish(sender: type[Release], instance: Release, created: bool, raw: bool = False,
                **kwargs: Any) -> None:
    if created and not raw:
        release_id = instance.pk
        # only once the release is committed: a rolled-back publish announces nothing
        transaction.on_commit(lambda: queue_release(release_id))


def send_again(delivery: WebhookDelivery, user: Any = None) -> WebhookDelivery:
    """One more attempt of a delivery's message (same id and body), now; no automatic
    retries follow it."""
    last = WebhookDelivery.objects.filter(message_id=delivery.message_id).aggregate(
        Max("attempt"))["attempt__max"] or delivery.attempt
    if delivery.endpoint is None:
        raise ValueError("The endpoint of this delivery has been deleted.")
    again = WebhookDelivery.objects.create(
        endpoint=delivery.endpoint, url=delivery.endpoint.url, release=delivery.release,
        message_id=delivery.message_id,
        attempt=last + 1, manual=True, payload=delivery.payload, scheduled_for=timezone.now(),
        requested_by=user if getattr(user, "is_authenticated", False) else None)
    _enqueue(again)
    return again


def _finish(delivery: WebhookDelivery, answer: Answer, *, retry: bool) -> bool:
    """Record the attempt's answer, if it is still "sending" (False: something else, the
    stuck check, recorded it first), and schedule the retry of a failure."""
    now = timezone.now()
    sending = WebhookDelivery.objects.filter(pk=delivery.pk, status=Status.SENDING)
    # whatever the receiver sent, what is kept is storable (no NUL, no broken character)
    error = storable_text(answer.error, ERROR_CHARS)
    excerpt = storable_text(answer.excerpt, EXCERPT_CHARS)
    if answer.delivered:
        return bool(sending.update(status=Status.DELIVERED, http_status=answer.http_status,
                                   error="", response_excerpt=excerpt, finished_at=now))
    next_at = None
    if retry and not delivery.manual and delivery.attempt < MAX_ATTEMPTS:
        next_at = now + backoff(delivery.attempt)
    with transaction.atomic():
        if not sending.update(status=Status.FAILED, http_status=answer.http_status, error=error,
                              response_excerpt=excerpt, finished_at=now, next_attempt_at=next_at):
            return False
        retry_row = None
        if next_at is not None:
            retry_row = WebhookDelivery.objects.create(
                endpoint=delivery.endpoint, url=delivery.url, release=delivery.release,
                message_id=delivery.message_id,
                attempt=delivery.attempt + 1, payload=delivery.payload, scheduled_for=next_at)
    logger.warning("webhook %s attempt %s to %s failed: %s", delivery.message_id,
                   delivery.attempt, delivery.url, error)
    if retry_row is not None:
        _enqueue(retry_row)
    return True


def recover_stuck_deliveries(now: datetime | None = None) -> int:
    """Attempts "sending" for longer than ``STUCK_AFTER`` (their worker stopped mid-delivery):
    recorded as failed, and retried as a failure is. How many there were."""
    cutoff = (now or timezone.now()) - STUCK_AFTER
    stuck = WebhookDelivery.objects.filter(status=Status.SENDING, started_at__lt=cutoff)
    recovered = 0
    for delivery in stuck.select_related("endpoint"):
        endpoint = delivery.endpoint
        answer = Answer(None, f"The worker stopped during this attempt (still sending after "
                              f"{STUCK_AFTER.total_seconds() / 60:g} min); it is retried.")
        recovered += _finish(delivery, answer, retry=endpoint is not None and endpoint.active)
    return recovered


@task()
def check_stuck_deliveries() -> int:
    """Queued ``STUCK_AFTER`` after each attempt starts: runs when a worker runs again."""
    return recover_stuck_deliveries()


def _watch(delivery: WebhookDelivery) -> None:
    try:
        check_stuck_deliveries.using(
            run_after=timezone.now() + STUCK_AFTER + timedelta(seconds=5)).enqueue()
    except Exception:  # the sweep before each delivery still finds it
        logger.exception("no stuck check queued for webhook delivery %s", delivery.pk)


@task()
def deliver_webhook(delivery_id: int) -> str:
    """Send one attempt; on failure, schedule the next one (backoff) rather than wait."""
    try:
        recover_stuck_deliveries()  # another worker's attempts it never finished
    except Exception:
        logger.exception("stuck webhook deliveries could not be recovered")
    claimed = WebhookDelivery.objects.filter(pk=delivery_id, status=Status.PENDING).update(
        status=Status.SENDING, started_at=timezone.now())
    if not claimed:  # run twice (a worker restarted), or the endpoint is gone
        return "skipped"
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    _watch(delivery)  # should this worker die before the answer is recorded
    endpoint = delivery.endpoint
    if endpoint is None or not endpoint.active:
        _finish(delivery, Answer(None, "The endpoint was switched off or deleted."), retry=False)
        return "failed"
    try:
        if not delivery.payload:
            delivery.payload = message_body(delivery.release).decode()
            WebhookDelivery.objects.filter(pk=delivery.pk).update(payload=delivery.payload)
        body = delivery.payload.encode()
        answer = post(delivery.url, body, signed_headers(endpoint.secret, delivery.message_id,
                                                         body))
    except Exception as exc:  # whatever went wrong, the attempt is recorded and retried
        logger.exception("webhook delivery %s", delivery_id)
        answer = Answer(None, f"{type(exc).__name__}: {exc}")
    unsafe = answer.http_status is None and "KARTOTHEK_WEBHOOK_ALLOW_PRIVATE" in answer.error
    _finish(delivery, answer, retry=not unsafe)  # a refused address stays refused
    return "delivered" if answer.delivered else "failed"
