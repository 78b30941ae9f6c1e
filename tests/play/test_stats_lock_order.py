"""Card statistics are written in one order, so that games finishing at the same moment wait
for each other instead of deadlocking (PostgreSQL aborted one of two such transactions with a
500 under `make load` while both updated the same cards in different orders)."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.models import CardPlayStat, Room
from games.stats import add_game

pytestmark = pytest.mark.django_db


def finished_sauschwer(*cards: str) -> Room:
    log = [{"type": "revealed", "weights": {card: 10 for card in cards}, "doubter": None,
            "heavier": None, "helmut": None}]
    return Room(game="sauschwer", language="en", game_number=1, stats_recorded=0,
                state_json=json.dumps({"log": log}))


def test_card_statistics_are_locked_and_written_in_key_order():
    CardPlayStat.objects.create(game="sauschwer", key="mango")  # one exists, two are new
    with CaptureQueriesContext(connection) as queries:
        add_game(finished_sauschwer("zebra", "apfel", "mango"))
    touched = []
    for query in queries:
        found = re.search(r"(apfel|mango|zebra)", query["sql"])
        if found and (not touched or touched[-1] != found.group(1)):
            touched.append(found.group(1))
    assert touched == ["apfel", "mango", "zebra"]
    assert dict(CardPlayStat.objects.values_list("key", "played")) == {"apfel": 1, "mango": 1, "zebra": 1}
