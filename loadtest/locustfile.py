"""Load on a served Kartothek: pack API readers and play rooms with bots (tools/load.py runs it).

Two kinds of simulated clients, each with its own keep-alive connection (locust's
geventhttpclient client: cheap enough that 200 of them leave the CPU to the server) and no
cookies:

* ``PackReader`` — a content app: reads the pack index, follows ``latest`` to a release,
  downloads it gzip-compressed, and then polls it with ``If-None-Match`` (a 304 from the
  sha256 alone), now and then a picture.
* ``TablePlayer`` — one human seat of a room whose other seats are server-side bots (they
  move on polls). It polls once a second with the room's ETag (mostly 304s), acts when it
  may (one of its legal actions, chosen at random), and the host starts a new game when one
  ends. An action whose answer got lost (a broken connection, a 5xx) is sent again with the
  same id until an answer comes: the server applies an id once.

Every action the server answered as applied (a 200) is appended to the file named by
``KARTOTHEK_LOAD_ACTIONS`` (JSON lines ``{"code", "seat", "id", "sent_version",
"answered_version"}``),
written at once, so that a fault run can compare it with the rooms' logs in the database.
Every failed request is appended to ``KARTOTHEK_LOAD_FAILURES`` with its time (JSON lines),
so that a fault run can tell failures during a fault from failures after recovery.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from typing import Any

from locust import FastHttpUser, between, constant_pacing, events, task

GAMES = {"sauschwer": 2, "slogan": 2, "symbols": 3, "sign": 4}  # the engines' MIN_PLAYERS
OPTIONAL = {"stop", "sign", "challenge", "replace"}  # rare on purpose: games should go on
JSON = {"Content-Type": "application/json"}


class _Lines:
    """An append-only JSON-lines file, flushed per line (it must survive a killed run)."""

    def __init__(self, variable: str) -> None:
        path = os.environ.get(variable)
        self.file = open(path, "a", encoding="utf-8") if path else None  # noqa: SIM115

    def write(self, record: dict[str, Any]) -> None:
        if self.file is not None:
            self.file.write(json.dumps(record) + "\n")
            self.file.flush()


ACTIONS = _Lines("KARTOTHEK_LOAD_ACTIONS")
FAILURES = _Lines("KARTOTHEK_LOAD_FAILURES")


@events.request.add_listener
def _log_failure(request_type: str, name: str, response_time: float, response_length: int,
                 exception: BaseException | None = None, **_: Any) -> None:
    if exception is not None:
        FAILURES.write({"at": time.time(), "request": f"{request_type} {name}",
                        "error": str(exception)[:300]})


class PackReader(FastHttpUser):
    weight = 3
    wait_time = between(0.5, 2.5)

    def on_start(self) -> None:
        self.releases: list[tuple[str, str]] = []  # (latest URL, its release URL)
        self.etags: dict[str, str] = {}
        self.pictures: list[str] = []
        with self.client.get("/api/packs/", name="GET /api/packs/", catch_response=True) as answer:
            if answer.status_code != 200:
                answer.failure(f"index {answer.status_code}")
                return
            for game in answer.json()["games"]:
                for language in game["languages"]:
                    if language["latest"]:
                        self.releases.append((language["latest"], language["releases"][0]["url"]))

    @task(1)
    def index(self) -> None:
        self.client.get("/api/packs/", name="GET /api/packs/")

    @task(2)
    def latest_then_release(self) -> None:
        if not self.releases:
            return
        latest, _ = random.choice(self.releases)
        with self.client.get(latest, name="GET latest (302)", allow_redirects=False,
                             catch_response=True) as answer:
            if answer.status_code != 302:
                answer.failure(f"latest answered {answer.status_code}")
                return
            target = answer.headers["Location"]
        with self.client.get(target, name="GET release.json (200, gzip)",
                             headers={"Accept-Encoding": "gzip"}, catch_response=True) as answer:
            if answer.status_code != 200:
                answer.failure(f"release answered {answer.status_code}")
                return
            self.etags[target] = answer.headers["ETag"]
            if not self.pictures:
                self.pictures = sorted(set(_picture_urls(answer.json())))[:20]

    @task(8)
    def poll_release(self) -> None:
        if not self.etags:
            return
        target, etag = random.choice(list(self.etags.items()))
        with self.client.get(target, name="GET release.json (304 poll)",
                             headers={"If-None-Match": etag, "Accept-Encoding": "gzip"},
                             catch_response=True) as answer:
            if answer.status_code != 304:
                answer.failure(f"a poll with the release's ETag answered {answer.status_code}")

    @task(1)
    def picture(self) -> None:
        if self.pictures:
            self.client.get(random.choice(self.pictures), name="GET picture.png")


def _picture_urls(pack: Any) -> list[str]:
    """Picture URLs anywhere in a pack (they are /api/pictures/<sha256>.png)."""
    found: list[str] = []
    stack = [pack]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and item.startswith("/api/pictures/") and item.endswith(".png"):
            found.append(item)
    return found


class TablePlayer(FastHttpUser):
    weight = 2
    wait_time = constant_pacing(1.0)

    def on_start(self) -> None:
        self.code = ""
        self.token = ""
        self.seat = ""
        self.etag: str | None = None
        self.body: dict[str, Any] | None = None
        self.pending: dict[str, Any] | None = None  # an action sent whose answer was lost
        self.game = random.choice(sorted(GAMES))
        self.language = random.choice(["de", "en"])
        self.open_room()

    def post(self, path: str, data: dict[str, Any], name: str) -> Any:
        headers = {**JSON, "Authorization": f"Bearer {self.token}"} if self.token else JSON
        return self.client.post(path, data=json.dumps(data), headers=headers, name=name,
                                catch_response=True)

    def open_room(self) -> None:
        with self.post("/api/play/rooms", {"game": self.game, "language": self.language,
                                           "name": "Load", "cookie": False},
                       "POST /api/play/rooms") as answer:
            if answer.status_code != 201:
                answer.failure(f"room creation answered {answer.status_code}: {answer.text[:200]}")
                return
            created = answer.json()
        self.code, self.token, self.seat = created["code"], created["token"], created["seat"]
        base = f"/api/play/rooms/{self.code}"
        for _ in range(GAMES[self.game] - 1):
            with self.post(base + "/bots", {}, "POST rooms/CODE/bots") as answer:
                if answer.status_code != 200:
                    answer.failure(f"adding a bot answered {answer.status_code}")
        with self.post(base + "/start", {}, "POST rooms/CODE/start") as answer:
            if answer.status_code != 200:
                answer.failure(f"start answered {answer.status_code}: {answer.text[:200]}")

    @task
    def play(self) -> None:
        if not self.code:
            self.open_room()
            return
        if self.pending is not None:
            self.send(self.pending)
            return
        headers = {"Authorization": f"Bearer {self.token}"}
        if self.etag:
            headers["If-None-Match"] = self.etag
        with self.client.get(f"/api/play/rooms/{self.code}", headers=headers,
                             name="GET rooms/CODE (poll)", catch_response=True) as answer:
            if answer.status_code == 200:
                self.body, self.etag = answer.json(), answer.headers.get("ETag")
            elif answer.status_code != 304:
                answer.failure(f"poll answered {answer.status_code}: {answer.text[:200]}")
                return
        body = self.body
        if body is None:
            return
        if body["status"] == "finished":
            if body["seats"] and any(s["seat"] == self.seat and s["host"] for s in body["seats"]):
                with self.post(f"/api/play/rooms/{self.code}/again", {},
                               "POST rooms/CODE/again") as answer:
                    if answer.status_code == 200:
                        self.body, self.etag = answer.json(), answer.headers.get("ETag")
                    else:
                        answer.failure(f"again answered {answer.status_code}: {answer.text[:200]}")
            return
        if body["status"] == "closed":
            self.code = ""  # an expired room: open another one
            return
        legal = body.get("legal_actions") or []
        usual = [a for a in legal if a.get("type") not in OPTIONAL]
        choice = random.choice(usual) if usual else (
            random.choice(legal) if legal and random.random() < 0.1 else None)
        if choice is not None:
            self.send({"id": uuid.uuid4().hex, "version": body["version"], "action": choice})

    def send(self, payload: dict[str, Any]) -> None:
        self.pending = payload
        with self.post(f"/api/play/rooms/{self.code}/actions", payload,
                       "POST rooms/CODE/actions") as answer:
            status = answer.status_code
            if status == 200:
                self.body, self.etag = answer.json(), answer.headers.get("ETag")
                # The answer's version may include the bots' moves after this action: the
                # log's version of it lies after the one it was sent at and up to this one.
                ACTIONS.write({"code": self.code, "seat": self.seat, "id": payload["id"],
                               "sent_version": payload["version"],
                               "answered_version": self.body["version"]})
            elif status == 409:  # a bot or the timer was faster: the answer is the fresh room
                self.body, self.etag = answer.json(), answer.headers.get("ETag")
                answer.success()
            elif status == 400:
                answer.failure(f"an action from legal_actions was refused: {answer.text[:200]}")
            else:
                answer.failure(f"action answered {status}: {answer.text[:200]}")
                return  # the outcome is unknown: send the same id again next time
        self.pending = None
