"""A slogan card in one form: both slogans, their four numbered options with one correct
answer chosen by a radio button, and each slogan's source, saved in one go."""

import re

import pytest
from django.urls import reverse

from cards.models import Slogan, SloganCard
from tests.test_incomplete_content import MANAGEMENT, OPTIONS, curator, slogan_row  # noqa: F401

pytestmark = pytest.mark.django_db


def test_the_add_page_numbers_sides_and_options_and_offers_the_next_card_key(mini_catalogue,
                                                                            curator):  # noqa: F811
    page = curator.get(reverse("admin:cards_slogancard_add")).content.decode()
    last = max(int(k[6:]) for k in SloganCard.objects.values_list("key", flat=True))
    assert re.search(rf'name="key"[^>]*value="karte-{last + 1:03d}"', page)
    for n, side in ((0, 1), (1, 2)):
        select = page[page.index(f'name="slogans-{n}-side"'):]
        select = select[:select.index("</select>")]
        assert re.search(rf'<option value="{side}" selected>', select)
        assert f'name="slogans-{n}-source"' in page
        for option in range(1, 5):
            assert f'name="slogans-{n}-option_{option}"' in page
            assert re.search(rf'type="radio" name="slogans-{n}-correct" value="{option}"', page)
        label = rf'<label[^>]*for="id_slogans-{n}-option_1"[^>]*>option 1:</label>'
        assert re.search(label, page, re.IGNORECASE)


def test_a_card_is_saved_with_both_slogans_their_options_and_sources_in_one_post(mini_catalogue,
                                                                                 curator):  # noqa: F811
    data = {"key": "karte-099", **MANAGEMENT,
            **slogan_row(0, 1, "… macht Kinder froh.", "haribo", OPTIONS[1], 1),
            **slogan_row(1, 2, "… wäscht so weiß.", "persil", OPTIONS[2], 1),
            "slogans-0-source": "Haribo-Werbung seit 1935", "slogans-0-markets": "de",
            "slogans-1-source": "Persil-Werbung", "slogans-1-markets": "de"}
    response = curator.post(reverse("admin:cards_slogancard_add"), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    haribo = Slogan.objects.get(key="haribo")
    assert (haribo.card.key, haribo.side, haribo.source) == ("karte-099", 1, "Haribo-Werbung seit 1935")
    assert haribo.correct_option.position == 1
    assert Slogan.objects.get(key="persil").source == "Persil-Werbung"


def test_a_slogan_without_a_correct_answer_is_refused_with_a_message(mini_catalogue, curator):  # noqa: F811
    data = {"key": "karte-099", **MANAGEMENT,
            **slogan_row(0, 1, "… macht Kinder froh.", "haribo", OPTIONS[1], None),
            **slogan_row(1, 2, "… wäscht so weiß.", "persil", OPTIONS[2], 1)}
    response = curator.post(reverse("admin:cards_slogancard_add"), data)
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert not SloganCard.objects.filter(key="karte-099").exists()
