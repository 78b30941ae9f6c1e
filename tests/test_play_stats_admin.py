"""The card statistics where a curator looks: the list says "not played yet" rather than a
bare dash, a filter finds played, unplayed and hard cards, and the card's page says in words
what its figures are and what they rest on."""

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from cards.models import ConceptCard, SauschwerObject
from curation.play_stats import COUNTED, in_words
from games.models import CardPlayStat

pytestmark = pytest.mark.django_db


@pytest.fixture
def carla(mini_catalogue, client):
    user = User.objects.create_user("carla", password="pw-karten-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def _rows(client, url: str) -> str:
    page = client.get(url)
    assert page.status_code == 200
    return page.content.decode()


def test_an_unplayed_card_says_not_played_yet_in_the_list(carla):
    text = _rows(carla, reverse("admin:cards_sauschwerobject_changelist"))
    assert "not played yet" in text


def test_the_filter_finds_played_unplayed_and_hard_cards(carla):
    easy, hard, *rest = ConceptCard.objects.order_by("key")
    CardPlayStat.objects.create(game="symbols", key=easy.key, played=4, right=4, hints=8)
    CardPlayStat.objects.create(game="symbols", key=hard.key, played=5, right=1, wrong=4, hints=3)
    url = reverse("admin:cards_conceptcard_changelist")
    played = _rows(carla, f"{url}?played=yes")
    assert easy.text in played and hard.text in played
    assert all(card.text not in played for card in rest)
    unplayed = _rows(carla, f"{url}?played=no")
    assert easy.text not in unplayed and all(card.text in unplayed for card in rest)
    found = _rows(carla, f"{url}?played=hard")
    assert hard.text in found and easy.text not in found
    assert "Hard: solved in fewer than half of its rounds" in found


def test_the_cards_page_says_what_its_figures_mean(carla):
    card = SauschwerObject.objects.order_by("key").first()
    CardPlayStat.objects.create(game="sauschwer", key=card.key, played=6, doubted=3, right=2)
    text = _rows(carla, reverse("admin:cards_sauschwerobject_change", args=[card.pk]))
    assert "On the scale in 6 rounds; doubted in 3, and the doubter was right in 2 of those." in text
    assert COUNTED in text


@pytest.mark.parametrize("game,figures,words", [
    ("symbols", {"played": 5, "right": 2, "hints": 5},
     "The secret concept in 5 rounds: solved in 2 (40 %). On average 2.5 hints before it was solved."),
    ("slogan", {"played": 3, "right": 4, "wrong": 2}, "In 3 rounds: 4 of 6 answers right (67 %)."),
    ("sign", {"played": 3}, "Not counted for this game (a card has no difficulty of its own)."),
])
def test_each_games_figures_read_as_a_sentence(game, figures, words):
    assert in_words(game, CardPlayStat(game=game, key="k", **figures)) == words
    assert in_words(game, None) == "Not played yet in a finished game."


def test_the_cards_page_says_how_many_games_did_not_count_and_why(carla):
    from games.models import PlayStatsTally

    card = SauschwerObject.objects.order_by("key").first()
    url = reverse("admin:cards_sauschwerobject_change", args=[card.pk])
    assert "did not count" not in _rows(carla, url)  # nothing to say yet
    for day, key, count in ((1, "counted", 3), (2, "counted", 1), (1, "not:one_client", 4),
                            (2, "not:one_client", 1), (2, "not:daily_cap", 2),
                            (2, "client:abc", 9)):  # a client's daily count is no game of its own
        PlayStatsTally.objects.create(day=day, key=key, count=count)
    assert ("Of 11 finished games so far, 7 did not count: 5 played with several seats from "
            "one client; 2 from a client past its daily cap.") in _rows(carla, url)
