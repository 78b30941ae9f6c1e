"""axe-core finds no serious or critical accessibility problem on the play pages."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from games import rooms
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import PHONE, fresh_room_caches, open_table  # noqa: F401  (autouse)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SERIOUS = {"serious", "critical"}
PLAYERS = {"symbols": 3, "sign": 4, "slogan": 3, "sauschwer": 2}


def serious_violations(page) -> list[str]:
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"] if v.get("impact") in SERIOUS
    ]


def test_the_open_room_page_and_a_rooms_lobby_pass_axe(live_server, browser):
    release_of("sign")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/play/")
        assert serious_violations(page) == []
        room, host = rooms.open_room(game="sign", language="en", name="Ada")
        context.add_cookies([{"name": f"kt_seat_{room.code}", "value": host.token,
                              "url": live_server.url}])
        page.goto(f"{live_server.url}/play/{room.code}/")
        page.wait_for_selector(".room-lobby")
        assert serious_violations(page) == []
        page.goto(f"{live_server.url}/play/{room.code}/table")
        assert serious_violations(page) == []
    finally:
        context.close()


@pytest.mark.parametrize("game", ["symbols", "sign", "slogan", "sauschwer"])
def test_a_seat_page_and_the_table_page_pass_axe(live_server, browser, game):
    names = ["Ada", "Ben", "Cleo", "Dana"][: PLAYERS[game]]
    table = open_table(browser, live_server.url, game, names)
    try:
        for page in (table.players[0].page, table.players[1].page, table.table):
            assert serious_violations(page) == [], page.url
    finally:
        table.close()
