"""Issue 37, item 8, in Chromium: a slogan whose key another slogan has names that slogan and
its card, and after the refused save the key still follows the text as the curator fixes it."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_taken_key_names_the_card_and_the_key_follows_the_text_after_the_refusal(
        live_server, curator_page):
    from cards.models import Slogan

    page = curator_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/admin/cards/slogancard/add/")
    slogans = [("Just do it.", ["Adidas", "Puma", "Reebok", "Nike"], 4),
               ("… wäscht so weiß.", ["Ariel", "Persil", "Omo", "Dash"], 2)]
    for n, (text, options, correct) in enumerate(slogans):
        page.locator(f"#id_slogans-{n}-text").press_sequentially(text)
        for i, option in enumerate(options, start=1):
            page.fill(f"#id_slogans-{n}-option_{i}", option)
        page.check(f"input[name='slogans-{n}-correct'][value='{correct}']")
        page.fill(f"#id_slogans-{n}-source", "Werbung")
        page.fill(f"#id_slogans-{n}-markets", "de")
    assert page.input_value("#id_slogans-0-key") == "just-do-it"
    page.click("input[name=_save]")

    errors = page.locator(".errorlist")
    expect(errors.first).to_be_visible()
    taken = Slogan.objects.get(key="just-do-it")
    expect(page.locator("#content-main")).to_contain_text(
        f"The slogan “Just do it.” on card {taken.card.key} already has the key just-do-it")
    text = page.locator("#id_slogans-0-text")
    text.fill("")
    text.press_sequentially("Einfach machen.")
    assert page.input_value("#id_slogans-0-key") == "einfach-machen"
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    assert Slogan.objects.filter(key="einfach-machen").exists()
