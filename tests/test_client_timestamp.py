"""The signed timestamp (issue 38, finding 12): a release's signature says its bytes are genuine,
not that it is the newest, so a client with pinned keys and an empty cache took an old genuine
release from a mirror. /api/timestamp signs a dated list of the newest release of every pack;
the client refuses a release older than it lists, and a timestamp that is expired, forged or
older than the one it holds. Driven through a real mirror in front of the live server."""

from __future__ import annotations

import base64
import json
import urllib.request
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.utils import timezone

from cards.models import SauschwerObject
from exports import signing, timestamps
from exports.models import Release
from exports.packs import publish
from exports.serialise import canonical
from kartothek_client import Client, KartothekError, TimestampError, VerificationError
from tests.test_client_trust import Mirror, _fresh_caches  # noqa: F401  (an autouse fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mirror(live_server):
    made = Mirror(live_server.url)
    yield made
    made.close()

JSON = {"Content-Type": "application/json"}


def _two_releases() -> None:
    for i in range(30):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
    publish("sauschwer", "de")


def _get(url: str) -> tuple[bytes, dict[str, str]]:
    with urllib.request.urlopen(url) as answer:
        return answer.read(), dict(answer.headers.items())


def _pinned(live_server) -> dict[str, str]:
    """The keys an app ships with (taken from the server beforehand, not from the mirror)."""
    keys = json.loads(_get(live_server.url + "/api/keys")[0])["keys"]
    return {k["id"]: k["public_key"] for k in keys}


def _release_one_as(mirror: Mirror, live_server, path: str) -> None:
    body, headers = _get(f"{live_server.url}/api/packs/sauschwer/de/1.json")
    mirror.forged[path] = (200, {"ETag": headers["ETag"], "X-Kartothek-Signature": headers[
        "X-Kartothek-Signature"]}, body)


def _envelope(body: dict, key: Ed25519PrivateKey | None = None) -> bytes:
    """A timestamp envelope of ``body``, signed by ``key`` (default: the server's own key)."""
    signed = canonical(body)
    if key is None:
        private, key_id = signing.signing_key().private, signing.signing_key().key_id
    else:
        private, key_id = key, "0123456789abcdef"
    return json.dumps({"signed": signed.decode(), "algorithm": "ed25519", "key_id": key_id,
                       "signature": base64.b64encode(private.sign(signed)).decode()}).encode()


def _body(issued: datetime, expires: datetime) -> dict:
    iso = "%Y-%m-%dT%H:%M:%SZ"
    return {"type": timestamps.TYPE, "issued_at": issued.strftime(iso),
            "expires": expires.strftime(iso), "releases": timestamps.newest_releases()}


def test_a_client_with_pinned_keys_and_an_empty_cache_refuses_an_old_genuine_release(
        mini_catalogue, live_server, mirror, tmp_path):
    _two_releases()
    # the mirror says release 1 is the newest and serves it, genuine, signature and all
    mirror.forged["/api/packs/sauschwer/de/latest"] = (
        302, {"Location": "/api/packs/sauschwer/de/1.json"}, b"")
    mirror.forged["/api/packs/sauschwer/de/2.json"] = (404, JSON, b'{"error": "withheld"}')
    client = Client(mirror.url, tmp_path, public_keys=_pinned(live_server))
    with pytest.raises(KartothekError, match="Release 2 of sauschwer"):
        client.update("sauschwer", "de")
    assert client.cached("sauschwer", "de") is None
    # release 1's genuine bytes under release 2's name: refused as well
    _release_one_as(mirror, live_server, "/api/packs/sauschwer/de/2.json")
    with pytest.raises(VerificationError, match="signed pack is release 1"):
        client.update("sauschwer", "de")
    assert client.cached("sauschwer", "de") is None
    # once the mirror serves release 2, the client takes it, the old "latest" notwithstanding
    del mirror.forged["/api/packs/sauschwer/de/2.json"]
    pack = client.update("sauschwer", "de")
    assert (pack.version, pack.data) == (2, bytes(Release.objects.get(
        game="sauschwer", language="de", version=2).data))


def test_a_cached_release_is_brought_up_to_the_timestamp_whatever_latest_says(
        mini_catalogue, live_server, mirror, tmp_path):
    for i in range(30):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    client = Client(mirror.url, tmp_path)
    assert client.update("sauschwer", "de").version == 1
    SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
    publish("sauschwer", "de")
    mirror.forged["/api/packs/sauschwer/de/latest"] = (  # a mirror that stays at release 1
        302, {"Location": "/api/packs/sauschwer/de/1.json"}, b"")
    assert client.update("sauschwer", "de").version == 2


@pytest.mark.parametrize("case", ["expired", "over seven days old", "from the future",
                                  "listing changed", "signed by another key", "not a timestamp"])
def test_a_stale_or_forged_timestamp_is_refused_and_nothing_is_kept(
        mini_catalogue, live_server, mirror, tmp_path, case):
    _two_releases()
    now = datetime.now(UTC)
    if case == "expired":  # genuine, issued by the server two days ago
        envelope = json.dumps(timestamps.signed_timestamp(now - timedelta(days=2))).encode()
    elif case == "over seven days old":  # genuine key, a far expiry: the hard maximum holds
        envelope = _envelope(_body(now - timedelta(days=8), now + timedelta(days=30)))
    elif case == "from the future":
        envelope = _envelope(_body(now + timedelta(hours=3), now + timedelta(days=2)))
    elif case == "listing changed":  # the server's timestamp, release 2 edited to release 1
        genuine = json.loads(_get(live_server.url + "/api/timestamp")[0])
        genuine["signed"] = genuine["signed"].replace('"version":2', '"version":1')
        envelope = json.dumps(genuine).encode()
    elif case == "signed by another key":
        envelope = _envelope(_body(now, now + timedelta(days=1)), Ed25519PrivateKey.generate())
    else:  # the server's key over bytes that do not say they are a timestamp
        envelope = _envelope({**_body(now, now + timedelta(days=1)), "type": "something-else"})
    mirror.forged["/api/timestamp"] = (200, JSON, envelope)
    mirror.forged["/api/packs/sauschwer/de/latest"] = (
        302, {"Location": "/api/packs/sauschwer/de/1.json"}, b"")
    client = Client(mirror.url, tmp_path, public_keys=_pinned(live_server))
    expected = {"expired": "expired", "over seven days old": "more than 7 days ago",
                "from the future": "in the future", "listing changed": "does not verify",
                "signed by another key": "does not trust",
                "not a timestamp": "not a timestamp"}[case]
    with pytest.raises(TimestampError, match=expected):
        client.update("sauschwer", "de")
    assert client.cached("sauschwer", "de") is None
    assert not (tmp_path / "timestamp.json").exists()


def test_a_replayed_older_timestamp_is_refused(mini_catalogue, live_server, mirror, tmp_path):
    for i in range(30):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    captured = _get(live_server.url + "/api/timestamp")[0]  # names release 1
    SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
    publish("sauschwer", "de")
    client = Client(mirror.url, tmp_path)
    assert client.update("sauschwer", "de").version == 2
    held = client.timestamp()
    assert (tmp_path / "timestamp.json").read_bytes() == held.envelope
    assert held.newest("sauschwer", "de")[0] == 2

    # the same slot, captured before release 2: it names release 1
    mirror.forged["/api/timestamp"] = (200, JSON, captured)
    with pytest.raises(TimestampError, match="replayed older timestamp"):
        client.update("sauschwer", "de")
    # genuine and unexpired, but from the slot before the one the client holds
    earlier = timestamps.signed_timestamp(held.issued_at - timestamps.SLOT)
    mirror.forged["/api/timestamp"] = (200, JSON, json.dumps(earlier).encode())
    with pytest.raises(TimestampError, match="before the one this client holds"):
        client.update("sauschwer", "de")
    # a new process with the same cache folder remembers it
    with pytest.raises(TimestampError, match="replayed older timestamp"):
        Client(mirror.url, tmp_path).update("sauschwer", "de")
    assert (tmp_path / "timestamp.json").read_bytes() == held.envelope
    del mirror.forged["/api/timestamp"]
    assert client.update("sauschwer", "de").version == 2


def test_the_servers_timestamp_lists_the_newest_releases_and_verifies_with_the_published_key(
        mini_catalogue, client):
    _two_releases()
    publish("symbols", "en")
    response = client.get("/api/timestamp", headers={"Origin": "https://elsewhere.example"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "public, max-age=60"
    assert response["Access-Control-Allow-Origin"] == "*"
    envelope = response.json()
    [current] = [k for k in client.get("/api/keys").json()["keys"] if k["status"] == "current"]
    assert envelope["key_id"] == current["id"] and envelope["algorithm"] == "ed25519"
    assert signing.verify(current["public_key"], envelope["signed"].encode(), envelope["signature"])
    body = json.loads(envelope["signed"])
    assert envelope["signed"].encode() == canonical(body)
    newest = {(r.game, r.language): r for r in Release.objects.order_by("version")}
    assert body["releases"] == [
        {"game": g, "language": lang, "version": r.version, "sha256": r.sha256}
        for (g, lang), r in sorted(newest.items())]
    assert ("sauschwer", "de", 2) in [(r["game"], r["language"], r["version"])
                                      for r in body["releases"]]
    # issued at the start of the current 2.4-hour slot, expiring a day later
    issued = datetime.strptime(body["issued_at"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    expires = datetime.strptime(body["expires"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert int(issued.timestamp()) % 8640 == 0
    assert timedelta(0) <= timezone.now() - issued < timedelta(hours=2.4, seconds=5)
    assert expires - issued == timedelta(days=1)
    # the same bytes again (a cache or a second server within the slot), and a 304 by ETag
    again = client.get("/api/timestamp")
    if json.loads(again.json()["signed"])["issued_at"] == body["issued_at"]:
        assert again.content == response.content and again["ETag"] == response["ETag"]
    assert client.get("/api/timestamp", headers={"If-None-Match": again["ETag"]}).status_code == 304


def test_a_hostile_timestamp_raises_only_timestamp_errors():
    """Whatever bytes a mirror sends as /api/timestamp, the client's check raises its own
    error (never a KeyError, TypeError, UnicodeError or RecursionError), and accepts nothing
    it cannot verify. No server: the check alone, on a key of the test's own."""
    import random

    from kartothek_client.timestamp import verify_timestamp

    key = Ed25519PrivateKey.generate()
    public = base64.b64encode(key.public_key().public_bytes_raw()).decode()

    def key_for(key_id: str) -> str | None:
        return public if key_id == "0123456789abcdef" else None

    now = datetime.now(UTC)
    good = _envelope({"type": timestamps.TYPE, "issued_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                      "expires": (now + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                      "releases": [{"game": "sauschwer", "language": "de", "version": 2,
                                    "sha256": "a" * 64}]}, key)
    assert verify_timestamp(good, key_for).newest("sauschwer", "de") == (2, "a" * 64)

    def signed_body(body: object) -> bytes:
        text = json.dumps(body)
        return json.dumps({"signed": text, "key_id": "0123456789abcdef",
                           "signature": base64.b64encode(key.sign(text.encode())).decode()}).encode()

    entry = {"game": "sauschwer", "language": "de", "version": 2, "sha256": "a" * 64}
    base = json.loads(json.loads(good)["signed"])
    hostile = [b"", b"null", b"[]", b"{", b"\xff\xfe", b"[" * 100_000, b'{"signed": 5}',
               b'{"signed": "\\ud800", "key_id": "0123456789abcdef", "signature": "AA=="}',
               b'{"signed": "x", "key_id": "0123456789abcdef", "signature": "not base64!"}',
               b'{"signed": "x", "key_id": "0123456789abcdef", "signature": "x", "algorithm": "rsa"}',
               signed_body("[" * 100_000), signed_body([1]), signed_body({**base, "type": None}),
               signed_body({**base, "issued_at": 5}), signed_body({**base, "expires": "tomorrow"}),
               signed_body({**base, "issued_at": "2026-13-45T99:00:00Z"}),
               signed_body({**base, "expires": base["issued_at"]}),
               signed_body({**base, "releases": "all"}), signed_body({**base, "releases": [5]}),
               signed_body({**base, "releases": [entry, entry]}),
               *(signed_body({**base, "releases": [{**entry, field: value}]})
                 for field, value in (("version", True), ("version", 0), ("version", "2"),
                                      ("sha256", "A" * 64), ("game", None), ("language", 1)))]
    rnd = random.Random(38)
    for _ in range(300):  # random damage to the genuine envelope
        damaged = bytearray(good)
        for _ in range(rnd.randint(1, 4)):
            damaged[rnd.randrange(len(damaged))] = rnd.randrange(256)
        try:  # a change that leaves the same JSON (a space for a tab, a byte for itself) is none
            unchanged = json.loads(bytes(damaged)) == json.loads(good)
        except ValueError:
            unchanged = False
        if not unchanged:
            hostile.append(bytes(damaged))
    for envelope in hostile:
        with pytest.raises(TimestampError):
            verify_timestamp(envelope, key_for)
