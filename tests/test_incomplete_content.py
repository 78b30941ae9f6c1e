"""A slogan card is one unit (issue 10, failure 7).

A card, its two slogans and each slogan's four options (exactly one correct) are checked as a
whole wherever they are written — the admin, the slogans import, a revert from the history —
and nothing incomplete is stored. Whatever reads them (packs, print, play) refuses an
incomplete card naming it and what is missing: never a 500, never a schema dump.
"""

from __future__ import annotations

import copy
import json

import pytest
import tablib
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory
from django.urls import reverse

from cards.models import BrandOwnership, Slogan, SloganCard, SloganOption
from cards.resources import SloganResource
from cards.validation import find_problems, slogan_card_problems
from curation.print_pages import print_view
from exports.errors import PackError
from exports.models import Release
from exports.packs import build_pack, load_pack, publish, validate
from exports.pdf.cards import groups_of
from tests.publishing import confirm_publish

pytestmark = pytest.mark.django_db

OPTIONS = {1: ["Haribo", "Katjes", "Storck", "Trolli"], 2: ["Persil", "Ariel", "Omo", "Dash"]}


def own_brands() -> None:
    """The new cards' brands get an owner each (a brand without one is a finding)."""
    for name in OPTIONS[1] + OPTIONS[2]:
        BrandOwnership.objects.get_or_create(brand=name, defaults={
            "group": name, "source": f"https://de.wikipedia.org/wiki/{name}"})


MANAGEMENT = {
    "slogans-TOTAL_FORMS": "2", "slogans-INITIAL_FORMS": "0",
    "slogans-MIN_NUM_FORMS": "2", "slogans-MAX_NUM_FORMS": "2",
}


@pytest.fixture
def curator(client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    client.user = user
    return client


def slogan_row(n: int, side: int, text: str, key: str, options: list[str] | None,
               correct: int | None) -> dict[str, str]:
    row = {f"slogans-{n}-side": str(side), f"slogans-{n}-text": text, f"slogans-{n}-key": key,
           f"slogans-{n}-card": "", f"slogans-{n}-id": "",
           f"slogans-{n}-source": "Werbung, 1990"}  # required in the admin
    for i, option in enumerate(options or ["", "", "", ""], start=1):
        row[f"slogans-{n}-option_{i}"] = option
    row[f"slogans-{n}-correct"] = str(correct or "")
    return row


def snapshot() -> tuple:
    return (
        list(SloganCard.objects.order_by("key").values_list("key", flat=True)),
        list(Slogan.objects.order_by("key").values_list("key", "card__key", "side", "text")),
        list(SloganOption.objects.order_by("slogan__key", "position").values_list(
            "slogan__key", "position", "text", "is_correct")),
    )


def break_card_behind_the_models_back() -> SloganCard:
    """karte-003 with one slogan and no options, as a bad migration or SQL could leave it."""
    card = SloganCard.objects.create(key="karte-003")
    Slogan.objects.create(card=card, side=1, key="haribo-macht-kinder-froh",
                          text="… macht Kinder froh.")
    return card


# --- the unit rule ------------------------------------------------------------------------


def test_a_complete_card_has_no_problems_and_each_missing_part_is_named():
    four = [("A", False), ("B", True), ("C", False), ("D", False)]
    assert slogan_card_problems({1: ("a", four), 2: ("b", four)}) == []
    assert slogan_card_problems({1: ("a", four)}) == ["slogan 2 is missing"]
    assert slogan_card_problems({}) == ["slogan 1 is missing", "slogan 2 is missing"]
    assert slogan_card_problems({1: ("a", four), 2: ("b", [])}) == ["slogan 2 (b) has 0 of 4 options"]
    assert slogan_card_problems({1: ("a", four[:3]), 2: ("b", four + four[:1])}) == [
        "slogan 1 (a) has 3 of 4 options", "slogan 2 (b) has 5 of 4 options"]
    assert slogan_card_problems({1: ("a", [(t, False) for t, _ in four]), 2: ("b", four)}) == [
        "slogan 1 (a): Exactly one answer option must be correct, not 0"]
    assert slogan_card_problems({1: ("a", four), 2: ("b", four), 3: ("c", four)}) == [
        "has a slogan on side 3; a card has sides 1 and 2 only"]


# --- the admin ------------------------------------------------------------------------------


def test_a_slogan_card_with_one_slogan_is_not_saved_in_the_admin(mini_catalogue, curator):
    before = snapshot()
    data = {"key": "karte-003", **MANAGEMENT,
            **slogan_row(0, 1, "… macht Kinder froh.", "haribo", OPTIONS[1], 1)}
    response = curator.post(reverse("admin:cards_slogancard_add"), data)
    assert response.status_code == 200
    assert snapshot() == before
    html = response.content.decode()
    assert "This field is required." in html  # the second slogan's row is not optional


def test_slogans_without_options_are_not_saved_in_the_admin(mini_catalogue, curator):
    before = snapshot()
    data = {"key": "karte-003", **MANAGEMENT,
            **slogan_row(0, 1, "… macht Kinder froh.", "haribo", None, None),
            **slogan_row(1, 2, "… wäscht so weiß.", "persil", None, None)}
    response = curator.post(reverse("admin:cards_slogancard_add"), data)
    assert response.status_code == 200
    assert snapshot() == before


def test_a_slogan_whose_options_break_the_rules_keeps_the_whole_card_out(mini_catalogue, curator):
    before = snapshot()
    data = {"key": "karte-003", **MANAGEMENT,
            **slogan_row(0, 1, "… macht Kinder froh.", "haribo", OPTIONS[1], 1),
            **slogan_row(1, 2, "… wäscht so weiß.", "persil",
                         ["Persil", "persil!", "Omo", "Dash"], 2)}
    response = curator.post(reverse("admin:cards_slogancard_add"), data)
    assert response.status_code == 200
    assert "the same option appears twice" in response.content.decode()
    assert snapshot() == before


def test_two_slogans_on_one_side_are_refused(mini_catalogue, curator):
    before = snapshot()
    data = {"key": "karte-003", **MANAGEMENT,
            **slogan_row(0, 1, "… macht Kinder froh.", "haribo", OPTIONS[1], 1),
            **slogan_row(1, 1, "… wäscht so weiß.", "persil", OPTIONS[2], 1)}
    response = curator.post(reverse("admin:cards_slogancard_add"), data)
    assert response.status_code == 200
    assert "Please correct the duplicate data for side." in response.content.decode()
    assert snapshot() == before


def test_a_complete_card_is_saved_with_both_slogans_and_options_in_one_go(mini_catalogue, curator):
    data = {"key": "karte-003", **MANAGEMENT,
            **slogan_row(0, 1, "… macht Kinder froh.", "haribo", OPTIONS[1], 1),
            **slogan_row(1, 2, "… wäscht so weiß.", "persil", OPTIONS[2], 1)}
    response = curator.post(reverse("admin:cards_slogancard_add"), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    card = SloganCard.objects.get(key="karte-003")
    assert [(s.side, s.key) for s in card.slogans.order_by("side")] == [(1, "haribo"), (2, "persil")]
    assert list(SloganOption.objects.filter(slogan__key="persil").values_list("text", "is_correct")) \
        == [("Persil", True), ("Ariel", False), ("Omo", False), ("Dash", False)]
    own_brands()
    assert find_problems() == []
    # and the card page shows the options back, ready to edit
    page = curator.get(reverse("admin:cards_slogancard_change", args=[card.pk])).content.decode()
    assert 'value="Trolli"' in page


def test_changing_the_correct_option_on_the_card_page_moves_the_star(mini_catalogue, curator):
    card = SloganCard.objects.get(key="karte-002")
    data = {"key": "karte-002", **MANAGEMENT, "slogans-INITIAL_FORMS": "2"}
    for n, slogan in enumerate(card.slogans.order_by("side")):
        options = [o.text for o in slogan.options.order_by("position")]
        correct = 2 if slogan.key == "just-do-it" else slogan.correct_option.position
        data.update(slogan_row(n, slogan.side, slogan.text, slogan.key, options, correct))
        data[f"slogans-{n}-id"] = str(slogan.pk)
        data[f"slogans-{n}-card"] = str(card.pk)
        if slogan.keep_german:
            data[f"slogans-{n}-keep_german"] = "on"
    response = curator.post(reverse("admin:cards_slogancard_change", args=[card.pk]), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Slogan.objects.get(key="just-do-it").correct_option.text == "Puma"


def test_an_incomplete_card_already_stored_can_be_completed_on_its_page(mini_catalogue, curator):
    card = break_card_behind_the_models_back()
    slogan = card.slogans.get()
    page = curator.get(reverse("admin:cards_slogancard_change", args=[card.pk])).content.decode()
    assert 'name="slogans-1-text"' in page  # a row for the missing second slogan
    data = {"key": "karte-003", **MANAGEMENT, "slogans-INITIAL_FORMS": "1",
            **slogan_row(0, 1, slogan.text, slogan.key, OPTIONS[1], 1),
            **slogan_row(1, 2, "… wäscht so weiß.", "persil", OPTIONS[2], 1)}
    data["slogans-0-id"], data["slogans-0-card"] = str(slogan.pk), str(card.pk)
    response = curator.post(reverse("admin:cards_slogancard_change", args=[card.pk]), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    own_brands()
    assert find_problems() == []


def test_a_slogan_cannot_be_added_to_a_card_that_has_both(mini_catalogue, curator):
    before = snapshot()
    card = SloganCard.objects.get(key="karte-001")
    response = curator.post(reverse("admin:cards_slogan_add"), {
        "card": card.pk, "side": "2", "text": "Neu.", "key": "neu", "source": "",
        "options-TOTAL_FORMS": "4", "options-INITIAL_FORMS": "0",
        **{f"options-{i}-{f}": v for i in range(4) for f, v in
           (("position", str(i + 1)), ("text", f"Marke {i}"))},
        "options-0-is_correct": "on",
        "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
        "cards-translation-content_type-object_id-INITIAL_FORMS": "0",
    })
    assert response.status_code == 200
    assert "has no gap on side 2" in response.content.decode()
    assert snapshot() == before


def test_a_slogan_is_not_deleted_or_moved_on_its_own(mini_catalogue, curator):
    before = snapshot()
    slogan = Slogan.objects.get(key="just-do-it")
    response = curator.post(reverse("admin:cards_slogan_delete", args=[slogan.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:cards_slogancard_change", args=[slogan.card_id])
    assert snapshot() == before
    listing = curator.get(reverse("admin:cards_slogan_changelist")).content.decode()
    assert "delete_selected" not in listing
    page = curator.get(reverse("admin:cards_slogan_change", args=[slogan.pk])).content.decode()
    assert 'name="card"' not in page and 'name="side"' not in page


def test_reverting_a_card_to_a_state_without_slogans_is_refused(mini_catalogue, curator):
    # A card deleted, its slogans' history purged: the revert would bring back an empty card.
    card = SloganCard.objects.get(key="karte-002")
    pk = card.pk
    curator.post(reverse("admin:cards_slogancard_delete", args=[pk]), {"post": "yes"})
    Slogan.history.filter(card_id=pk).delete()
    version = SloganCard.history.filter(id=pk).exclude(history_type="-").first()
    url = reverse("admin:cards_slogancard_simple_history", args=[pk, version.history_id])
    response = curator.post(url, {"key": "karte-002"})
    assert response.status_code == 302
    assert not SloganCard.objects.filter(pk=pk).exists()
    shown = [str(m) for m in response.wsgi_request._messages]
    assert any("Nothing was reverted: slogan card karte-002: slogan 1 is missing." in m
               for m in shown), shown


# --- the spreadsheet import -------------------------------------------------------------------


SLOGAN_HEADERS = ["card", "side", "key", "text", "option_1", "option_2", "option_3", "option_4",
                  "correct"]


def test_a_slogans_file_with_one_side_of_a_new_card_is_refused_whole(mini_catalogue):
    before = snapshot()
    data = tablib.Dataset(headers=SLOGAN_HEADERS)
    data.append(["karte-001", "1", "quadratisch-praktisch-gut", "Quadratisch. Praktisch. Gut.",
                 "Milka", "Ritter Sport", "Lindt", "Hachez", "2"])
    data.append(["karte-003", "1", "haribo", "… macht Kinder froh.", *OPTIONS[1], "1"])
    result = SloganResource(preview=False).import_data(data, dry_run=False, use_transactions=True,
                                                       rollback_on_validation_errors=True)
    assert result.has_errors()
    message = str(result.base_errors[0].error)
    assert "slogan card karte-003 (rows 3): slogan 2 is missing." in message
    assert snapshot() == before


def test_a_slogans_file_that_moves_a_slogan_away_leaves_no_gap(mini_catalogue):
    before = snapshot()
    data = tablib.Dataset(headers=SLOGAN_HEADERS)
    data.append(["karte-003", "1", "just-do-it", "Just do it.", "Adidas", "Puma", "Reebok", "Nike",
                 "4"])
    result = SloganResource(preview=False).import_data(data, dry_run=False, use_transactions=True,
                                                       rollback_on_validation_errors=True)
    assert result.has_errors()
    message = str(result.base_errors[0].error)
    assert "slogan card karte-002: slogan 2 is missing" in message
    assert "slogan card karte-003 (rows 2): slogan 2 is missing" in message
    assert snapshot() == before


def test_a_slogans_file_with_whole_cards_is_imported(mini_catalogue, run_command, tmp_path):
    path = tmp_path / "slogans.csv"
    path.write_text(
        "card,side,key,text,option_1,option_2,option_3,option_4,correct\n"
        f"karte-003,1,haribo,… macht Kinder froh.,{','.join(OPTIONS[1])},1\n"
        f"karte-003,2,persil,… wäscht so weiß.,{','.join(OPTIONS[2])},1\n",
        encoding="utf-8",
    )
    status, _out, err = run_command("import_content", str(path))
    assert status == 0, err
    own_brands()
    assert find_problems() == []


def test_the_command_names_the_incomplete_card(mini_catalogue, run_command, tmp_path):
    before = snapshot()
    path = tmp_path / "slogans.csv"
    path.write_text(
        "card,side,key,text,option_1,option_2,option_3,option_4,correct\n"
        f"karte-003,2,persil,… wäscht so weiß.,{','.join(OPTIONS[2])},1\n",
        encoding="utf-8",
    )
    status, _out, err = run_command("import_content", str(path))
    assert status == 1
    assert "slogan card karte-003 (rows 2): slogan 1 is missing" in err
    assert snapshot() == before


# --- everything downstream ---------------------------------------------------------------------


def test_validate_content_names_the_incomplete_card(mini_catalogue, run_command):
    break_card_behind_the_models_back()
    status, out, _err = run_command("validate_content")
    assert status == 1
    assert "slogan card 'karte-003': slogan 1 (haribo-macht-kinder-froh) has 0 of 4 options." in out
    assert "slogan card 'karte-003': slogan 2 is missing." in out


def test_publishing_an_incomplete_card_is_refused_by_name_without_a_schema_dump(mini_catalogue,
                                                                               run_command):
    break_card_behind_the_models_back()
    with pytest.raises(PackError) as exc:
        publish("slogan", "de")
    message = str(exc.value)
    assert "slogan card karte-003: slogan 1 (haribo-macht-kinder-froh) has 0 of 4 options" in message
    assert "slogan card karte-003: slogan 2 is missing" in message
    assert "is too short" not in message and "{'" not in message
    status, _out, err = run_command("publish_pack", "slogan", "--lang", "de")
    assert status != 0 and "slogan card karte-003" in err and "Traceback" not in err
    assert not Release.objects.exists()


def test_the_publish_page_reports_the_incomplete_card(mini_catalogue, curator):
    break_card_behind_the_models_back()
    # German: the broken card's one slogan is known in the German market only, so the
    # English edition does not hold the card at all (cards are in an edition whole).
    response = confirm_publish(curator, "slogan", "de")
    assert response.status_code == 200
    assert "slogan card karte-003: slogan 2 is missing" in response.content.decode()
    assert not Release.objects.exists()


def request_as(user, data):
    request = RequestFactory().post("/admin/", data)
    request.user = user
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def test_printing_the_slogan_deck_names_the_incomplete_card_instead_of_a_500(mini_catalogue,
                                                                            curator):
    break_card_behind_the_models_back()
    form = {"language": "de", "release": "draft", "size": "poker", "paper": "a4",
            "sides": "duplex-long", "crop_marks": "on", "bleed": "3", "gap": "0",
            "back_offset": "0,0", "min_font_size": "6", "profile": "", "print": "Download PDF"}
    response = print_view(admin.site, request_as(curator.user, form), "slogan")
    assert response.status_code == 200
    html = response.render().content.decode()
    assert "slogan card karte-003: slogan 2 is missing" in html


def test_render_deck_and_simulate_refuse_an_incomplete_draft_by_name(mini_catalogue, run_command,
                                                                     tmp_path):
    break_card_behind_the_models_back()
    status, _out, err = run_command("render_deck", "slogan", "--lang", "de", "--release", "draft",
                                    "--out", str(tmp_path / "deck.pdf"))
    assert status != 0 and "slogan card karte-003: slogan 2 is missing" in err
    assert not (tmp_path / "deck.pdf").exists() or (tmp_path / "deck.pdf").stat().st_size == 0
    status, _out, err = run_command("simulate", "slogan", "--games", "1", "--lang", "de")
    assert status != 0 and "slogan card karte-003: slogan 2 is missing" in err
    with pytest.raises(PackError, match="slogan card karte-003: slogan 2 is missing"):
        load_pack("slogan", "de", release="draft")


def test_a_hand_edited_pack_file_names_the_card_that_lost_its_options(mini_catalogue, run_command,
                                                                     tmp_path):
    pack = build_pack("slogan", "de")
    broken = copy.deepcopy(pack)
    broken["body"]["cards"][0]["slogans"][1]["options"] = []
    with pytest.raises(PackError) as exc:
        validate(broken)
    assert ("slogan card karte-001: slogan 2 (ich-bin-doch-nicht-bloed) has 0 of 4 options"
            in str(exc.value))
    one_sided = copy.deepcopy(pack)
    del one_sided["body"]["cards"][1]["slogans"][1]
    with pytest.raises(PackError, match="slogan card karte-002: slogan 2 is missing"):
        validate(one_sided)
    with pytest.raises(PackError, match="slogan card karte-002: slogan 2 is missing"):
        groups_of(one_sided)
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    status, _out, err = run_command("render_deck", "slogan", "--lang", "de", "--pack", str(path),
                                    "--out", str(tmp_path / "deck.pdf"))
    assert status != 0 and "slogan card karte-001" in err and "is too short" not in err


def test_a_schema_error_names_the_card_and_does_not_dump_it(mini_catalogue):
    pack = build_pack("sauschwer", "en")
    broken = copy.deepcopy(pack)
    broken["body"]["cards"][0] = {"key": "ein-huehnerei", "name": "x" * 500}  # lost its weight
    with pytest.raises(PackError) as exc:
        validate(broken)
    message = str(exc.value)
    assert message.startswith("The pack does not match the schema at body/cards/0: ")
    assert "(in ein-huehnerei)" in message
    assert "x" * 50 not in message and len(message) < 400
