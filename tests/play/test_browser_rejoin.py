"""A rejoin link carries the seat's token in its #fragment (issue 21, finding 10): the new
device's browser takes the seat, and no request it sends has the token in its URL."""

import pytest
from playwright.sync_api import expect

from games import rooms
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import PHONE, fresh_room_caches  # noqa: F401  (autouse)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_rejoin_link_takes_the_seat_without_the_token_in_any_request_url(live_server, browser):
    release_of("sauschwer")
    room, _host = rooms.open_room(game="sauschwer", language="en", name="Ada")
    ben = rooms.join(room, name="Ben")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    try:
        page.goto(f"{live_server.url}/play/{room.code}/rejoin#{ben.token}")
        page.wait_for_url(f"{live_server.url}/play/{room.code}/")
        expect(page.locator(".seat-row.you")).to_contain_text("Ben")
        assert urls and not [url for url in urls if ben.token in url]
        assert ben.token not in page.url
        cookies = {c["name"]: c["value"] for c in context.cookies()}
        assert cookies[f"kt_seat_{room.code}"] == ben.token
    finally:
        context.close()
