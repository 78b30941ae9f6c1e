"""The play mode's management commands: publish_starter (make run) and expire_rooms."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from cards.catalogue import import_catalogue
from exports.models import Release
from games.models import Room
from tests.conftest import STARTER
from tests.play.core_helpers import all_releases, open_room, table

pytestmark = pytest.mark.django_db


def test_make_run_calls_publish_starter_after_the_catalogue():
    from tests.conftest import ROOT

    makefile = (ROOT / "Makefile").read_text()
    run = makefile[makefile.index("\nrun:"):makefile.index("\n## test")]
    assert run.index("import_catalogue") < run.index("publish_starter") < run.index("uvicorn kartothek.asgi")


@pytest.mark.slow
def test_publish_starter_publishes_each_game_and_language_once(run_command):
    assert not import_catalogue(STARTER).errors
    status, out, err = run_command("publish_starter")
    assert status == 0, err
    pairs = set(Release.objects.values_list("game", "language"))
    assert pairs == {(g, lang) for g in ("symbols", "sign", "slogan", "sauschwer")
                     for lang in ("de", "en")} | {("slogan", "en-GB"), ("slogan", "en-US")}
    assert set(Release.objects.values_list("version", flat=True)) == {1}
    status, out, _ = run_command("publish_starter")
    assert status == 0 and "nothing published" in out
    assert Release.objects.count() == 10
    # and the fresh installation can open a room of each game, English Slogan in each market
    for game in ("symbols", "sign", "slogan", "sauschwer"):
        open_room(Client(), game)
    for market in ("GB", "US"):
        open_room(Client(), "slogan", market=market)


def test_publish_starter_leaves_a_game_with_a_release_alone(run_command, mini_catalogue):
    all_releases()  # every game has an English release already
    status, _out, err = run_command("publish_starter")
    assert status == 0, err
    assert Release.objects.filter(language="en").count() == 4  # nothing new where one exists
    assert set(Release.objects.filter(language="de").values_list("game", flat=True)) == {
        "symbols", "sign", "slogan", "sauschwer"}


def _age(code: str, hours: int) -> None:
    Room.objects.filter(code=code).update(last_activity=timezone.now() - timedelta(hours=hours))


def test_expire_rooms_closes_idle_rooms_and_finished_ones_after_their_own_time(run_command, settings):
    all_releases()
    settings.KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS = 2
    settings.KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS = 4
    idle = open_room(Client(), "sauschwer")
    fresh = open_room(Client(), "sauschwer")
    done, _ = table("sauschwer", 2)
    old, _ = table("sauschwer", 2)
    Room.objects.filter(code__in=[done.code, old.code]).update(status="finished")
    for code in (idle.code, done.code):
        _age(code, 3)
    _age(old.code, 5)
    status, out, _ = run_command("expire_rooms")
    assert status == 0 and "closed 2 rooms" in out
    assert set(Room.objects.values_list("code", flat=True)) == {fresh.code, done.code}
    _age(done.code, 5)  # a finished room is also closed when opened after its time
    assert Client().get(f"/api/play/rooms/{done.code}").status_code == 404


def test_an_expired_room_is_closed_when_opened(settings):
    all_releases()
    settings.KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS = 2
    host = open_room(Client(), "sauschwer")
    _age(host.code, 3)
    response = host.get()
    assert response.status_code == 404
    assert "closed after 2 hours" in response.json()["error"]
    assert not Room.objects.filter(code=host.code).exists()
