"""The chaos party: a full game of each game in Chromium, a table screen (1280×800) and the
phones (360×740) on a real ASGI server with real event streams, and after each step a random
disturbance to a random screen: a reload, the network gone for a while (5–20 s in the long
run), the stream cut by the server, a second tab of the same seat, a double tap. After every
step every screen shows the room's current version within 3 s, and nothing it shows belongs
to another seat (tests/play/chaos_helpers.py).

Seeded: ``KARTOTHEK_CHAOS_SEED=N`` replays a run (a failure prints its seed and step log).
The short run here is CI's (one game each, seed 39, offline spans of about a second); ``make
chaos`` is the long run (``KARTOTHEK_CHAOS_LONG=1``: fresh seeds, the games' own lengths, the
real 5–20 s offline spans).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.engines.packs import slogan_pack
from tests.play.chaos_helpers import Party, env_seed
from tests.play.sse_helpers import Server
from tests.play.ui_helpers import fresh_room_caches  # noqa: F401  (autouse)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LONG = os.environ.get("KARTOTHEK_CHAOS_LONG") == "1"
RUNS = int(os.environ.get("KARTOTHEK_CHAOS_RUNS", "3" if LONG else "1"))
OFFLINE = (5.0, 20.0) if LONG else (0.5, 1.5)

# Short games in CI; the long run plays the games' own lengths (Sign three rounds).
GAMES = {
    "symbols": {"players": 3, "options": {} if LONG else {"goal": 4}},
    "sign": {"players": 4, "options": {"rounds": 3 if LONG else 1}},  # Sign needs four players
    "slogan": {"players": 3, "pack": slogan_pack(n_cards=12 if LONG else 6)},
    "slogan-uk": {"game": "slogan", "market": "GB", "players": 3, "pack": slogan_pack(n_cards=6)},
    "sauschwer": {"players": 3, "options": {} if LONG else {"rounds": 2, "max_cards": 4}},
}


@pytest.fixture
def server(transactional_db, settings) -> Iterator[Server]:  # type: ignore[no-untyped-def]
    # Every screen here comes from one address: the per-client caps would count a whole party
    # as one phone (each phone of a real party has its own).
    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    settings.KARTOTHEK_PLAY_STREAMS_PER_CLIENT = 0
    settings.KARTOTHEK_PLAY_WRITE_LIMIT = 0
    settings.KARTOTHEK_PLAY_RATE_LIMIT = 0
    with Server() as running:
        yield running


@pytest.mark.parametrize("run", range(RUNS))
@pytest.mark.parametrize("game", list(GAMES))
def test_every_screen_catches_up_and_keeps_its_secrets_through_a_chaotic_game(server, browser, game, run):
    seed = env_seed(None if LONG else 39) + run
    setup = dict(GAMES[game])
    party = Party(browser, server, setup.pop("game", game), seed, offline_span=OFFLINE, **setup)
    print(f"KARTOTHEK_CHAOS_SEED={seed} ({game})")
    try:
        steps = party.play()
    finally:
        party.close()
    print(f"{steps} steps, {party.taps} taps, {party.teeth} screens read as another seat caught")
    assert party.taps > 3, party.log
