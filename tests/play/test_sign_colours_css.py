"""Sign cards keep their pack colours under the Content-Security-Policy, which forbids inline
styles: the colours come from a stylesheet made from the room's pinned pack."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import rooms
from games.screens.sign import colour_css
from tests.play.core_helpers import release_of
from tests.play.ui_helpers import fresh_room_caches  # noqa: F401  (autouse)

pytestmark = pytest.mark.django_db


def started_sign_room() -> tuple[str, str]:
    release_of("sign")
    room, host = rooms.open_room(game="sign", language="en", name="Ada")
    for name in ("Ben", "Cleo", "Dana"):
        rooms.join(room, name=name)
    rooms.start(room, rooms.seat_for_token(room, host.token))
    return room.code, host.token


def test_a_sign_seat_page_has_no_inline_style_and_links_the_rooms_colours():
    code, token = started_sign_room()
    client = Client()
    client.cookies[f"kt_seat_{code}"] = token
    page = client.get(f"/play/{code}/").content.decode()
    assert " style=" not in page
    assert f'href="/play/{code}/colours.css"' in page
    classes = set(re.findall(r'class="sign-card (sc-[a-z0-9-]+)"', page))
    assert classes, "the hand's cards carry their colour class"
    css = Client().get(f"/play/{code}/colours.css")
    assert css.status_code == 200 and css["Content-Type"].startswith("text/css")
    for name in classes:
        assert re.search(rf"\.{name} \{{ --c: #[0-9a-fA-F]{{6}}; \}}", css.content.decode())


def test_the_colour_stylesheet_writes_nothing_but_slug_classes_and_hex_colours():
    hostile = {"body": {"colours": [
        {"key": "rot", "hex": "#EB0045"},
        {"key": "x} body{display:none", "hex": "#000000"},
        {"key": "blau", "hex": "red;} *{color:red"},
    ]}}
    assert colour_css(hostile) == ".sc-rot { --c: #EB0045; }\n"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_sign_cards_show_their_colour_in_a_browser_under_the_policy(live_server, page):
    code, token = started_sign_room()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text
            else None)
    page.context.add_cookies([{"name": f"kt_seat_{code}", "value": token,
                               "url": live_server.url}])
    page.goto(f"{live_server.url}/play/{code}/")
    card = page.locator(".sign-card[class*='sc-']").first
    name = next(c for c in card.get_attribute("class").split() if c.startswith("sc-"))
    css = Client().get(f"/play/{code}/colours.css").content.decode()
    hex_ = re.search(rf"\.{name} \{{ --c: #([0-9a-fA-F]{{6}}); \}}", css).group(1)
    rgb = f"rgb({int(hex_[0:2], 16)}, {int(hex_[2:4], 16)}, {int(hex_[4:6], 16)})"
    assert card.locator(".mark").evaluate("e => getComputedStyle(e).color") == rgb
    assert not [v for v in violations if "style" in v], violations
