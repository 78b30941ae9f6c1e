"""A curator publishes in a real browser (Chromium): edits some cards, opens the publish page,
sees exactly those changes, confirms, and finds the notes on the release's page."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from cards.models import SauschwerObject
from exports.models import Release
from exports.packs import publish

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 1280
# Screenshots for a person to look at; kept when KARTOTHEK_SCREENSHOTS names a folder.
SHOTS = os.environ.get("KARTOTHEK_SCREENSHOTS")


def shoot(page: Page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def assert_fits(page: Page) -> None:
    """Nothing on the page reaches past the window's right edge."""
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    too_wide = page.evaluate("""(width) => [...document.querySelectorAll('body *')]
        .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > width + 1)
        .map(e => e.tagName + '.' + e.className).slice(0, 5)""", WIDTH)
    assert too_wide == []


def scripted_edit_in_the_admin(page: Page, base: str) -> None:
    """Add an object, delete one, change one's weight source: through the admin's own forms."""
    page.goto(f"{base}/admin/cards/sauschwerobject/add/")
    page.fill("#id_key", "ein-stein")
    page.fill("#id_name", "Ein Stein")
    page.fill("#id_weight_g", "500")
    page.fill("#id_source", "gewogen")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    bowling = SauschwerObject.objects.get(key="eine-bowlingkugel")
    page.goto(f"{base}/admin/cards/sauschwerobject/{bowling.pk}/delete/")
    page.click("input[type=submit]")
    page.wait_for_selector(".messagelist .success")
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    page.goto(f"{base}/admin/cards/sauschwerobject/{egg.pk}/change/")
    page.fill("#id_source", "Handelsklasse M: 53–63 g, nachgewogen")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")


def test_a_curator_sees_exactly_the_scripted_changes_confirms_and_finds_the_notes(
        live_server, curator_page):
    page = curator_page
    page.set_viewport_size({"width": WIDTH, "height": 900})
    assert publish("sauschwer", "de").created
    scripted_edit_in_the_admin(page, live_server.url)

    page.goto(f"{live_server.url}/admin/exports/publish/")
    row = page.locator("#pack-sauschwer-de")
    expect(row).to_contain_text("1 added, 1 removed, 1 changed since release 1")
    row.get_by_role("link", name="Review and publish v2…").click()

    counts = page.locator(".change-counts")
    expect(counts).to_have_text("1 added · 1 removed · 1 changed since release 1")
    section = page.locator("#changes-cards")
    expect(section.locator("details.added li")).to_have_text(["ein-stein Ein Stein"])
    expect(section.locator("details.removed li")).to_have_text(["eine-bowlingkugel Eine Bowlingkugel"])
    changed = section.locator(".changed-card")
    expect(changed).to_have_count(1)
    expect(changed.locator("h4")).to_have_text("ein-huehnerei Ein Hühnerei")
    rows = changed.locator("table.field-changes tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.locator("th")).to_have_text("weight source")
    expect(rows.locator("td.old")).to_have_text("Handelsklasse M: 53–63 g")
    expect(rows.locator("td.new")).to_have_text("Handelsklasse M: 53–63 g, nachgewogen")
    assert page.locator(".card-pair-spot").count() == 1  # where the visual diff goes
    assert_fits(page)
    page.fill("#id_note", "Ein Stein kam dazu, die Bowlingkugel ging.")
    shoot(page, "publish-review-1280")

    # Without the tick the browser itself refuses to send the form (no script needed).
    page.click("#publish-form input[type=submit]")
    assert page.locator("#id_confirm:invalid").count() == 1
    assert Release.objects.filter(game="sauschwer", language="de").count() == 1

    page.check("#id_confirm")
    page.click("#publish-form input[type=submit]")
    message = page.locator(".messagelist .success")
    expect(message).to_contain_text("Published Sauschwer (de) v2: 1 added, 1 removed, 1 changed "
                                    "since release 1.")
    release = Release.objects.get(game="sauschwer", language="de", version=2)
    assert release.note == "Ein Stein kam dazu, die Bowlingkugel ging."
    assert release.published_by is not None and release.published_by.username == "carla"
    shoot(page, "publish-done-1280")

    message.get_by_role("link", name="Sauschwer (de) v2").click()
    page.wait_for_url(f"**/admin/exports/release/{release.pk}/change/")
    notes = page.locator("#release-notes")
    expect(notes.locator(".release-note")).to_have_text("Ein Stein kam dazu, die Bowlingkugel ging.")
    expect(notes.locator(".change-counts")).to_have_text(
        "1 added · 1 removed · 1 changed since release 1")
    expect(notes.locator("details.added li")).to_have_text(["ein-stein Ein Stein"])
    expect(notes.locator("table.field-changes td.new")).to_have_text(
        "Handelsklasse M: 53–63 g, nachgewogen")
    assert_fits(page)
    shoot(page, "release-page-1280")


def test_the_releases_list_shows_its_api_links_inside_1280_px(live_server, curator_page):
    page = curator_page
    page.set_viewport_size({"width": WIDTH, "height": 800})
    for game in ("symbols", "sauschwer", "slogan"):
        publish(game, "de", note="Erste Ausgabe.")
    page.goto(f"{live_server.url}/admin/exports/release/")
    links = page.locator("td.field-api a")
    expect(links).to_have_count(6)
    shoot(page, "releases-list-1280")
    # inside the window, and not cut off by the list's own scrolling box
    edge = page.locator("#changelist .results").bounding_box()
    assert edge is not None and edge["x"] + edge["width"] <= WIDTH
    for box in (links.nth(i).bounding_box() for i in range(6)):
        assert box is not None and box["x"] + box["width"] <= edge["x"] + edge["width"]
    assert page.evaluate("(e => e.scrollWidth <= e.clientWidth)(document.querySelector("
                         "'#changelist .results'))")
    assert_fits(page)


def test_nothing_changed_offers_no_empty_release(live_server, curator_page):
    page = curator_page
    publish("sign", "en")
    page.goto(f"{live_server.url}/admin/exports/publish/sign/en/")
    expect(page.locator(".nothing-changed")).to_contain_text(
        "Nothing changed since Sign (en) v1: there is nothing to publish.")
    assert page.locator("#publish-form").count() == 0
