"""What a release will change (exports/changes.py): a scripted edit — a card added, one
deleted, a field changed, a translation changed, a slogan's option changed — is listed exactly,
per game and language, field by field; the release keeps it with the curator's note."""

from __future__ import annotations

import copy
import json

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction

from cards.models import SauschwerObject, Slogan, Translation
from exports.changes import changed_cards, pack_changes, shown, summary
from exports.errors import PackError
from exports.models import Release, ReleaseIsImmutable
from exports.packs import PublishConflict, build_pack, pending, publish


def scripted_edit() -> None:
    """Add an object, delete one, change a weight, change an English name, change an option."""
    SauschwerObject.objects.create(key="ein-stein", name="Ein Stein", weight_g=500,
                                   source="gewogen")
    SauschwerObject.objects.get(key="eine-bowlingkugel").delete()
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    egg.weight_g = 62
    egg.save()
    tower = SauschwerObject.objects.get(key="der-eiffelturm")
    translation = Translation.objects.get(
        content_type=ContentType.objects.get_for_model(SauschwerObject), object_id=tower.pk,
        field="name", language="en")
    translation.text = "Eiffel Tower"
    translation.save()
    option = Slogan.objects.get(key="just-do-it").options.get(position=3)
    option.text = "Asics"
    option.save()


def fields_of(changes: dict, key: str) -> list[tuple[str, str, str]]:
    found = [item for entry in changes["lists"] for item in entry["changed"] if item["key"] == key]
    assert len(found) == 1, key
    return [(f["label"], shown(f["old"]), shown(f["new"])) for f in found[0]["fields"]]


def listed(changes: dict, what: str) -> list[str]:
    return [item["key"] for entry in changes["lists"] for item in entry[what]]


@pytest.fixture
def released(mini_catalogue):
    for game in ("sauschwer", "slogan"):
        for language in ("de", "en"):
            assert publish(game, language).created


def test_a_scripted_edit_is_listed_exactly_in_english(released):
    scripted_edit()
    changes = pending("sauschwer", "en").changes
    assert changes["since"] == 1
    assert changes["counts"] == {"added": 1, "removed": 1, "changed": 2}
    assert listed(changes, "added") == ["ein-stein"]
    assert listed(changes, "removed") == ["eine-bowlingkugel"]
    assert listed(changes, "changed") == ["der-eiffelturm", "ein-huehnerei"]
    assert fields_of(changes, "ein-huehnerei") == [("weight (g)", "60", "62")]
    assert fields_of(changes, "der-eiffelturm") == [
        ("name (en)", "The Eiffel Tower", "Eiffel Tower")]
    added = changes["lists"][0]["added"][0]
    # a new object has no translation yet: the English pack falls back to German
    assert added == {"key": "ein-stein", "title": "Ein Stein"}
    assert summary(changes) == "1 added, 1 removed, 2 changed since release 1"


def test_a_translation_changes_only_its_own_language(released):
    scripted_edit()
    changes = pending("sauschwer", "de").changes
    assert changes["counts"] == {"added": 1, "removed": 1, "changed": 1}
    assert fields_of(changes, "ein-huehnerei") == [("weight (g)", "60", "62")]


def test_a_changed_option_is_named_by_slogan_and_position(released):
    scripted_edit()
    german = pending("slogan", "de").changes
    assert german["counts"] == {"added": 0, "removed": 0, "changed": 1}
    assert fields_of(german, "karte-002") == [("slogan 2 › option 3 › text", "Reebok", "Asics")]
    assert german["lists"][0]["changed"][0]["title"] == "Nichts ist unmöglich. / Just do it."
    # English: the translation stays, but now follows a German source it was not made from
    english = pending("slogan", "en").changes
    assert fields_of(english, "karte-002") == [
        ("slogan 2 › option 3 › translation state", "approved", "needs_editing"),
        ("slogan 2 › option 3 › German source", "Reebok", "Asics")]


def test_moving_the_correct_answer_lists_both_options(released):
    slogan = Slogan.objects.get(key="nichts-ist-unmoeglich")
    first, second = slogan.options.get(position=1), slogan.options.get(position=2)
    first.is_correct, second.is_correct = False, True
    with transaction.atomic():
        first.save()
        second.save()
    assert fields_of(pending("slogan", "de").changes, "karte-002") == [
        ("slogan 1 › option 1 › correct answer", "yes", "no"),
        ("slogan 1 › option 2 › correct answer", "no", "yes")]


def test_unchanged_content_has_no_changes_and_nothing_to_publish(released):
    state = pending("sauschwer", "en")
    assert state.empty and state.version == 2
    assert state.changes["counts"] == {"added": 0, "removed": 0, "changed": 0}
    assert state.changes["lists"][0]["changed"] == []


def test_the_first_release_adds_every_card(mini_catalogue):
    changes = pending("sauschwer", "de").changes
    assert changes["since"] is None
    assert changes["counts"] == {"added": 6, "removed": 0, "changed": 0}
    assert summary(changes) == "first release: 6 added, 0 removed, 0 changed"
    keys = [card["key"] for card in build_pack("sauschwer", "de")["body"]["cards"]]
    assert listed(changes, "added") == keys  # in the pack's order


def test_a_new_picture_is_shown_by_its_digest(mini_catalogue):
    old = build_pack("symbols", "de")
    new = copy.deepcopy(old)
    tile = new["body"]["symbols"][0]
    tile["picture"] = {**tile["picture"], "sha256": "ab" * 32, "url": f"/api/pictures/{'ab' * 32}.png",
                       "width": 256}
    changes = pack_changes({**old, "content_version": 3}, new)
    assert fields_of(changes, tile["key"]) == [
        ("picture", old["body"]["symbols"][0]["picture"]["sha256"], "ab" * 32),
        ("picture › width", "512", "256")]
    assert changed_cards(changes) == [{"game": "symbols", "language": "de", "key": tile["key"],
                                       "previous_version": 3, "list": "symbols"}]


def test_the_order_is_the_same_whatever_order_the_pack_keys_come_in(released):
    scripted_edit()
    old = json.loads(bytes(Release.objects.get(game="slogan", language="en", version=1).data))
    new = build_pack("slogan", "en")
    shuffled = json.loads(json.dumps(new, sort_keys=True))  # as a release stores it
    assert pack_changes(old, new) == pack_changes(old, shuffled)


def test_the_release_keeps_the_changes_and_the_note(released):
    scripted_edit()
    expected = pending("sauschwer", "en").changes
    release = publish("sauschwer", "en", note="  Ein Stein kam dazu.\r\nDanke, Bea!  ").release
    assert release.note == "Ein Stein kam dazu.\nDanke, Bea!"
    assert release.changes == expected
    assert Release.objects.get(pk=release.pk).changes == expected


def test_release_notes_never_change(released):
    release = Release.objects.get(game="sauschwer", language="en", version=1)
    release.note = "rewritten"
    with pytest.raises(ReleaseIsImmutable):
        release.save()
    with pytest.raises(ReleaseIsImmutable):
        Release.objects.filter(pk=release.pk).update(note="rewritten")
    table = Release._meta.db_table
    for column, value in (("note", "rewritten"), ("changes", "{}")):
        with pytest.raises(Exception, match="releases are immutable"), transaction.atomic(), \
                connection.cursor() as cursor:
            cursor.execute(f"UPDATE {table} SET {column} = %s WHERE id = %s", [value, release.pk])
    stored = Release.objects.get(pk=release.pk)
    assert stored.note == "" and stored.changes["counts"]["added"] == 6


@pytest.mark.parametrize("note,message", [
    ("x" * 2001, "at most 2,000"),
    ("bad\x00byte", "control character"),
    ("bell\x07", "control character"),
])
def test_a_bad_note_is_refused_and_nothing_is_published(released, note, message):
    scripted_edit()
    with pytest.raises(PackError, match=message):
        publish("sauschwer", "en", note=note)
    assert Release.objects.filter(game="sauschwer", language="en").count() == 1


def test_a_release_published_meanwhile_stops_the_one_reviewed_before_it(released):
    scripted_edit()
    seen = pending("sauschwer", "en")
    publish("sauschwer", "en")  # another curator, a moment earlier
    with pytest.raises(PublishConflict, match="while you were reviewing"):
        publish("sauschwer", "en", reviewed_version=seen.latest.version,
                reviewed_sha256=seen.draft["sha256"])
    assert Release.objects.filter(game="sauschwer", language="en").count() == 2


def test_content_changed_after_the_review_is_not_published(released):
    scripted_edit()
    seen = pending("sauschwer", "en")
    SauschwerObject.objects.create(key="ein-ziegel", name="Ein Ziegel", weight_g=2500, source="x")
    with pytest.raises(PublishConflict, match="content changed"):
        publish("sauschwer", "en", reviewed_version=seen.latest.version,
                reviewed_sha256=seen.draft["sha256"])
    assert Release.objects.filter(game="sauschwer", language="en").count() == 1


def test_the_api_release_index_shows_each_releases_notes(released, client):
    scripted_edit()
    second = publish("sauschwer", "en", note="Ein Stein kam dazu.").release
    first = Release.objects.get(game="sauschwer", language="en", version=1)
    # a release from before releases kept their notes
    Release.objects.create(game="sign", language="de", version=1, body_sha256="1" * 64,
                           data=b"{}")
    index = client.get("/api/packs/").json()
    packs = {(g["game"], lang["language"]): lang["releases"] for g in index["games"]
             for lang in g["languages"]}
    assert packs["sauschwer", "en"] == [
        {"version": 2, "sha256": second.sha256, "content_sha256": second.body_sha256,
         "size": second.size, "published_at": second.published_at.isoformat(),
         "url": "/api/packs/sauschwer/en/2.json", "note": "Ein Stein kam dazu.",
         "changes": {"since": 1, "added": 1, "removed": 1, "changed": 2}},
        {"version": 1, "sha256": first.sha256, "content_sha256": first.body_sha256,
         "size": first.size, "published_at": first.published_at.isoformat(),
         "url": "/api/packs/sauschwer/en/1.json", "note": "",
         "changes": {"since": None, "added": 6, "removed": 0, "changed": 0}}]
    assert packs["sign", "de"][0]["changes"] is None and packs["sign", "de"][0]["note"] == ""


def test_a_deck_names_both_digests_as_the_releases_list_does(released, admin_client):
    import io

    import pypdf

    from exports.packs import load_pack
    from exports.pdf import DeckOptions, render_deck

    release = Release.objects.get(game="sauschwer", language="de", version=1)
    pages = {}
    for which in (1, "draft"):
        out = io.BytesIO()
        render_deck(load_pack("sauschwer", "de", release=which), DeckOptions(), out)
        pages[which] = " ".join(pypdf.PdfReader(io.BytesIO(out.getvalue())).pages[0]
                                .extract_text().split())
    # The draft holds the same content as release 1: one content digest, named alike.
    for text in pages.values():
        assert f"Content sha256 {release.body_sha256}" in text
    assert f"Release file sha256 {release.sha256}" in pages[1]
    assert "Release file sha256" not in pages["draft"]
    listed = admin_client.get("/admin/exports/release/").content.decode()
    assert "content sha256" in listed.lower() and release.body_sha256[:12] in listed
    assert "first release: 6 added" in listed  # the changes' counts, read from inside the JSON
    page = admin_client.get(f"/admin/exports/release/{release.pk}/change/").content.decode()
    assert release.sha256 in page and release.body_sha256 in page
    assert "File sha256" in page and "Content sha256" in page


@pytest.mark.django_db(transaction=True)
def test_two_curators_confirming_at_once_make_exactly_one_release(mini_catalogue):
    """Real threads, each with its own connection, through the whole review form: one
    release per version, and the other curator is told nothing was published."""
    from django.contrib.auth.models import Group, User
    from django.test import Client

    from tests.publishing import review_url, reviewed
    from tests.test_concurrency import race

    clients = []
    for name in ("anna", "bernd"):
        user = User.objects.create_user(name, "", "pw", is_staff=True)
        user.groups.add(Group.objects.get(name="Curators"))
        client = Client()
        client.force_login(user)
        clients.append(client)
    publish("sauschwer", "en")
    for round_number in range(2):
        SauschwerObject.objects.create(key=f"stein-{round_number}", name=f"Stein {round_number}",
                                       weight_g=500 + round_number, source="gewogen")
        forms = [reviewed(c.get(review_url("sauschwer", "en")).content.decode()) for c in clients]
        posts = [lambda c=c, f=f: c.post(review_url("sauschwer", "en"),
                                         {**f, "confirm": "on", "publish_untranslated": "on", "note": "mine"})
                 for c, f in zip(clients, forms, strict=True)]
        answers = race(*posts)
        codes = sorted(getattr(a, "status_code", repr(a)) for a in answers)
        assert codes == [200, 302], (round_number, codes)
        loser = next(a for a in answers if a.status_code == 200).content.decode()
        assert "while you were reviewing: nothing was published" in loser
        versions = list(Release.objects.filter(game="sauschwer", language="en")
                        .values_list("version", flat=True))
        assert sorted(versions) == list(range(1, round_number + 3))
        newest = Release.objects.latest_of("sauschwer", "en")
        assert newest.changes["counts"] == {"added": 1, "removed": 0, "changed": 0}


@pytest.fixture
def curator_client(client):
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user("carla", "", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def test_publishing_without_the_tick_publishes_nothing_and_keeps_the_note(released,
                                                                         curator_client):
    from tests.publishing import review_url, reviewed

    scripted_edit()
    url = review_url("sauschwer", "en")
    form = reviewed(curator_client.get(url).content.decode())
    page = curator_client.post(url, {**form, "note": "Mein Text"}).content.decode()
    assert "Tick the box to confirm: a release is frozen for good." in page
    assert "Mein Text</textarea>" in page
    assert Release.objects.filter(game="sauschwer", language="en").count() == 1


@pytest.mark.parametrize("form", [
    {},  # a form without what the page showed (forged, or from an older page)
    {"reviewed_version": "1", "reviewed_sha256": "not a digest"},
])
def test_a_confirmation_without_what_was_reviewed_shows_the_review_again(released,
                                                                         curator_client, form):
    from tests.publishing import review_url, reviewed

    scripted_edit()
    page = curator_client.post(review_url("sauschwer", "en"), {**form, "confirm": "on",
        "publish_untranslated": "on"})
    assert page.status_code == 200
    # shown again with the values of what is on screen now: confirming that publishes
    assert reviewed(page.content.decode())["reviewed_version"] == "1"
    assert Release.objects.filter(game="sauschwer", language="en").count() == 1


def test_a_control_character_in_the_note_is_refused_on_the_page(released, curator_client):
    from tests.publishing import review_url, reviewed

    scripted_edit()
    url = review_url("sauschwer", "en")
    form = reviewed(curator_client.get(url).content.decode())
    page = curator_client.post(url, {**form, "confirm": "on",
        "publish_untranslated": "on", "note": "a\x07b"}).content.decode()
    assert "The note holds a control character; write plain text." in page
    assert Release.objects.filter(game="sauschwer", language="en").count() == 1


def test_a_long_change_list_is_folded_and_cut_but_counted(mini_catalogue):
    from curation.publish_pages import OPEN_UP_TO, SHOWN_PER_GROUP, changes_context

    SauschwerObject.objects.bulk_create(
        SauschwerObject(key=f"stein-{i:03}", name=f"Stein {i}", weight_g=i + 1, source="x")
        for i in range(SHOWN_PER_GROUP + 5))
    shown_list = changes_context(pending("sauschwer", "de").changes)["lists"][0]
    assert shown_list["added"]["count"] == SHOWN_PER_GROUP + 11  # the mini catalogue's 6 too
    assert len(shown_list["added"]["items"]) == SHOWN_PER_GROUP
    assert shown_list["added"]["hidden"] == 11 and shown_list["added"]["open"] is False
    assert OPEN_UP_TO < SHOWN_PER_GROUP
