"""Fuzzing the reference client with a hostile mirror (issue 38, finding 4): genuine answers
of the live app (a real catalogue, two releases, a delta) are recorded, then a seeded random
generator damages one or two of them per case (bytes flipped or cut, a JSON value swapped for
a wrong type or nesting, a field dropped, another status, broken headers, gzip, a bomb).
Every case ends in a genuine pack or a ``KartothekError``, never any other exception, and
nothing but a genuine release is ever cached."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import random
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from cards.models import SauschwerObject
from exports import api, signing
from exports.packs import publish
from kartothek_client import Client, KartothekError, Pack
from tests.hostile_server import Canned, HostileMirror

pytestmark = pytest.mark.django_db(transaction=True)

BASE = "/api/packs/sauschwer/de"
PATHS = ["/api/keys", "/api/timestamp", f"{BASE}/latest", f"{BASE}/1..2.delta.json", f"{BASE}/2.json",
         f"{BASE}/2.json.sig"]
KEPT_HEADERS = ("etag", "x-kartothek-signature", "location", "content-type")
CASES = 400
DEEP = "[" * 60_000 + "]" * 60_000
BOMB = gzip.compress(b"\x00" * (16 * 2**20), compresslevel=9)  # 16 MB in 16 KB


@pytest.fixture(autouse=True)
def _fresh_caches():
    signing.signing_key.cache_clear()
    for cached in vars(api).values():
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def _record(url: str) -> Canned:
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(url) as answer:
            status, headers, body = answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as exc:  # the 302 of latest
        status, headers, body = exc.code, exc.headers, exc.read()
    return status, {k: v for k, v in headers.items() if k.lower() in KEPT_HEADERS}, body


@pytest.fixture
def recorded(mini_catalogue, live_server) -> dict[str, Canned]:
    """The live app's answers to a client going from release 1 to release 2."""
    for i in range(40):
        SauschwerObject.objects.create(key=f"ding-{i:02}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key="ding-03").update(weight_g=333)
    SauschwerObject.objects.create(key="ding-99", name="Ding 99", weight_g=99, source="test")
    publish("sauschwer", "de")
    answers = {path: _record(live_server.url + path) for path in [*PATHS, f"{BASE}/1.json"]}
    assert answers[f"{BASE}/latest"][0] == 302
    assert answers[f"{BASE}/1..2.delta.json"][0] == 200
    return answers


# --- damage ------------------------------------------------------------------------------------

def _evil(rng: random.Random) -> Any:
    return rng.choice([None, True, False, 0, -1, 1.5, 2**64, 10**400, "", "x" * rng.randrange(1, 9),
                       "%%%", "\u00e9\u0000", [], {}, [None], {"key": []}, {"key": "ding-00"},
                       [{"index": -1, "item": {}}], "@DEEP@"])


def _nodes(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a JSON value, found without recursion."""
    found, todo = [], [value]
    while todo:
        node = todo.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, child in pairs:
            found.append((node, key))
            todo.append(child)
    return found


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).replace('"@DEEP@"', DEEP).encode()


def _damage_json(rng: random.Random, body: bytes) -> bytes | None:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    nodes = _nodes(value)
    how = rng.randrange(4)
    if how == 0 or not nodes:  # the whole answer another type
        return _dumps(rng.choice([_evil(rng), [value], {"x": value}]))
    container, key = rng.choice(nodes)
    if how == 1 and isinstance(container, dict):
        del container[key]
    elif how == 2 and isinstance(container, list):
        container.append(_evil(rng))
    else:
        container[key] = _evil(rng)
    return _dumps(value)


def _damage(rng: random.Random, path: str, answer: Canned) -> Canned:
    status, headers, body = answer[0], dict(answer[1]), answer[2]
    how = rng.choice(["flip", "cut", "noise", "json", "json", "json", "status", "header",
                      "gzip", "deep"])
    if how == "flip" and body:
        damaged = bytearray(body)
        for _ in range(rng.randrange(1, 9)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        body = bytes(damaged)
    elif how == "cut":
        body = body[:rng.randrange(len(body) + 1)]
    elif how == "noise":
        body = rng.randbytes(rng.randrange(2000))
    elif how == "json":
        body = _damage_json(rng, body) or body[: len(body) // 2]
    elif how == "status":
        status = rng.choice([200, 204, 301, 302, 303, 304, 400, 404, 410, 500, 503])
    elif how == "header":
        name = rng.choice(["ETag", "X-Kartothek-Signature", "Location", "Content-Length"])
        headers[name] = rng.choice(["", '"0"', "keyid=zz, ed25519=!!!", f"{BASE}/99999999999.json",
                                    f"{BASE}/0.json", "/../../etc/passwd", "-1", "10",
                                    f"{BASE}/{'9' * 400}.json", "x" * 3000])
        if name != "Content-Length" and rng.random() < 0.3:
            headers.pop(name, None)
    elif how == "gzip":
        headers["Content-Encoding"] = "gzip"
        body = rng.choice([gzip.compress(body), gzip.compress(body)[:-9], body, BOMB,
                           gzip.compress(body) + b"junk"])
    elif how == "deep":
        body = DEEP.encode()
    if path == f"{BASE}/2.json" and rng.random() < 0.5:  # the sha256 made to match: the
        headers["ETag"] = f'"{hashlib.sha256(body).hexdigest()}"'  # signature must refuse it
    return status, headers, body


# --- the fuzz test ----------------------------------------------------------------------------

def test_a_fuzzed_mirror_gives_a_genuine_pack_or_a_kartothek_error(recorded, tmp_path):
    one, two = recorded[f"{BASE}/1.json"][2], recorded[f"{BASE}/2.json"][2]
    keys = {k["id"]: k["public_key"] for k in json.loads(recorded["/api/keys"][2])["keys"]}
    key_id = next(iter(keys))
    mirror = HostileMirror()

    def run(case: int, routes: dict[str, Any], holding: bool) -> Pack | KartothekError:
        mirror.routes = routes
        folder = tmp_path / str(case)
        client = Client(mirror.url, folder, deadline=5, max_json_bytes=256 * 1024,
                        max_pack_bytes=4 * 2**20)
        if holding:
            folder.mkdir()
            (folder / "keys.json").write_text(json.dumps(keys))
            client._keep(Pack("sauschwer", "de", 1, one, hashlib.sha256(one).hexdigest(),
                              key_id, "full"))
        try:
            result: Pack | KartothekError = client.update("sauschwer", "de")
        except KartothekError as exc:
            result = exc
        except Exception as exc:  # the finding: anything else escaped
            pytest.fail(f"case {case}: {exc.__class__.__name__}: {exc} from {mirror.asked[-1:]}")
        kept = client.cached("sauschwer", "de")
        assert kept is None or kept.data in (one, two), f"case {case}: kept a forged pack"
        if isinstance(result, Pack):
            assert result.data in (one, two), f"case {case}: returned a forged pack"
        return result

    try:
        genuine = {path: recorded[path] for path in PATHS}
        assert run(-1, genuine, holding=True).how == "delta"  # type: ignore[union-attr]
        assert run(-2, genuine, holding=False).how == "full"  # type: ignore[union-attr]
        started, outcomes = time.monotonic(), {"pack": 0, "error": 0}
        for case in range(CASES):
            rng = random.Random(case)
            routes = dict(genuine)
            if rng.random() < 0.5:  # without the header the client asks for the .sig
                status, headers, body = routes[f"{BASE}/2.json"]
                routes[f"{BASE}/2.json"] = (status, {k: v for k, v in headers.items()
                                                     if k.lower() != "x-kartothek-signature"},
                                            body)
            for path in rng.sample(PATHS, rng.choice([1, 1, 2])):
                routes[path] = _damage(rng, path, routes[path])
            result = run(case, routes, holding=rng.random() < 0.5)
            outcomes["pack" if isinstance(result, Pack) else "error"] += 1
        assert time.monotonic() - started < 20
        assert outcomes["error"] > CASES / 3 and outcomes["pack"] > 0, outcomes  # both were met
    finally:
        mirror.close()


def test_the_recorded_key_is_the_servers(recorded):
    """The fuzz test's genuine answers are the app's own: its key, its signed release 2."""
    listed = json.loads(recorded["/api/keys"][2])["keys"]
    assert [k["public_key"] for k in listed] == [k["public_key"] for k in signing.public_keys()]
    sig = json.loads(recorded[f"{BASE}/2.json.sig"][2])
    assert base64.b64decode(sig["signature"]) and sig["key_id"] == listed[0]["id"]
