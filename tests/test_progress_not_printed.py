"""Texts no deck of a language prints are counted apart, not as missing (issue 37.7): the
slogans of a card known only in Germany and their answer options never reach an English
deck, so Progress names them and *done* leaves them out; 100 % only when nothing is missing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from cards.models import Slogan, SloganOption, Translation
from cards.progress import NOT_PRINTED, Progress, progress
from exports.packs import build_pack

pytestmark = pytest.mark.django_db


def _german_only_texts() -> tuple[Slogan, list[SloganOption]]:
    """The mini catalogue's card karte-001 is known only in Germany; its first slogan is
    translated, its second stays German."""
    slogan = Slogan.objects.get(key="quadratisch-praktisch-gut")
    assert slogan.card.key == "karte-001" and slogan.markets == "de"
    return slogan, list(SloganOption.objects.filter(slogan__card__key="karte-001"))


def test_texts_of_a_card_no_english_deck_prints_are_counted_apart_not_missing(mini_catalogue):
    slogan, options = _german_only_texts()
    Translation.objects.filter(object_id=slogan.pk, content_type__model="slogan").delete()
    english = build_pack("slogan", "en")["body"]["cards"]
    assert "karte-001" not in {card["key"] for card in english}  # the packs agree
    for stored in (True, False):
        counts = progress("slogan", "en", stored=stored).counts
        assert counts[NOT_PRINTED] == 1 + len(options) == 9
        assert counts["empty"] == 0 and counts["untranslated"] == 1
    assert progress("slogan", "en").percent == 100


def test_a_missing_text_that_a_deck_prints_still_counts_as_missing(mini_catalogue):
    Translation.objects.filter(text="Just do it.").delete()
    item = progress("slogan", "en")
    assert item.counts["empty"] == 1 and item.counts[NOT_PRINTED] == 9
    assert item.percent < 100


def test_done_is_never_100_percent_while_a_text_is_missing():
    item = Progress("sauschwer", "en", {"empty": 1, "needs_editing": 0, "translated": 0,
                                        "approved": 999, "untranslated": 0, NOT_PRINTED: 0})
    assert item.percent == 99


def _tina() -> Client:
    user = User.objects.create_user(username="tina", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Translators"))
    client = Client()
    client.force_login(user)
    return client


def test_the_progress_page_and_the_editor_say_why(mini_catalogue):
    slogan, _options = _german_only_texts()
    Translation.objects.filter(object_id=slogan.pk, content_type__model="slogan").delete()
    tina = _tina()
    page = tina.get(reverse("admin:cards_progress")).content.decode()
    assert "<th>no deck prints</th>" in page and "a card known only in Germany" in page
    editor = reverse("admin:cards_translate", args=["slogan", "en"])
    missing = tina.get(editor, {"state": "empty"}).content.decode()
    assert f"slogan-{slogan.pk}-text" not in missing and "Nothing to translate here." in missing
    every = tina.get(editor, {"q": "Quadratisch"}).content.decode()
    row = every.split(f'id="unit-slogan-{slogan.pk}-text"')[1].split("</tr>")[0]
    assert "no EN deck prints this card" in row
