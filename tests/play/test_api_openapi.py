"""The play API in exports/schema/openapi.json: every URL of games/api_urls.py is described (and
nothing else), and a live session answers every described status with the described body."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client, override_settings
from django.urls import resolve
from jsonschema import Draft202012Validator

from games import api, api_urls, rooms
from games.models import Room
from tests.play.core_helpers import all_releases
from tests.test_openapi import BASE, REGISTRY, SPEC, _get, _pointer

PLAY_PATHS = {t: item for t, item in SPEC["paths"].items() if t.startswith("/api/play/")}
METHODS = ("get", "post", "put", "patch", "delete")
PATTERNS = [p for p in api_urls.urlpatterns if p.callback is not api.not_found]
EVENTS = "/api/play/rooms/{code}/events"  # an endless stream: checked over a real server below


def _template_of(pattern: Any) -> str:
    return "/api/play/" + re.sub(r"<(?:[^>:]+:)?[^>]+>", "{}", str(pattern.pattern))


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: str(p.pattern))
def test_every_url_of_the_play_api_is_described(pattern):
    described = {re.sub(r"\{[^}/]+\}", "{}", t) for t in PLAY_PATHS}
    assert _template_of(pattern) in described, f"{pattern.pattern} is not described"


@pytest.mark.parametrize("template", PLAY_PATHS)
def test_every_described_play_path_is_served_with_its_methods(template):
    url = template.replace("{code}", "K7XQM4TW").replace("{seat}", "p2")
    match = resolve(url)
    assert match.func is not api.not_found and match.namespace == "play_api", template
    methods = {m.upper() for m in PLAY_PATHS[template] if m in METHODS}
    other = {"GET", "POST"} - methods - ({"GET"} if "POST" in methods else set())
    for method in other:
        response = off_loop(lambda method=method: getattr(Client(), method.lower())(url))
        assert response.status_code == 405, (template, method)


def off_loop(call: Any) -> Any:
    """Run a test-client request in a thread of its own: the client runs an async view (the
    event stream) through async_to_sync, which refuses a thread that has a running event loop,
    as Playwright's sync API leaves in the test thread after a browser test."""
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.setdefault("answer", call()))
    worker.start()
    worker.join()
    return result["answer"]


def _curator() -> User:
    user = User.objects.create_user("carla", password="pw-karten-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    return user


class Session:
    """Requests against the live API; each answer is kept with the described path and method."""

    def __init__(self) -> None:
        self.answers: list[tuple[str, str, Any, str]] = []

    def call(self, template: str, method: str, url: str, *, token: str | None = None,
             data: Any = None, raw: str | None = None, client: Client | None = None,
             **headers: str) -> Any:
        client = client or Client()
        if token:
            headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        if method == "get":
            response = client.get(url, **headers)
        else:
            payload = raw if raw is not None else json.dumps(data if data is not None else {})
            response = client.post(url, payload, content_type="application/json", **headers)
        self.answers.append((template, method, response, f"{method.upper()} {url}"))
        return response


@pytest.mark.django_db
def test_live_play_answers_match_the_description():
    all_releases()
    s = Session()
    R = "/api/play/rooms"
    # --- open a room, join, start ---
    created = s.call(R, "post", R, data={"game": "sauschwer", "language": "en", "name": "Ada"}).json()
    code, host = created["code"], created["token"]
    room_t, seats_t = R + "/{code}", R + "/{code}/seats"
    s.call(R, "post", R, data={"game": "chess", "language": "en", "name": "A"})  # 400
    s.call(R, "post", R, data={"game": "sign", "language": "en", "name": "A", "seed": 1})  # 403
    s.call(R, "post", R, data={"game": "sign", "language": "en", "name": "A", "release": 99})  # 404
    with override_settings(KARTOTHEK_PLAY_RATE_LIMIT=1):
        for _ in range(2):
            spare = s.call(R, "post", R, data={"game": "slogan", "language": "en", "name": "A"},
                           REMOTE_ADDR="10.9.9.9")  # 201 then 429
        spare_code = Room.objects.exclude(code=code).get(game="slogan").code
        for _ in range(2):
            s.call(seats_t, "post", f"{R}/{spare_code}/seats", data={"name": "X"},
                   REMOTE_ADDR="10.9.9.8")  # 201 then 429
    assert spare.status_code == 429
    guest = s.call(seats_t, "post", f"{R}/{code}/seats", data={"name": "Bo"}).json()["token"]
    s.call(seats_t, "post", f"{R}/{code}/seats", data={"name": ""})  # 400
    s.call(seats_t, "post", f"{R}/ZZZZZ/seats", data={"name": "C"})  # 404
    start_t = R + "/{code}/start"
    sign = s.call(R, "post", R, data={"game": "sign", "language": "en", "name": "S"}).json()
    s.call(start_t, "post", f"{R}/{sign['code']}/start", token=sign["token"])  # 400: too few
    s.call(start_t, "post", f"{R}/{code}/start", token=guest)  # 403
    s.call(start_t, "post", f"{R}/ZZZZZ/start", token=host)  # 404
    # bots, teams in the lobby
    bots_t, teams_t = R + "/{code}/bots", R + "/{code}/teams"
    s.call(bots_t, "post", f"{R}/{sign['code']}/bots", token=sign["token"])  # 200
    s.call(bots_t, "post", f"{R}/{sign['code']}/bots", token=sign["token"], raw="{")  # 400
    s.call(bots_t, "post", f"{R}/{sign['code']}/bots", token=guest)  # 403
    s.call(bots_t, "post", f"{R}/ZZZZZ/bots", token=host)  # 404
    for _ in range(2):
        s.call(bots_t, "post", f"{R}/{sign['code']}/bots", token=sign["token"])
    s.call(teams_t, "post", f"{R}/{sign['code']}/teams", token=sign["token"],
           data={"teams": [["p1", "p2", "p3"], ["p4"]]})  # 400
    s.call(teams_t, "post", f"{R}/{sign['code']}/teams", token=guest, data={"teams": []})  # 403
    s.call(teams_t, "post", f"{R}/ZZZZZ/teams", token=host, data={"teams": []})  # 404
    s.call(teams_t, "post", f"{R}/{sign['code']}/teams", token=sign["token"],
           data={"teams": [["p1", "p3"], ["p2", "p4"]]})  # 200
    s.call(start_t, "post", f"{R}/{code}/start", token=host)  # 200
    s.call(start_t, "post", f"{R}/{code}/start", token=host)  # 409
    s.call(seats_t, "post", f"{R}/{code}/seats", data={"name": "Late"})  # 409
    s.call(bots_t, "post", f"{R}/{code}/bots", token=host)  # 409: started
    s.call(start_t, "post", f"{R}/{sign['code']}/start", token=sign["token"])
    s.call(teams_t, "post", f"{R}/{sign['code']}/teams", token=sign["token"],
           data={"teams": [["p1", "p3"], ["p2", "p4"]]})  # 409: started
    # --- the room, polled ---
    first = s.call(room_t, "get", f"{R}/{code}", token=host)
    s.call(room_t, "get", f"{R}/{code}", token=host, HTTP_IF_NONE_MATCH=first["ETag"])  # 304
    s.call(room_t, "get", f"{R}/{code}", token="nope")  # 403
    s.call(room_t, "get", f"{R}/ZZZZZ")  # 404
    # --- stream tickets ---
    tickets_t = R + "/{code}/stream-tickets"
    s.call(tickets_t, "post", f"{R}/{code}/stream-tickets", token=guest)  # 201
    s.call(tickets_t, "post", f"{R}/{code}/stream-tickets", token=guest, raw="{")  # 400
    s.call(tickets_t, "post", f"{R}/{code}/stream-tickets", token="nope")  # 403
    s.call(tickets_t, "post", f"{R}/ZZZZZ/stream-tickets", token=guest)  # 404
    with override_settings(KARTOTHEK_PLAY_WRITE_LIMIT=1):
        for _ in range(2):
            s.call(tickets_t, "post", f"{R}/{code}/stream-tickets", token=guest,
                   REMOTE_ADDR="10.9.9.7")  # 201 then 429
    # --- actions ---
    act_t = R + "/{code}/actions"
    body = first.json()
    tokens = {"p1": host, "p2": guest}
    active = body["view"]["active"]
    other = "p2" if active == "p1" else "p1"
    place = next(a for a in s.call(room_t, "get", f"{R}/{code}", token=tokens[active]).json()["legal_actions"]
                 if a["type"] == "place")
    s.call(act_t, "post", f"{R}/{code}/actions", token=tokens[active],
           data={"id": "bad", "version": body["version"],
                 "action": {"type": "place", "card": "x", "helmut": "red"}})  # 400
    s.call(act_t, "post", f"{R}/{code}/actions", data={"id": "a", "version": 1, "action": place})  # 403
    s.call(act_t, "post", f"{R}/ZZZZZ/actions", token=host, data={})  # 404
    s.call(act_t, "post", f"{R}/{code}/actions", token=tokens[active],
           data={"id": "a1", "version": body["version"], "action": place})  # 200
    s.call(act_t, "post", f"{R}/{code}/actions", token=tokens[other],
           data={"id": "a2", "version": body["version"], "action": {"type": "stop"}})  # 409 stale
    # --- seat controls ---
    for name in ("remove", "away", "host", "bot"):
        template = R + "/{code}/seats/{seat}/" + name
        s.call(template, "post", f"{R}/{code}/seats/p1/{name}", token=guest)  # 403
        s.call(template, "post", f"{R}/{code}/seats/p9/{name}", token=host)  # 404
    s.call(R + "/{code}/seats/{seat}/remove", "post", f"{R}/{code}/seats/p1/remove", token=host)  # 400
    s.call(R + "/{code}/seats/{seat}/away", "post", f"{R}/{code}/seats/p2/away", token=host,
           data={"away": "yes"})  # 400
    s.call(R + "/{code}/seats/{seat}/away", "post", f"{R}/{code}/seats/p2/away", token=host,
           data={"away": False})  # 200
    s.call(R + "/{code}/seats/{seat}/bot", "post", f"{R}/{code}/seats/p1/bot", token=host)  # 400
    s.call(R + "/{code}/seats/{seat}/host", "post", f"{R}/{sign['code']}/seats/p2/host",
           token=sign["token"])  # 400: p2 is a bot
    s.call(R + "/{code}/seats/{seat}/host", "post", f"{R}/{code}/seats/p2/host", token=host)  # 200
    s.call(R + "/{code}/seats/{seat}/host", "post", f"{R}/{code}/seats/p1/host", token=guest)  # 200
    # --- again and replay, on a game bots finished ---
    again_t, replay_t = R + "/{code}/again", R + "/{code}/replay"
    s.call(again_t, "post", f"{R}/{code}/again", token=host)  # 400: still running
    s.call(again_t, "post", f"{R}/{code}/again", token=guest)  # 403
    s.call(again_t, "post", f"{R}/ZZZZZ/again", token=host)  # 404
    s.call(replay_t, "get", f"{R}/{code}/replay")  # 403: still running
    s.call(replay_t, "get", f"{R}/ZZZZZ/replay")  # 404
    s.call(R + "/{code}/seats/{seat}/host", "post", f"{R}/{code}/seats/p2/host", token=host)
    s.call(R + "/{code}/seats/{seat}/bot", "post", f"{R}/{code}/seats/p1/bot", token=guest)  # 200
    s.call(R + "/{code}/seats/{seat}/away", "post", f"{R}/{code}/seats/p2/away", token=guest)
    assert Room.objects.get(code=code).status == "finished"
    s.call(replay_t, "get", f"{R}/{code}/replay")  # 200
    s.call(replay_t, "get", f"{R}/{code}/replay?game=x")  # 400
    s.call(again_t, "post", f"{R}/{code}/again", token=guest)  # 200
    lobby = s.call(R, "post", R, data={"game": "slogan", "language": "en", "name": "L"}).json()
    joined = s.call(seats_t, "post", f"{R}/{lobby['code']}/seats", data={"name": "M"}).json()
    s.call(R + "/{code}/seats/{seat}/remove", "post", f"{R}/{lobby['code']}/seats/{joined['seat']}/remove",
           token=lobby["token"])  # 200
    assert rooms  # the service is what answered

    described = {(t, m, status) for t, item in PLAY_PATHS.items() for m in METHODS if m in item
                 for status in item[m]["responses"] if t != EVENTS}
    covered = {(t, m, str(r.status_code)) for t, m, r, _ in s.answers}
    assert described - covered == set(), "described but never answered"
    assert covered - described == set(), "answered but not described"
    problems = []
    for template, method, response, where in s.answers:
        parts, node = _get("paths", template, method, "responses", str(response.status_code))
        for header in node.get("headers", {}):
            if not response.has_header(header):
                problems.append(f"{where}: no {header} header")
        content = node.get("content")
        if not content:
            if response.content:
                problems.append(f"{where}: a body where none is described")
            continue
        schema = {"$ref": BASE + _pointer([*parts, "content", "application/json", "schema"])}
        for error in Draft202012Validator(schema, registry=REGISTRY).iter_errors(response.json()):
            problems.append(f"{where} {response.status_code}: {error.message[:200]}")
            break
    assert not problems, "\n".join(problems)


@pytest.mark.django_db(transaction=True)
def test_the_event_stream_answers_match_the_description():
    """The stream's statuses, its media type and its JSON errors, from uvicorn on loopback."""
    import httpx

    from tests.play.sse_helpers import Server, stream

    all_releases()
    room, seat = rooms.open_room(game="sauschwer", language="en", name="Ada")
    described = SPEC["paths"][EVENTS]["get"]["responses"]
    answered = {}
    with override_settings(ALLOWED_HOSTS=["127.0.0.1"]), Server() as server:
        url = f"{server.url}/api/play/rooms/{room.code}/events"
        with stream(url, {"Authorization": f"Bearer {seat.token}"}) as events:
            assert "text/event-stream" in described[str(events.status)]["content"]
            assert events.headers["content-type"].startswith("text/event-stream")
            assert events.headers["cache-control"] == "private, no-cache"
            assert events.next().body["code"] == room.code
            answered[events.status] = None
        for response in (httpx.get(url, headers={"Authorization": "Bearer nope"}),
                         httpx.get(url.replace(room.code, "ZZZZZ"))):
            parts, _node = _get("paths", EVENTS, "get", "responses", str(response.status_code))
            schema = {"$ref": BASE + _pointer([*parts, "content", "application/json", "schema"])}
            assert not list(Draft202012Validator(schema, registry=REGISTRY).iter_errors(response.json()))
            answered[response.status_code] = None
        with override_settings(KARTOTHEK_PLAY_STREAMS_PER_CLIENT=1), stream(url) as held:
            assert held.next().body["code"] == room.code
            response = httpx.get(url)  # this client's second stream: over its cap
            parts, _node = _get("paths", EVENTS, "get", "responses", str(response.status_code))
            assert response.status_code == 429 and response.headers["Retry-After"]
            schema = {"$ref": BASE + _pointer([*parts, "content", "application/json", "schema"])}
            assert not list(Draft202012Validator(schema, registry=REGISTRY).iter_errors(response.json()))
            answered[response.status_code] = None
    wsgi = off_loop(lambda: Client().get(f"/api/play/rooms/{room.code}/events"))  # Django's WSGI handler
    assert wsgi.status_code == 503 and "ASGI" in wsgi.json()["error"]
    answered[503] = None
    assert sorted(map(str, answered)) == sorted(described)
