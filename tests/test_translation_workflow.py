"""Translators: the progress page, the side-by-side editor, and what a source change does."""

import pytest
from django.contrib.auth.models import Group, User
from django.urls import reverse

from cards.models import ConceptCard, Slogan, Translation
from cards.progress import progress

pytestmark = pytest.mark.django_db


@pytest.fixture
def tina(client):
    user = User.objects.create_user(username="tina", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Translators"))
    client.force_login(user)
    return client


def test_progress_counts_every_state_per_game(mini_catalogue):
    Translation.objects.filter(text="Love").delete()
    oma = ConceptCard.objects.get(key="oma")
    oma.text = "Großmutter"
    oma.save()
    symbols = progress("symbols", "en")
    assert symbols.counts == {
        "empty": 1, "needs_editing": 1, "translated": 0, "approved": 16, "untranslated": 0,
        "not_printed": 0,
    }
    slogan = progress("slogan", "en")
    # one of the four slogans stays German; its card is known only in Germany, so no English
    # deck prints its other slogan or their eight options: counted apart, not as approved
    assert slogan.counts["untranslated"] == 1 and slogan.counts["not_printed"] == 1 + 8
    assert slogan.counts["approved"] == 2 + 8 + 9


def test_the_progress_page_shows_each_game_and_language(mini_catalogue, tina):
    page = tina.get(reverse("admin:cards_progress")).content.decode()
    for game in ("Sag&#x27;s mit Symbolen", "Sign", "Slogan", "Sauschwer"):
        assert game in page
    assert reverse("admin:cards_translate", args=["symbols", "en"]) in page


def test_the_editor_shows_source_beside_translation_and_what_changed(mini_catalogue, tina):
    oma = ConceptCard.objects.get(key="oma")
    oma.text = "Großmutter"
    oma.save()
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    page = tina.get(url, {"state": "needs_editing"}).content.decode()
    assert "Großmutter" in page
    assert "was: <del>Oma</del>" in page
    assert "Grandmother" in page
    assert "goethe" not in page  # only what needs editing


def test_the_editors_state_select_names_the_states_as_the_filters_do(mini_catalogue, tina):
    import re

    url = reverse("admin:cards_translate", args=["symbols", "en"])
    page = tina.get(url).content.decode()
    select = re.search(r'<select name="state-[^"]+"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None
    labels = re.findall(r"<option [^>]*>([^<]+)</option>", select.group(1))
    assert labels == ["Translated", "Approved", "Needs editing"]
    for label in labels:  # the filter links above the table say the same
        assert f">{label}</a>" in page


def test_a_translator_confirms_and_fills_translations_in_the_editor(mini_catalogue, tina):
    Translation.objects.filter(text="Love").delete()
    liebe = ConceptCard.objects.get(key="liebe")
    oma = ConceptCard.objects.get(key="oma")
    oma.text = "Großmutter"
    oma.save()
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    response = tina.post(url + "?state=", {
        f"text-conceptcard-{liebe.pk}-text": "Love", f"state-conceptcard-{liebe.pk}-text": "translated",
        f"text-conceptcard-{oma.pk}-text": "Grandma", f"state-conceptcard-{oma.pk}-text": "approved",
    })
    assert response.status_code == 302
    assert liebe.translation("text", "en").text == "Love"
    row = Translation.objects.get(text="Grandma")
    # approving is the reviewer's (tests/test_translation_review.py): a translator's is translated
    assert (row.state, row.source_text) == ("translated", "Großmutter")
    assert progress("symbols", "en").counts["needs_editing"] == 0


def test_the_editor_saves_nothing_when_one_text_is_bad(mini_catalogue, tina):
    liebe = ConceptCard.objects.get(key="liebe")
    oma = ConceptCard.objects.get(key="oma")
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    response = tina.post(url, {
        f"text-conceptcard-{liebe.pk}-text": "Amour", f"state-conceptcard-{liebe.pk}-text": "translated",
        f"text-conceptcard-{oma.pk}-text": "Gran\u202ema", f"state-conceptcard-{oma.pk}-text": "translated",
    })
    assert response.status_code == 200
    assert "invisible control characters (U+202E)" in response.content.decode()
    assert liebe.translation("text", "en").text == "Love"


def test_slogans_that_stay_german_are_not_offered_for_translation(mini_catalogue, tina):
    url = reverse("admin:cards_translate", args=["slogan", "en"])
    page = tina.get(url).content.decode()
    kept = Slogan.objects.get(key="ich-bin-doch-nicht-bloed")
    assert f"slogan-{kept.pk}-text" not in page
    assert "answer to: Ich bin doch nicht blöd!" in page  # its options still are


def test_the_editor_is_for_translators_and_curators_only(mini_catalogue, client):
    user = User.objects.create_user(username="visitor", password="pw", is_staff=True)
    client.force_login(user)
    url = reverse("admin:cards_translate", args=["symbols", "en"])
    assert client.get(url).status_code == 403
    assert client.get(reverse("admin:cards_progress")).status_code == 403


def test_an_unknown_game_or_language_is_a_404(mini_catalogue, tina):
    assert tina.get(reverse("admin:cards_translate", args=["poker", "en"])).status_code == 404
    assert tina.get(reverse("admin:cards_translate", args=["symbols", "fr"])).status_code == 404


def test_a_po_round_trip_moves_the_progress_page(mini_catalogue, tina):
    import polib

    from cards.po import export_po, import_po

    Translation.objects.filter(text="Love").delete()
    before = progress("symbols", "en").counts
    po = polib.pofile(export_po("symbols", "en"))
    for entry in po:
        if entry.msgctxt == "liebe:text":
            entry.msgstr = "Love"
    report = import_po(str(po), "symbols", "en")
    assert report.updated == 1 and not report.errors
    after = progress("symbols", "en").counts
    assert (before["empty"], after["empty"]) == (1, 0)
    assert after["translated"] == before["translated"] + 1
    page = tina.get(reverse("admin:cards_progress")).content.decode()
    assert '<td class="num">0</td><td class="num">0</td>\n        <td class="num">1</td>' in page


def po_upload(client, game, language, text, name="symbols-en.po"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    url = reverse("admin:cards_po_upload", args=[game, language])
    return client.post(url, {"po_file": SimpleUploadedFile(name, text.encode("utf-8"))},
                       follow=True)


def test_a_translator_downloads_and_uploads_a_po_file_in_the_admin(mini_catalogue, tina):
    import polib

    Translation.objects.filter(text="Love").delete()
    response = tina.get(reverse("admin:cards_po_download", args=["symbols", "en"]))
    assert response["Content-Disposition"] == 'attachment; filename="kartothek-symbols-en.po"'
    po = polib.pofile(response.content.decode("utf-8"))
    entry = next(e for e in po if e.msgctxt == "liebe:text")
    assert entry.msgstr == ""
    entry.msgstr = "Love"
    page = po_upload(tina, "symbols", "en", str(po)).content.decode()
    assert "1 updated" in page
    row = ConceptCard.objects.get(key="liebe").translation("text", "en")
    assert (row.text, row.state) == ("Love", "translated")


def test_an_approved_translation_is_not_overwritten_by_an_upload(mini_catalogue, tina):
    import polib

    po = polib.pofile(tina.get(reverse("admin:cards_po_download", args=["symbols", "en"]))
                      .content.decode("utf-8"))
    next(e for e in po if e.msgctxt == "oma:text").msgstr = "Granny"
    page = po_upload(tina, "symbols", "en", str(po)).content.decode()
    assert "conflict" in page and "oma" in page
    assert ConceptCard.objects.get(key="oma").translation("text", "en").text == "Grandmother"


def test_an_upload_that_is_not_a_po_file_saves_nothing(mini_catalogue, tina):
    before = list(Translation.objects.values_list("text", "state"))
    page = po_upload(tina, "symbols", "en", "this is not a PO file\n\x00").content.decode()
    assert 'class="error"' in page
    assert list(Translation.objects.values_list("text", "state")) == before


def test_po_files_are_for_translators_and_curators_only(mini_catalogue, client):
    user = User.objects.create_user(username="visitor", password="pw", is_staff=True)
    client.force_login(user)
    assert client.get(reverse("admin:cards_po_download", args=["symbols", "en"])).status_code == 403
    assert po_upload(client, "symbols", "en", "").status_code == 403
