"""A new card's empty form is not a wall of red (issue 23.6): the preview asks to fill in the
card, an incomplete card says why once (not once per language), empty options are not "the
same option twice"."""

import pytest
from django.contrib.auth.models import User

from cards.models import option_problems
from tests.permission_matrix.forms import page_form

pytestmark = pytest.mark.django_db
PREVIEW = "/admin/cards/slogancard/preview/"


@pytest.fixture
def su(client):
    client.force_login(User.objects.create_superuser("su", "su@example.org", "pw"))
    return client


def _form(client) -> dict:
    data = page_form(client, "/admin/cards/slogancard/add/")
    data["_preview_language"] = ["de", "en"]
    return data


def test_the_empty_add_slogan_card_form_has_no_findings_and_asks_to_fill_in_the_card(mini_catalogue, su):
    answer = su.post(PREVIEW, _form(su)).json()
    assert answer == {"previews": [], "problems": [], "absent": [], "decks": [],
                      "notice": "Fill in the card to see its preview.",
                      "answer_checks": {"checked": 0, "findings": []}}


def test_an_incomplete_slogan_card_says_why_once_and_never_that_empty_options_repeat(mini_catalogue, su):
    data = _form(su)
    text_field = next(name for name in data if (name.startswith("slogans-0-") and name.endswith("-text"))
                      or name == "slogans-0-text")
    data[text_field] = "Nicht immer, aber immer öfter."
    answer = su.post(PREVIEW, data).json()
    assert answer["problems"] == [] and answer["previews"] == []
    assert answer["notice"].count("cannot be drawn yet") == 1
    assert "“”" not in answer["notice"] and "appears twice" not in answer["notice"]


def test_empty_options_are_reported_as_empty_not_as_duplicates():
    problems = option_problems(["", "", "Clausthaler", "Beck's"], [False, False, True, False])
    assert problems == ["An answer option is empty."]
    assert option_problems(["Bit", "bit", "Jever", "Veltins"], [True, False, False, False]) == [
        "The answer options must differ; the same option appears twice: “Bit”, “bit”."]
