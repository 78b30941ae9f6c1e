"""A card's key comes from its German text as the curator types (the same rule in the
browser as in cards.text.make_key) and is fixed once the card is saved."""

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.urls import reverse

from cards.models import ConceptCard, SloganCard
from cards.text import make_key

SCRIPT = Path(__file__).resolve().parent.parent / "curation" / "static" / "curation" / "key-from-text.js"

#: Texts where a slug rule could go wrong: umlauts and ß (also capital ẞ), accents,
#: ligatures, compatibility forms, Greek and other alphabets, a brand's “…”, long texts
#: cut at a hyphen, nothing sluggable at all.
TRICKY = [
    "Bermuda-Dreieck", "Großmutter", "ÄÖÜ äöü ẞ", "Crème brûlée", "  Straße  ", "Œuvre",
    "ﬁsch", "Ⅻ Uhr", "İstanbul", "½ Liter", "… weiß, was Frauen wünschen.", "Hello—World",
    "a" * 70, "Müller-Lüdenscheidt " * 5, "x² + y²", "№ 5", "Ǆemal", "ΣΊΣΥΦΟΣ Ärger",
    "Ångström", "Ça va?", "Äpfel & Birnen (3 kg)", "ﬀ ﬂ ﬃ", "Ｆｕｌｌｗｉｄｔｈ", "Maße ẞ",
    "e\u0301", "Ñandú", "ı dotless", "K Kelvin", "—", "", "Ünter-über-" + "x" * 60,
]


def _python_key(text: str) -> str:
    try:
        return make_key(text)
    except ValidationError:
        return ""  # the browser leaves the key empty; the form then asks for one


@pytest.fixture
def carla(client, db):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_add_page_loads_the_key_script_from_static_files(carla):
    page = carla.get(reverse("admin:cards_conceptcard_add")).content.decode()
    assert 'src="/static/curation/key-from-text.js"' in page
    assert 'name="key"' in page
    assert "Filled from the German text as you type" in page


@pytest.mark.django_db
def test_a_saved_cards_key_is_read_only_and_a_forged_post_cannot_change_it(mini_catalogue, carla):
    card = ConceptCard.objects.order_by("key").first()
    url = reverse("admin:cards_conceptcard_change", args=[card.pk])
    page = carla.get(url).content.decode()
    assert 'name="key"' not in page
    assert f'<div class="readonly">{card.key}</div>' in page
    response = carla.post(url, {
        "text": card.text + " neu", "key": "ein-anderer-schluessel",
        "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
        "cards-translation-content_type-object_id-INITIAL_FORMS": "0", "_save": "Save",
    })
    assert response.status_code == 302
    card.refresh_from_db()
    assert card.key != "ein-anderer-schluessel"
    assert card.text.endswith(" neu")
    assert not ConceptCard.objects.filter(key="ein-anderer-schluessel").exists()


@pytest.mark.django_db
def test_a_saved_slogan_cards_slogan_keys_are_read_only(mini_catalogue, carla):
    card = SloganCard.objects.first()
    page = carla.get(reverse("admin:cards_slogancard_change", args=[card.pk])).content.decode()
    for n in (0, 1):
        assert re.search(rf'<input[^>]*name="slogans-{n}-key"[^>]*disabled', page)
    data = {"key": card.key, "slogans-TOTAL_FORMS": "2", "slogans-INITIAL_FORMS": "2",
            "slogans-MIN_NUM_FORMS": "2", "slogans-MAX_NUM_FORMS": "2"}
    for n, slogan in enumerate(card.slogans.order_by("side")):
        options = list(slogan.options.order_by("position"))
        data.update({f"slogans-{n}-id": slogan.pk, f"slogans-{n}-card": card.pk,
                     f"slogans-{n}-side": slogan.side, f"slogans-{n}-text": slogan.text,
                     f"slogans-{n}-key": f"gefaelscht-{n}", f"slogans-{n}-markets": slogan.markets,
                     f"slogans-{n}-source": slogan.source,
                     f"slogans-{n}-correct": next(o.position for o in options if o.is_correct),
                     **{f"slogans-{n}-option_{o.position}": o.text for o in options}})
        if slogan.keep_german:
            data[f"slogans-{n}-keep_german"] = "on"
    keys = sorted(card.slogans.values_list("key", flat=True))
    response = carla.post(reverse("admin:cards_slogancard_change", args=[card.pk]), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert sorted(card.slogans.values_list("key", flat=True)) == keys


@pytest.mark.browser
def test_the_browser_and_python_make_the_same_key_from_tricky_texts(page):
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content=SCRIPT.read_text(encoding="utf-8"))
    in_browser = page.evaluate("texts => texts.map(t => window.kartothekMakeKey(t))", TRICKY)
    assert in_browser == [_python_key(text) for text in TRICKY]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_curator_types_the_text_and_the_key_fills_in(live_server, curator_page):
    page = curator_page
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_add')}")
    page.locator("#id_text").press_sequentially("Großes Tröpfchen")
    assert page.input_value("#id_key") == "grosses-troepfchen"
    # A key typed over by hand is the curator's: the text no longer changes it.
    page.fill("#id_key", "tropfen")
    page.locator("#id_text").press("End")
    page.locator("#id_text").press_sequentially("!")
    assert page.input_value("#id_key") == "tropfen"
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    card = ConceptCard.objects.get(key="tropfen")
    assert card.text == "Großes Tröpfchen!"
    assert card.key == "tropfen"
    page.goto(f"{live_server.url}{reverse('admin:cards_conceptcard_change', args=[card.pk])}")
    assert page.locator("#id_key").count() == 0
    assert page.locator(".field-key .readonly").inner_text() == "tropfen"
