"""A hostile mirror cannot crash the reference client (issue 38, finding 4): whatever it
answers (wrong types, broken or deeply nested JSON, missing fields, bad base64, a gzip
bomb, an endless body, a slow drip, a bad signature, a bad delta), ``update()`` raises
``KartothekError`` and nothing else, reads and inflates a bounded number of bytes, and
gives up at its deadline. A real HTTP server plays the mirror (tests/hostile_server.py)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import inspect
import json
import re
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from exports.deltas import make_delta
from exports.timestamps import slot_start
from kartothek_client import Client, DeltaError, KartothekError, Pack, apply_delta
from kartothek_client.client import key_id_of
from kartothek_client.delta import DELTA_FORMAT, canonical
from kartothek_client.wire import inflate
from tests.hostile_server import DrippingSocket, HostileMirror

KEY = Ed25519PrivateKey.generate()
RAW = KEY.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
KEY_ID = key_id_of(RAW)
B64 = base64.b64encode(RAW).decode()
BASE = "/api/packs/sauschwer/de"


def _pack(version: int) -> dict:
    cards = [{"key": f"ding-{i:02}", "name": f"Ding {i}", "weight_g": i + version * (i == 3)}
             for i in range(30)]
    return {"game": "sauschwer", "language": "de", "content_version": version,
            "body": {"cards": cards, "title": "Sauschwer"}}


ONE, TWO = canonical(_pack(1)), canonical(_pack(2))
SHA_ONE, SHA_TWO = hashlib.sha256(ONE).hexdigest(), hashlib.sha256(TWO).hexdigest()
DELTA = make_delta(_pack(1), _pack(2), from_sha256=SHA_ONE, to_sha256=SHA_TWO)
SIGNATURE = base64.b64encode(KEY.sign(TWO)).decode()


def _timestamp(releases: list[dict[str, object]] | None = None) -> bytes:
    """A genuine signed timestamp (the form of exports/timestamps.py) naming release 2."""
    issued = slot_start(datetime.now(UTC))
    body = canonical({"type": "kartothek-timestamp-v1", "issued_at": f"{issued:%Y-%m-%dT%H:%M:%SZ}",
                      "expires": f"{issued + timedelta(days=1):%Y-%m-%dT%H:%M:%SZ}",
                      "releases": releases if releases is not None else [
                          {"game": "sauschwer", "language": "de", "version": 2,
                           "sha256": SHA_TWO}]})
    return json.dumps({"signed": body.decode(), "algorithm": "ed25519", "key_id": KEY_ID,
                       "signature": base64.b64encode(KEY.sign(body)).decode()}).encode()


STAMP = _timestamp()


def _json(value: object, status: int = 200) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(value).encode()


def genuine() -> dict:
    """What an honest server answers to a client holding release 1 (or nothing)."""
    return {
        "/api/keys": _json({"keys": [{"id": KEY_ID, "public_key": B64, "status": "current"}]}),
        "/api/timestamp": (200, {"Content-Type": "application/json"}, STAMP),
        f"{BASE}/latest": (302, {"Location": f"{BASE}/2.json"}, b""),
        f"{BASE}/1..2.delta.json": _json(DELTA),
        f"{BASE}/2.json": (200, {"ETag": f'"{SHA_TWO}"'}, TWO),  # no header: .sig is asked
        f"{BASE}/2.json.sig": _json({"key_id": KEY_ID, "signature": SIGNATURE}),
    }


@pytest.fixture
def mirror():
    made = HostileMirror(genuine())
    yield made
    made.close()


def _client(mirror: HostileMirror, folder, *, holding: bool, **options) -> Client:
    """A client that pins keys on first use; ``holding``: release 1 cached, keys pinned."""
    client = Client(mirror.url, folder, **options)
    if holding:
        (folder / "keys.json").write_text(json.dumps({KEY_ID: B64}))
        client._keep(Pack("sauschwer", "de", 1, ONE, SHA_ONE, KEY_ID, "full"))
    return client


@pytest.mark.parametrize("holding", [False, True])
def test_the_genuine_answers_give_release_two(mirror, tmp_path, holding):
    pack = _client(mirror, tmp_path, holding=holding).update("sauschwer", "de")
    assert (pack.version, pack.how, pack.data) == (2, "delta" if holding else "full", TWO)


def _delta(**changes: object) -> bytes:
    return json.dumps({**DELTA, **changes}).encode()


DEEP = b"[" * 200_000 + b"]" * 200_000
HOSTILE = {  # name: (path, answer, holding release 1)
    "keys not json": ("/api/keys", (200, {}, b'{"keys": [{"id"'), False),
    "keys deeply nested": ("/api/keys", (200, {}, DEEP), False),
    "keys a list": ("/api/keys", _json([1, 2]), False),
    "keys missing": ("/api/keys", _json({"key": []}), False),
    "keys a string": ("/api/keys", _json({"keys": "abc"}), False),
    "keys of wrong types": ("/api/keys", _json({"keys": [1, None, {"id": [], "public_key": 5}]}),
                            False),
    "key not base64": ("/api/keys", _json({"keys": [{"id": KEY_ID, "public_key": "%%%"}]}), False),
    "keys not utf-8": ("/api/keys", (200, {}, b'{"keys": "\xff\xfe"}'), False),
    "timestamp not json": ("/api/timestamp", (200, {}, STAMP[:40]), False),
    "timestamp deeply nested": ("/api/timestamp", (200, {}, DEEP), False),
    "timestamp a list": ("/api/timestamp", _json([STAMP.decode()]), False),
    "timestamp 404": ("/api/timestamp", _json({"error": "gone"}, 404), False),
    "timestamp names release 5000 digits long": ("/api/timestamp", (200, {}, _timestamp(
        [{"game": "sauschwer", "language": "de", "version": int("9" * 500), "sha256": SHA_TWO}])),
        False),
    "timestamp names another sha256": ("/api/timestamp", (200, {}, _timestamp(
        [{"game": "sauschwer", "language": "de", "version": 2, "sha256": SHA_ONE}])), True),
    "latest with 5000 digits": (f"{BASE}/latest", (302, {"Location": f"{BASE}/{'9' * 5000}.json"},
                                                   b""), False),
    "latest garbage": (f"{BASE}/latest", (200, {}, b"\x00" * 100), False),
    "sig missing": (f"{BASE}/2.json.sig", _json({}), False),
    "sig unhashable key id": (f"{BASE}/2.json.sig", _json({"key_id": [1], "signature": "x"}),
                              False),
    "sig a number": (f"{BASE}/2.json.sig", _json({"key_id": KEY_ID, "signature": 7}), False),
    "sig not base64": (f"{BASE}/2.json.sig", _json({"key_id": KEY_ID, "signature": "é!"}), False),
    "sig a list": (f"{BASE}/2.json.sig", _json([KEY_ID]), False),
    "bad signature": (f"{BASE}/2.json.sig", _json({"key_id": KEY_ID, "signature": base64.b64encode(
        KEY.sign(ONE)).decode()}), False),
    "bad gzip": (f"{BASE}/2.json", (200, {"Content-Encoding": "gzip"}, b"\x1f\x8bnot gzip"), False),
    "cut gzip": (f"{BASE}/2.json", (200, {"Content-Encoding": "gzip"}, gzip.compress(TWO)[:-30]),
                 False),
    "broken status line": (f"{BASE}/latest", HostileMirror.raw(b"HTTP/1.1 2x0 Fine\r\n\r\n"), False),
    "broken headers": (f"{BASE}/latest", HostileMirror.raw(
        b"HTTP/1.1 302 Found\r\n" + b"X: y\r\n" * 150 + b"\r\n"), False),
    "cut body": (f"{BASE}/2.json", HostileMirror.raw(
        b"HTTP/1.1 200 OK\r\nContent-Length: 9999\r\n\r\n" + TWO[:100]), False),
    "delta a list": (f"{BASE}/1..2.delta.json", _json([DELTA]), True),
    "delta truncated": (f"{BASE}/1..2.delta.json", (200, {}, json.dumps(DELTA).encode()[:200]), True),
    "delta deeply nested": (f"{BASE}/1..2.delta.json", (200, {}, DEEP), True),
    "delta lists a list": (f"{BASE}/1..2.delta.json", (200, {}, _delta(lists=[])), True),
    "delta removes a number": (f"{BASE}/1..2.delta.json", (200, {}, _delta(
        lists={"cards": {"removed": 5}})), True),
    "delta changes a list key": (f"{BASE}/1..2.delta.json", (200, {}, _delta(
        lists={"cards": {"changed": [{"key": ["ding-01"]}]}})), True),
    "delta adds without index": (f"{BASE}/1..2.delta.json", (200, {}, _delta(
        lists={"cards": {"added": [{"index": "x", "item": {"key": "new"}}]}})), True),
    "delta body a string": (f"{BASE}/1..2.delta.json", (200, {}, _delta(set={"body": "x"})), True),
    "delta unset a dict": (f"{BASE}/1..2.delta.json", (200, {}, _delta(unset={"a": 1})), True),
    "delta without to_sha256": (f"{BASE}/1..2.delta.json", (200, {}, json.dumps(
        {k: v for k, v in DELTA.items() if k != "to_sha256"}).encode()), True),
    "delta a deep value": (f"{BASE}/1..2.delta.json", (200, {}, _delta(body_set="@").replace(
        b'"@"', b'{"x":' + b"[" * 900 + b"]" * 900 + b"}")), True),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_every_malformed_answer_is_a_kartothek_error(mirror, tmp_path, name):
    path, answer, holding = HOSTILE[name]
    mirror.routes[path] = answer
    client = _client(mirror, tmp_path, holding=holding, deadline=5)
    with pytest.raises(KartothekError):
        client.update("sauschwer", "de")
    cached = client.cached("sauschwer", "de")
    assert (cached.version if cached else None) == (1 if holding else None)  # nothing kept


def test_a_gzip_bomb_stops_at_the_limit_and_memory_stays_bounded(mirror, tmp_path):
    bomb = gzip.compress(b"\x00" * (200 * 2**20), compresslevel=9)  # 200 MB in ~200 KB
    assert len(bomb) < 2**20
    mirror.routes[f"{BASE}/1..2.delta.json"] = (200, {"Content-Encoding": "gzip"}, bomb)
    client = _client(mirror, tmp_path, holding=True, max_pack_bytes=4 * 2**20)
    tracemalloc.start()
    try:
        with pytest.raises(KartothekError, match=r"inflates to more than .* 4194304 bytes"):
            client.update("sauschwer", "de")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20  # not the 200 MB the bomb holds
    with pytest.raises(KartothekError, match="inflates to more than"):
        inflate(bomb, 1000)
    assert inflate(gzip.compress(b"ab") + gzip.compress(b"cd"), 4) == b"abcd"  # two members


@pytest.mark.parametrize("announced", [True, False])
def test_an_endless_body_is_read_only_up_to_the_limit(mirror, tmp_path, announced):
    mirror.routes[f"{BASE}/2.json"] = mirror.endless(length=10**9 if announced else None)
    client = _client(mirror, tmp_path, holding=False, max_pack_bytes=2**20)
    tracemalloc.start()
    try:
        with pytest.raises(KartothekError, match="larger than this client's limit of 1048576"):
            client.update("sauschwer", "de")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20
    time.sleep(0.2)
    assert mirror.sent < 64 * 2**20  # the client hung up long before the 300 MB were sent


def test_a_small_answer_is_bounded_by_the_smaller_limit(mirror, tmp_path):
    mirror.routes["/api/keys"] = _json({"keys": [], "padding": "x" * 5000})
    with pytest.raises(KartothekError, match="limit of 4096 bytes"):
        _client(mirror, tmp_path, holding=False, max_json_bytes=4096).update("sauschwer", "de")


@pytest.mark.parametrize("where", ["status line", "headers", "body"])
def test_a_slow_drip_ends_at_the_deadline(mirror, tmp_path, where):
    """A byte every 50 ms never trips a one-second read timeout; the deadline ends it."""
    head = {"status line": b"HTTP/1.1 2",
            "headers": b"HTTP/1.1 302 Found\r\nX-Slow: ",
            "body": b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"}[where]
    path = f"{BASE}/2.json" if where == "body" else f"{BASE}/latest"
    mirror.routes[path] = mirror.drip(head)
    client = _client(mirror, tmp_path, holding=False, timeout=1.0, deadline=0.6)
    started = time.monotonic()
    with pytest.raises(KartothekError, match=r"within the deadline of 0\.6 s"):
        client.update("sauschwer", "de")
    assert time.monotonic() - started < 2.0


def test_a_dripped_tls_handshake_ends_at_the_deadline(tmp_path):
    """A mirror over HTTPS may drip its handshake too: a TLS record announced 16 KB long,
    then a byte every 50 ms. The TLS socket is cut at the deadline like any other."""
    dripping = DrippingSocket(b"\x16\x03\x03\x40\x00")
    try:
        client = Client(f"https://127.0.0.1:{dripping.port}", tmp_path, timeout=1.0,
                        deadline=0.6)
        started = time.monotonic()
        with pytest.raises(KartothekError, match=r"within the deadline of 0\.6 s"):
            client.update("sauschwer", "de")
        assert time.monotonic() - started < 2.0
    finally:
        dripping.close()


def test_a_malformed_delta_is_a_delta_error_when_applied_by_hand():
    for delta in ([], {"format": DELTA_FORMAT}, {**DELTA, "lists": {"cards": []}},
                  {**DELTA, "set": {"body": []}}, {**DELTA, "lists": {"cards": {"order": [[]]}}},
                  {**DELTA, "lists": {"cards": {"added": [{"index": True, "item": {}}]}}},
                  {**DELTA, "body_set": {"cards": "x"}, "lists": {"cards": {"removed": []}}}):
        with pytest.raises(DeltaError):
            apply_delta(_pack(1), delta)  # type: ignore[arg-type]
    assert issubclass(DeltaError, KartothekError)
    assert apply_delta(_pack(1), DELTA) == TWO


def test_the_documented_limits_are_the_clients_defaults():
    text = (Path(__file__).resolve().parent.parent / "docs" / "clients.md").read_text("utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| (\d+ (?:s|MiB)) \|", text, flags=re.M))
    unit = {"s": 1, "MiB": 2**20}
    documented = {name: int(value.split()[0]) * unit[value.split()[1]]
                  for name, value in rows.items()}
    defaults = {name: p.default for name, p in inspect.signature(Client).parameters.items()
                if name in ("timeout", "deadline", "max_pack_bytes", "max_json_bytes")}
    assert documented == defaults and len(defaults) == 4
