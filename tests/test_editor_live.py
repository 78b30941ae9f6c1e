"""The editor's checks while typing (curation/editor_live.py, issue 23.2 and 23.3), its
translation memory (cards/memory.py, 23.4) and saved rows kept on the page (23.2)."""

import json

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.test import Client
from django.urls import reverse

from cards.memory import MIN_SCORE, Memory, memory_for
from cards.models import AlfonsCard, CheckDismissal, ConceptCard, GlossaryTerm, Translation
from cards.translation import save_translation

pytestmark = pytest.mark.django_db

CHECK = reverse("admin:cards_translate_check", args=["slogan", "en"])
EDITOR = reverse("admin:cards_translate", args=["slogan", "en"])
PRINTER = "Du reparierst den Drucker. Rücke 2 Felder vor."


def _user(name, group=None, **extra):
    user = User.objects.create_user(username=name, password="pw", is_staff=True, **extra)
    if group:
        user.groups.add(Group.objects.get(name=group))
    return user


def _client(user, **kwargs):
    client = Client(**kwargs)
    client.force_login(user)
    return client


@pytest.fixture
def printer(mini_catalogue):
    """An Alfons card without an English text, its German close to an approved one's."""
    return AlfonsCard.objects.create(key="drucker", text=PRINTER, effect="move", amount=2)


@pytest.fixture
def tina(mini_catalogue):
    return _client(_user("tina", "Translators"))


def _ident(card):
    return f"alfonscard-{card.pk}-text"


def _everything():
    return (list(Translation.objects.values_list("pk", "text", "state", "version").order_by("pk")),
            Translation.history.count(), CheckDismissal.objects.count())


def _check(client, card, text, **extra):
    return client.post(CHECK, {"unit": _ident(card), "text": text, **extra})


# --- who may ask, and how -------------------------------------------------------------------


@pytest.mark.parametrize(("group", "superuser", "status"), [
    ("Translators", False, 200),
    ("Curators", False, 200),
    (None, True, 200),
    ("Viewers", False, 403),
    (None, False, 403),  # staff without a group
])
def test_the_check_endpoint_is_for_those_who_may_change_translations(printer, group, superuser, status):
    client = _client(_user("u", group, is_superuser=superuser))
    response = _check(client, printer, "You fix the printer. Move forward 2 spaces.")
    assert response.status_code == status
    if status == 200:
        assert response["Content-Type"] == "application/json"


def test_the_check_endpoint_sends_the_logged_out_to_the_login_page(printer, client):
    response = _check(client, printer, "x")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_check_endpoint_takes_post_only(printer, tina):
    response = tina.get(CHECK, {"unit": _ident(printer), "text": "x"})
    assert response.status_code == 405 and response["Allow"] == "POST"


def test_the_check_endpoint_needs_the_csrf_token(printer):
    client = _client(_user("tina", "Translators"), enforce_csrf_checks=True)
    assert _check(client, printer, "You fix the printer.").status_code == 403
    client.get(EDITOR)  # sets the token cookie, as the editor page does
    token = client.cookies["csrftoken"].value
    answer = client.post(CHECK, {"unit": _ident(printer), "text": "You fix the printer."},
                         HTTP_X_CSRFTOKEN=token)
    assert answer.status_code == 200


def test_a_text_longer_than_the_endpoint_takes_is_refused_with_a_message(printer, tina):
    response = _check(tina, printer, "a" * 2001)
    assert response.status_code == 413
    assert "2,001 characters" in response.json()["error"]
    assert _check(tina, printer, "a" * 2000).status_code == 200


def test_an_unknown_text_or_another_games_text_is_refused(printer, tina):
    assert tina.post(CHECK, {"unit": "alfonscard-999999-text", "text": "x"}).status_code == 404
    oma = ConceptCard.objects.get(key="oma")
    response = tina.post(CHECK, {"unit": f"conceptcard-{oma.pk}-text", "text": "x"})
    assert response.status_code == 404 and "not a text of this game" in response.json()["error"]
    assert tina.post(CHECK, {"text": "x"}).status_code == 400


def test_checking_writes_nothing(printer, tina):
    oma_like = AlfonsCard.objects.get(key="kopierer")
    before = _everything()
    for card, text in ((printer, "You fix the printer ... move 2"), (oma_like, "Chief! " * 30),
                       (printer, "Zero\u200bwidth")):
        assert _check(tina, card, text).status_code == 200
    assert _everything() == before
    assert not Translation.objects.filter(object_id=printer.pk, field="text",
                                          content_type__model="alfonscard").exists()


# --- what it answers -------------------------------------------------------------------------


def test_the_check_finds_what_the_save_would_find_glossary_included(printer, tina):
    GlossaryTerm.objects.create(term="Drucker", translation="printer", language="en", game="slogan")
    answer = _check(tina, printer, "You fix the copier. Move forward 2 spaces").json()
    checks = {f["check"]: f["message"] for f in answer["findings"]}
    assert "“Drucker” is “printer”" in checks["glossary"]
    assert "full stop" in checks["ending-punctuation"]
    good = _check(tina, printer, "You fix the printer. Move forward 2 spaces.").json()
    assert good["findings"] == [] and good["refused"] == []


def test_the_check_says_what_the_save_would_refuse(printer, tina):
    answer = _check(tina, printer, "You fix the\u200b printer.").json()
    assert answer["refused"], answer
    assert any("invisible" in m or "character" in m for m in answer["refused"])


def test_a_text_too_long_for_the_card_says_does_not_fit_and_draws_the_card(mini_catalogue, tina):
    oma = ConceptCard.objects.get(key="oma")
    check = reverse("admin:cards_translate_check", args=["symbols", "en"])
    unit = f"conceptcard-{oma.pk}-text"
    text = "The grandmother who knits a scarf for every grandchild"
    answer = tina.post(check, {"unit": unit, "text": text}).json()
    assert answer["refused"] == []  # under the field's 120 characters: the save would take it
    assert "does-not-fit" in {f["check"] for f in answer["findings"]}
    assert answer["problems"] and "Does not fit: the EN text" in answer["problems"][0]
    front = next(p for p in answer["previews"] if p["side"] == "front")
    png = tina.get(front["url"])
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    assert png.content.startswith(b"\x89PNG")
    fits = tina.post(check, {"unit": unit, "text": "Granny"}).json()
    assert fits["problems"] == [] and fits["findings"] == []
    assert fits["previews"][0]["url"] != front["url"]


def test_a_text_longer_than_its_field_is_refused_before_saving(printer, tina):
    answer = _check(tina, printer, "You fix the printer. " * 20).json()
    assert any("400" in message for message in answer["refused"]), answer["refused"]


def test_an_answer_options_check_draws_its_slogan_card(mini_catalogue, tina):
    from cards.models import SloganOption

    opt = SloganOption.objects.filter(position=1).select_related("slogan").first()
    response = tina.post(CHECK, {"unit": f"sloganoption-{opt.pk}-text", "text": "Schokoladenfabrik Nord"})
    assert response.status_code == 200
    assert len(response.json()["previews"]) == 2
    assert "Schokoladenfabrik Nord" in " ".join(p["alt"] for p in response.json()["previews"])


# --- the translation memory ----------------------------------------------------------------------


def test_memory_offers_the_same_german_first_then_similar_with_a_score():
    memory = Memory.build([
        (1, 1, "text", "Du reparierst den Kopierer. Rücke 2 Felder vor.",
         "You fix the photocopier. Move forward 2 spaces."),
        (1, 2, "text", "Rücke 2 Felder vor.", "Move forward 2 spaces."),
        (1, 3, "text", "rücke 2  felder vor.", "Go forward 2 spaces."),
        (1, 4, "text", "Kaffee verschüttet.", "Coffee spilled."),
    ])
    found = memory.suggest("Rücke 2 Felder vor.")
    assert [(s.text, s.exact, s.score) for s in found[:2]] == [
        ("Move forward 2 spaces.", True, 100), ("Go forward 2 spaces.", True, 100)]
    similar = memory.suggest("Du reparierst den Drucker. Rücke 2 Felder vor.")
    assert similar[0].text == "You fix the photocopier. Move forward 2 spaces."
    assert not similar[0].exact and MIN_SCORE <= similar[0].score < 100
    assert all(s.text != "Coffee spilled." for s in similar)


def test_memory_leaves_out_the_texts_own_translation_and_unlike_texts():
    memory = Memory.build([(1, 1, "text", "Oma", "Grandmother"), (1, 2, "text", "Papst", "Pope")])
    assert memory.suggest("Oma", exclude=(1, 1, "text")) == []
    assert memory.suggest("Weihnachtsgeld") == []


def test_memory_follows_changes_to_approved_translations(printer):
    assert any(s.text.startswith("You fix the photocopier")
               for s in memory_for("en").suggest(PRINTER))
    kopierer = AlfonsCard.objects.get(key="kopierer")
    save_translation(kopierer, "text", "en", "You repair the copier. Move forward 2 spaces.",
                     "approved")
    texts = [s.text for s in memory_for("en").suggest(PRINTER)]
    assert "You repair the copier. Move forward 2 spaces." in texts
    assert not any(t.startswith("You fix the photocopier") for t in texts)
    save_translation(kopierer, "text", "en", "You repair the copier. Move forward 2 spaces.",
                     "translated")
    assert memory_for("en").suggest(PRINTER) == []  # only approved texts are offered


def test_memory_forgets_a_deleted_approved_translation(printer):
    assert any(s.text.startswith("You fix the photocopier") for s in memory_for("en").suggest(PRINTER))
    kopierer = AlfonsCard.objects.get(key="kopierer")
    Translation.objects.filter(object_id=kopierer.pk, field="text", language="en",
                               content_type=ContentType.objects.get_for_model(AlfonsCard)).delete()
    assert not any(s.text.startswith("You fix the photocopier")
                   for s in memory_for("en").suggest(PRINTER))


def test_the_editor_offers_suggestions_with_their_score(printer, tina):
    page = tina.get(EDITOR, {"state": "empty"}).content.decode()
    row = page[page.index(f'id="unit-{_ident(printer)}"'):]
    row = row[:row.index("</tr>")]
    assert 'class="take-suggestion"' in row
    assert 'data-text="You fix the photocopier. Move forward 2 spaces."' in row
    assert "% · from “" in row


# --- a saved row stays on the page -----------------------------------------------------------------


def test_a_saved_text_stays_on_the_missing_page_marked_saved(printer, tina):
    ident = _ident(printer)
    response = tina.post(EDITOR + "?state=empty", {
        f"text-{ident}": "You fix the printer. Move forward 2 spaces", f"state-{ident}": "translated",
        f"was-text-{ident}": "", f"was-state-{ident}": "translated", f"version-{ident}": "0"})
    assert response.status_code == 302
    assert "shown=" in response["Location"] and f"saved={ident}" in response["Location"]
    page = tina.get(response["Location"]).content.decode()
    row = page[page.index(f'id="unit-{ident}"'):]
    row = row[:row.index("</tr>")]
    assert "saved" in row and "✓ saved" in row
    assert "finding-ending-punctuation" in row  # its problems are seen after the save
    assert "Nothing to translate here" not in page
    # the counts say which rows these are, not "page 1 of 1 (0 texts)" under a shown row
    assert "1 text kept on the page after your save" in page
    assert "(0 texts)" not in page
    fresh = tina.get(EDITOR, {"state": "empty"}).content.decode()
    assert f'id="unit-{ident}"' not in fresh  # left and opened again: the page as it is now


def test_the_kept_rows_are_read_from_the_database_not_the_url(printer, tina):
    oma = ConceptCard.objects.get(key="oma")
    url = EDITOR + f"?state=empty&shown=alfonscard-{printer.pk}-text,conceptcard-{oma.pk}-text"
    page = tina.get(url).content.decode()
    assert "✓ saved" not in page  # nothing was saved: no row is marked
    assert f'id="unit-conceptcard-{oma.pk}-text"' not in page  # not a text of this game


def test_the_check_answer_is_json_with_every_part(printer, tina):
    answer = json.loads(_check(tina, printer, "You fix the printer.").content)
    assert set(answer) >= {"unit", "length", "refused", "findings", "previews", "problems"}


def test_memory_offers_no_noise_for_short_names():
    """Issue 37, item 11: fuzzy suggestions for short names were noise ("Ein Star" offered
    "A common starling"'s neighbours because both begin with "Ein")."""
    memory = Memory.build([
        (1, 1, "name", "Ein Stern", "A star"),
        (1, 2, "name", "Ein Hühnerei der Größe M", "A size M hen's egg"),
        (1, 3, "name", "Eine Kiwifrucht", "A kiwifruit"),
        (1, 4, "name", "Ein Tennisball", "A tennis ball"),
    ])
    assert memory.suggest("Ein Star") == []
    assert memory.suggest("Ein Straußenei") == []
    assert memory.suggest("Eine Kiwi") == []
    # a short text still gets one that shares its word: a near-identical one, or the same
    # word with another article
    close = memory.suggest("Ein Tennisbal")
    assert [s.text for s in close] == ["A tennis ball"] and close[0].score >= 85
    assert [s.text for s in memory.suggest("Der Stern")] == ["A star"]
    # and a longer text its similar neighbours, as before
    assert [s.text for s in memory.suggest("Ein Hühnerei der Größe L")] == ["A size M hen's egg"]


def test_the_editors_show_links_are_in_sentence_case_as_the_filters(tina):
    """Issue 37, item 11: "Show: all missing Translated Approved Needs editing"."""
    import re

    page = tina.get(reverse("admin:cards_translate", args=["sauschwer", "en"])).content.decode()
    show = page[page.index('<p class="filters">'):]
    show = show[:show.index("</p>")]
    labels = re.findall(r">([^<>]+)</a>", show)
    assert labels == ["All", "Missing", "Needs editing", "Translated", "Approved"]
