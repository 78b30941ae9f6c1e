"""Nothing secret leaves the server: random games of every game through the HTTP API.

Every seat is a human seat of the room, played by the test with the game's bot
(``games.bots.act`` on the full state, which the test reads from the database); every
answer the API gives (the action's answer, a seat's poll, the table's poll) and every event
each seat's stream and the table's stream would send after each move (the events view's own
look and encoding, ``games.api._look`` and ``_event``, resumed from the last event it sent)
is searched, as JSON text, for what that reader must not know. The secrets are derived from the full state:
other hands, the secret slot, weights before the reveal, other markers, options and answers
before judging, the order of the piles. ``test_the_search_finds_a_leak`` proves the search
fails on a view that leaks.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
from django.test import Client

from games import api, bots, cardids, rooms
from games.models import Room
from tests.engines.packs import slogan_pack
from tests.play.core_helpers import Player, release_of

# SECRECY_GAMES overrides the budget for a quick run by hand.
GAMES_PER_ENGINE = int(os.environ.get("SECRECY_GAMES", "300"))
OPTIONS: dict[str, dict[str, Any]] = {
    "symbols": {"goal": 2},
    "sign": {"rounds": 1},
    "slogan": {},
    "sauschwer": {"rounds": 1, "max_cards": 4},
}
PLAYERS = {"symbols": (3, 5), "sign": (4, 6), "slogan": (2, 5), "sauschwer": (2, 6)}


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _without_events(text_source: dict[str, Any], kinds: set[str]) -> str:
    """The answer's text without the log events that make a secret public on purpose."""
    body = json.loads(json.dumps(text_source))
    view = body.get("view") or {}
    if isinstance(view.get("log"), list):
        view["log"] = [e for e in view["log"] if e.get("type") not in kinds]
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


class Secrets:
    """What one reader (a seat, or None for the table) must not see in the current state."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.public: set[str] = set()  # Sign cards that have been face up at some time

    def observe(self, state: dict[str, Any]) -> None:
        if self.game != "sign":
            return
        if state["phase"] != "checking":  # while the hands are checked the table lies face down
            self.public |= set(state["table"])
        if state.get("bottom_card"):
            self.public.add(state["bottom_card"])
        for event in state["log"]:
            if event["type"] == "sign":
                self.public |= set(event["hand"])
            elif event["type"] == "drop":
                self.public.add(event["card"])

    def problems(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        found = [f"{fragment} in the answer for {reader}"
                 for fragment in getattr(self, f"_{self.game}")(state, reader, body)
                 if fragment in text]
        return found + getattr(self, f"_{self.game}_shape")(state, reader, body)

    # --- fragments of text that must not appear ---

    def _sign(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        hidden = set(state["deck"]) | {card for player, hand in state["hands"].items()
                                       if player != reader for card in hand}
        if reader is not None:
            hidden -= set(state["hands"][reader])
        return [_q(card) for card in sorted(hidden - self.public)]

    def _symbols(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        fragments = [_q(card) for card in state["concepts"]]
        if state["secret"] is not None and reader in (None, state["candidate"]):
            card = state["board"][state["secret"] - 1]
            fragments.append(f'"solution":{_q(card)}')
        return fragments

    def _slogan(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        fragments = [_q(card) for card in state["pile"]]
        fragments += [_q(card) for desk in state["desks"].values() for card in desk]
        card = state.get("card")
        phase = state["phase"]
        if card is None or reader == state["questioner"]:
            return fragments
        texts = _slogan_options(state, card)
        # before judging nobody but the questioner sees the options; in the second chance
        # the questioned player does (and still not the answer, checked in _slogan_shape)
        if phase in ("question", "judge") or (phase == "second_chance" and reader != state["questioned"]):
            fragments += [_q(text) for side in texts for text in side]
        elif phase == "duel" and state.get("duel"):
            duel = state["duel"]
            if reader not in duel["readers"]:
                judged = {a["slogan"] for a in duel["answers"] if a["player"] == duel["challenger"]}
                for number, side in enumerate(_slogan_options(state, duel["card"])):
                    if number not in judged:
                        fragments += [_q(text) for text in side]
        return fragments

    def _sauschwer(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        weighed = set(state["out"])
        fragments = [f"{_q(card)}:{weight}" for card, weight in state["weights"].items()
                     if card not in weighed]
        fragments += [_q(card) for card in state["pile"]]
        return fragments

    # --- secrets that are a key rather than a value ---

    def _sign_shape(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        """A team's secret sign (engines with the "signal" action) is read by that team only."""
        mates = next((team for team in state["teams"] if reader in team), [])
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        return [f"the sign of {event['player']}'s team in the answer for {reader}"
                for event in state["log"]
                if event["type"] == "signal" and event["player"] not in mates
                and f'"type":"signal","round":{event["round"]},"player":{_q(event["player"])}' in text]

    def _symbols_shape(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        hidden = state["secret"] is not None and reader in (None, state["candidate"])
        if hidden and '"secret"' in _without_events(body, {"round_ended"}):
            return [f"the secret slot in the answer for {reader}"]
        return []

    def _slogan_shape(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        if reader == state["questioner"]:
            return []
        view = body.get("view") or {}
        problems = []
        if "answer" in json.dumps(view.get("question", {})):
            problems.append(f"the answer in the question for {reader}")
        if state["phase"] == "question" and "card" in view:
            problems.append(f"the drawn card for {reader}")
        return problems

    def _sauschwer_shape(self, state: dict[str, Any], reader: str | None, body: dict[str, Any]) -> list[str]:
        text = _without_events(body, {"revealed"})
        problems = []
        if '"weight' in text:
            problems.append(f"a weight before the reveal in the answer for {reader}")
        if '"markers":' in text:
            problems.append(f"the markers before the reveal in the answer for {reader}")
        view = body.get("view") or {}
        if reader is None and "your_marker" in view:
            problems.append("a marker on the table")
        return problems


def _slogan_options(state: dict[str, Any], card: str) -> list[list[str]]:
    """The option texts of both slogans of a card, from the state's own catalogue."""
    return [[o["text"] if isinstance(o, dict) else o for o in slogan["options"]]
            for slogan in state["catalogue"]["cards"][card]]


def _check(problems: list[str], game: str, number: int) -> None:
    assert not problems, f"{game} game {number}: {problems[:5]}"


class Ids:
    """The room's card ids: an answer names no card by its pack key (the public pack would
    give away its secrets), and the secrets above are searched in the answer read back into
    pack keys (so a hidden card leaked under its id is still found)."""

    def __init__(self, room: Room) -> None:
        _to_id, self.to_key, _pack = rooms.card_maps(room)
        self.keys = [_q(key) for key in cardids.card_keys(rooms.room_pack(room))]

    def problems(self, secrets: Secrets, state: dict[str, Any], reader: str | None,
                 body: dict[str, Any]) -> list[str]:
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        found = [f"the pack key {key} in the answer for {reader}" for key in self.keys if key in text]
        return found + secrets.problems(state, reader, cardids.translate(body, self.to_key))


def _read_event(raw: bytes) -> tuple[str, str, dict[str, Any]]:
    """One encoded Server-Sent Event read back: ``(id, event, data)``."""
    fields: dict[str, str] = {}
    text = raw.decode()
    assert text.endswith("\n\n") and text.count("\n\n") == 1, text[:200]
    for line in text[:-2].split("\n"):
        name, _, value = line.partition(": ")
        assert name in ("id", "event", "data") and name not in fields, line[:200]
        fields[name] = value
    return fields["id"], fields["event"], json.loads(fields["data"])


class Streams:
    """What every seat's event stream and the table's would send after each move: the events
    view's look at the room, resumed from the version each stream last sent (as the stream
    does after hearing of a new version, and as ``Last-Event-ID`` does on a reconnect)."""

    def __init__(self, code: str, seats: list[Player]) -> None:
        self.code = code
        self.readers: dict[str | None, str | None] = {seat.seat: seat.token for seat in seats}
        self.readers[None] = None  # the table's stream
        self.sent: dict[str | None, int | None] = dict.fromkeys(self.readers)

    def check(self, ids: Ids, secrets: Secrets, room: Room, game: str, number: int) -> None:
        for reader, token in self.readers.items():
            body, _due = api._look(self.code, token and rooms.hash_token(token), self.sent[reader])
            if body is None:  # nothing new for this stream: it must have sent this version
                assert self.sent[reader] == room.version, (reader, self.sent[reader], room.version)
                continue
            event_id, kind, data = _read_event(api._event(body))
            assert kind == "room" and event_id == str(room.version) == str(data["version"])
            assert data["you"] == reader
            _check(ids.problems(secrets, room.state, reader, data), game, number)
            self.sent[reader] = room.version


def play_one(game: str, number: int, rng: random.Random) -> int:
    """One game through the API; returns the number of actions."""
    low, high = PLAYERS[game]
    count = rng.randint(low, high)
    # Opening and seating go through the service (the API's own tests cover them); every
    # action and every answer below goes through HTTP.
    opened, first = rooms.open_room(game=game, language="en", name="P1", options=OPTIONS[game])
    made = [first] + [rooms.join(opened, name=f"P{n}") for n in range(2, count + 1)]
    rooms.start(opened, first)
    client = Client()
    seats = [Player(client, opened.code, seat.seat, seat.token) for seat in made]
    host = seats[0]
    by_id: dict[str, Player] = {seat.seat: seat for seat in seats}
    table = Client()
    secrets = Secrets(game)
    steps = 0
    room = Room.objects.get(code=host.code)
    ids = Ids(room)
    streams = Streams(host.code, seats)
    secrets.observe(room.state)
    streams.check(ids, secrets, room, game, number)
    while room.status != "finished":
        state = room.state
        secrets.observe(state)
        order = list(by_id)
        rng.shuffle(order)
        for seat_id in order:
            action = bots.act(game, state, seat_id, rng)
            if action is not None:
                break
        else:
            pytest.fail(f"{game} game {number}: every seat passes")
        response = by_id[seat_id].act(action, room.version, action_id=f"s{steps}")
        assert response.status_code == 200, response.content
        steps += 1
        room = Room.objects.get(code=host.code)
        after = room.state
        secrets.observe(after)
        _check(ids.problems(secrets, after, seat_id, response.json()), game, number)
        streams.check(ids, secrets, room, game, number)
        # another seat's poll and the table's, now and then
        if steps % 2 == 0:
            other = by_id[rng.choice(order)]
            _check(ids.problems(secrets, after, other.seat, other.body()), game, number)
        if steps % 3 == 0:
            body = table.get(f"/api/play/rooms/{host.code}").json()
            _check(ids.problems(secrets, after, None, body), game, number)
        assert steps < 3000, f"{game} game {number} does not end"
    return steps


@pytest.fixture
def small_releases(db):
    for game in ("symbols", "sign", "sauschwer"):
        release_of(game)
    release_of("slogan", pack=slogan_pack(n_cards=6))


@pytest.mark.slow
@pytest.mark.parametrize("game", ["symbols", "sign", "slogan", "sauschwer"])
def test_no_answer_carries_a_secret(small_releases, game):
    rng = random.Random(f"secrecy-{game}")
    total = sum(play_one(game, number, rng) for number in range(GAMES_PER_ENGINE))
    assert total > GAMES_PER_ENGINE


def _leak_secret_slot(state: dict[str, Any], view: dict[str, Any]) -> None:
    if state["secret"] is not None:
        view["secret"] = state["secret"]


def _leak_hands(state: dict[str, Any], view: dict[str, Any]) -> None:
    view["hands"] = {player: list(hand) for player, hand in state["hands"].items()}


def _leak_signals(state: dict[str, Any], view: dict[str, Any]) -> None:
    view["log"] = [*view.get("log", []), *(e for e in state["log"] if e["type"] == "signal")]


def _leak_options(state: dict[str, Any], view: dict[str, Any]) -> None:
    if state.get("card"):
        view["peek"] = _slogan_options(state, state["card"])


def _leak_weights(state: dict[str, Any], view: dict[str, Any]) -> None:
    view["scale"] = [{**placed, "weight_g": state["weights"][placed["card"]]}
                     for placed in state["scale"]]


def _leak_markers(state: dict[str, Any], view: dict[str, Any]) -> None:
    view["markers"] = dict(state["markers"])


def _leak_whole_state(state: dict[str, Any], view: dict[str, Any]) -> None:
    view.update(json.loads(json.dumps(state)))


@pytest.mark.parametrize("game, leak", [
    ("symbols", _leak_secret_slot), ("symbols", _leak_whole_state),
    ("sign", _leak_hands), ("sign", _leak_signals), ("sign", _leak_whole_state),
    ("slogan", _leak_options), ("slogan", _leak_whole_state),
    ("sauschwer", _leak_weights), ("sauschwer", _leak_markers), ("sauschwer", _leak_whole_state),
])
def test_the_search_finds_a_leak(small_releases, game, leak, monkeypatch):
    """Answers that leak one kind of secret must be caught within a few games."""
    from games import engines

    if leak is _leak_signals and "signal" not in getattr(engines.get("sign"), "HANDLED", ()):
        pytest.skip("this Sign engine has no team signs")
    honest = rooms.snapshot

    def leaky(room, seat):  # type: ignore[no-untyped-def]
        body = honest(room, seat)
        if body["view"] is not None:
            leak(rooms.room_state(room), body["view"])
        return body

    monkeypatch.setattr(rooms, "snapshot", leaky)
    rng = random.Random(f"leak-{game}")
    with pytest.raises(AssertionError, match="in the answer for"):
        for number in range(5):
            play_one(game, number, rng)


@pytest.mark.parametrize("game, leak", [
    ("symbols", _leak_secret_slot), ("sign", _leak_hands),
    ("slogan", _leak_options), ("sauschwer", _leak_weights),
])
def test_the_search_finds_a_leak_only_the_stream_carries(small_releases, game, leak, monkeypatch):
    """The answers to actions and polls stay honest; only the events view's look leaks.
    The stream's check must catch it on its own."""
    honest = api._look

    def leaky(code, token, sent):  # type: ignore[no-untyped-def]
        body, due = honest(code, token, sent)
        if body is not None and body["view"] is not None:
            leak(rooms.room_state(Room.objects.get(code=code)), body["view"])
        return body, due

    monkeypatch.setattr(api, "_look", leaky)
    rng = random.Random(f"stream-leak-{game}")
    with pytest.raises(AssertionError, match="in the answer for"):
        for number in range(5):
            play_one(game, number, rng)
