"""Bad input the fuzzer (make fuzz-api) found accepted: refused with a readable 400, nothing made."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from games.models import Room, Seat
from tests.play.core_helpers import open_room, release_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("cookie", ["yes", 1, None, {}])
def test_a_cookie_flag_that_is_not_true_or_false_makes_no_room_and_no_seat(cookie):
    release_of("slogan")
    data = {"game": "slogan", "language": "en", "name": "Ada", "cookie": cookie}
    response = Client().post("/api/play/rooms", json.dumps(data), content_type="application/json")
    assert response.status_code == 400
    assert "cookie" in response.json()["error"] and not Room.objects.exists()
    host = open_room(Client(), "slogan")
    response = Client().post(f"/api/play/rooms/{host.code}/seats",
                             json.dumps({"name": "Bo", "cookie": cookie}), content_type="application/json")
    assert response.status_code == 400 and Seat.objects.count() == 1
