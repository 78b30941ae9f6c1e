"""Shared by the play mode's service and API tests: releases of the small engine-test packs,
and a thin JSON client that proves its seat with a Bearer token (no cookies, no CSRF)."""

from __future__ import annotations

import itertools
import json
from typing import Any

from django.test import Client

from exports.models import Release
from exports.packs import canonical, sha256
from tests.engines.packs import sauschwer_pack, sign_pack, slogan_pack, symbols_pack

PACKS = {
    "symbols": symbols_pack,
    "sign": sign_pack,
    "slogan": slogan_pack,
    "sauschwer": sauschwer_pack,
}
_ids = itertools.count(1)


def release_of(game: str, language: str = "en", pack: dict[str, Any] | None = None) -> Release:
    """Publish a small pack as the next release of a game (the bytes a real release holds)."""
    pack = dict(pack or PACKS[game]())
    pack["language"] = language
    latest = Release.objects.latest_of(game, language)
    version = (latest.version if latest else 0) + 1
    pack["content_version"] = version
    data = canonical(pack)
    return Release.objects.create(game=game, language=language, version=version,
                                  sha256=sha256(data), body_sha256=pack["sha256"], size=len(data),
                                  data=data)


def all_releases() -> None:
    for game in PACKS:
        release_of(game)


class Player:
    """One client of the API with one seat."""

    def __init__(self, client: Client, code: str, seat: str, token: str) -> None:
        self.client, self.code, self.seat, self.token = client, code, seat, token
        self.etag: str | None = None

    @property
    def auth(self) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Bearer {self.token}"}

    def get(self) -> Any:
        return self.client.get(f"/api/play/rooms/{self.code}", **self.auth)

    def body(self) -> dict[str, Any]:
        response = self.get()
        assert response.status_code == 200, response.content
        return response.json()

    def post(self, path: str, data: Any = None) -> Any:
        return self.client.post(f"/api/play/rooms/{self.code}{path}", json.dumps(data or {}),
                                content_type="application/json", **self.auth)

    def act(self, action: dict[str, Any], version: int | None = None, action_id: str | None = None) -> Any:
        if version is None:
            version = self.body()["version"]
        return self.post("/actions", {"id": action_id or f"a{next(_ids)}", "version": version,
                                      "action": action})


def open_room(client: Client, game: str, name: str = "Ada", **extra: Any) -> Player:
    response = client.post("/api/play/rooms", json.dumps({"game": game, "language": "en",
                                                          "name": name, **extra}),
                           content_type="application/json")
    assert response.status_code == 201, response.content
    data = response.json()
    return Player(client, data["code"], data["seat"], data["token"])


def join(client: Client, code: str, name: str) -> Player:
    response = client.post(f"/api/play/rooms/{code}/seats", json.dumps({"name": name}),
                           content_type="application/json")
    assert response.status_code == 201, response.content
    data = response.json()
    return Player(client, code, data["seat"], data["token"])


def table(game: str, players: int, **extra: Any) -> list[Player]:
    """A started room of ``players`` seats, each with its own cookie-less client."""
    host = open_room(Client(), game, **extra)
    seats = [host] + [join(Client(), host.code, f"P{n}") for n in range(2, players + 1)]
    response = host.post("/start", {})
    assert response.status_code == 200, response.content
    return seats
