"""Two people edit at once, in two real browser sessions: the later save is refused and shows
the earlier one (the admin form), or is saved except the text the other changed (the editor)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import Browser, Page, expect

from cards.catalogue import import_catalogue
from cards.models import ConceptCard, Translation
from tests.conftest import MINI

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Set KARTOTHEK_SCREENSHOTS=DIR to keep pictures of the refused saves.
SCREENSHOTS = os.environ.get("KARTOTHEK_SCREENSHOTS")


def open_session(browser: Browser, live_server, name: str, group: str) -> Page:  # type: ignore[no-untyped-def]
    user = User.objects.create_user(username=name, password=f"{name}-pw-123", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", name)
    page.fill("#id_password", f"{name}-pw-123")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    return page


def keep_picture(page: Page, name: str) -> None:
    if SCREENSHOTS:
        page.screenshot(path=str(Path(SCREENSHOTS) / name), full_page=True)


def english(key: str) -> str:
    card = ConceptCard.objects.get(key=key)
    return Translation.objects.get(object_id=card.pk, field="text", language="en",
                                   content_type__model="conceptcard").text


def test_two_curators_save_one_card_and_the_second_sees_the_first_change(live_server, browser):
    assert not import_catalogue(MINI).errors
    anna = open_session(browser, live_server, "anna", "Curators")
    bernd = open_session(browser, live_server, "bernd", "Curators")
    oma = ConceptCard.objects.get(key="oma")
    url = f"{live_server.url}/admin/cards/conceptcard/{oma.pk}/change/"
    anna.goto(url)
    bernd.goto(url)

    anna.fill("#id_text", "Großmutter")
    anna.click("input[name=_save]")
    expect(anna.locator(".messagelist .success")).to_be_visible()

    bernd.fill("#id_text", "Omi")
    bernd.click("input[name=_save]")
    errors = bernd.locator(".errornote + .errorlist, .errorlist.nonfield").first
    expect(errors).to_contain_text("anna saved this concept card")
    expect(errors).to_contain_text("text: “Oma” → “Großmutter”")
    expect(bernd.locator("#id_text")).to_have_value("Omi")  # his text is still there to copy
    keep_picture(bernd, "admin-refused-save.png")
    assert ConceptCard.objects.get(pk=oma.pk).text == "Großmutter"


def test_two_translators_on_one_editor_page(live_server, browser):
    assert not import_catalogue(MINI).errors
    tina = open_session(browser, live_server, "tina", "Translators")
    tom = open_session(browser, live_server, "tom", "Translators")
    url = f"{live_server.url}/admin/cards/translate/symbols/en/"
    tina.goto(url)
    tom.goto(url)
    oma = f"conceptcard-{ConceptCard.objects.get(key='oma').pk}-text"
    liebe = f"conceptcard-{ConceptCard.objects.get(key='liebe').pk}-text"

    tina.fill(f"textarea[name='text-{oma}']", "Granny")
    tina.click("input[type=submit]")
    expect(tina.locator(".messagelist .success")).to_contain_text("Saved 1 translation.")

    tom.fill(f"textarea[name='text-{liebe}']", "Affection")
    tom.fill(f"textarea[name='text-{oma}']", "Grandma")
    tom.click("input[type=submit]")
    expect(tom.locator(".messagelist .warning", has_text="Saved")).to_contain_text(
        "Saved 1 translation. 1 was changed by someone else")
    conflict = tom.locator(f"#unit-{oma} .theirs")
    expect(conflict).to_contain_text("tina changed this text")
    expect(conflict).to_contain_text("Granny")
    expect(conflict).to_contain_text("Grandma")
    keep_picture(tom, "editor-conflict.png")
    assert (english("oma"), english("liebe")) == ("Granny", "Affection")

    # Having seen hers, he keeps his: the next save replaces it.
    tom.click("input[type=submit]")
    expect(tom.locator(".messagelist .success")).to_contain_text("Saved 1 translation.")
    assert english("oma") == "Grandma"
