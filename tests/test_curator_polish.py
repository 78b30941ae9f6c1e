"""What a curator reads in the admin (issue 23, items 8–11), through the test client: the
import preview's old → new and "unchanged", one message after a revert or restore, the
history's user shown as a link only to who may open it, a German-only slogan card's English
preview, format and column names, a saved card's key, the delete page, dates in the user's
language, the favicon and the Translations list's columns."""

import csv
import io
import re

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from cards.models import ConceptCard, SauschwerObject, SloganCard, Translation

pytestmark = pytest.mark.django_db

NO_INLINES = {
    "cards-translation-content_type-object_id-TOTAL_FORMS": "0",
    "cards-translation-content_type-object_id-INITIAL_FORMS": "0",
}


@pytest.fixture
def carla(client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    client.user = user
    return client


def _messages(client, url: str) -> list[str]:
    page = client.get(url).content.decode()
    return [re.sub(r"<[^>]+>", "", m).strip()
            for m in re.findall(r'<li class="[^"]*">(.*?)</li>',
                                page.split('class="messagelist"', 1)[1].split("</ul>", 1)[0],
                                re.S)] if 'class="messagelist"' in page else []


def _objects_csv(weight_of: dict[str, str]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["key", "name", "weight_g", "source"])
    for obj in SauschwerObject.objects.order_by("key"):
        writer.writerow([obj.key, obj.name, weight_of.get(obj.key, obj.weight_g), obj.source])
    return out.getvalue().encode()


def _preview(client, data: bytes, name: str = "objekte.csv"):
    return client.post(reverse("admin:cards_sauschwerobject_import"),
                       {"format": "0", "resource": "0",
                        "import_file": SimpleUploadedFile(name, data)})


# --- 9. the import preview ---------------------------------------------------------------


def test_import_preview_shows_a_changed_weight_as_old_to_new_in_its_unit(mini_catalogue, carla):
    tower = SauschwerObject.objects.get(key="der-eiffelturm")
    page = _preview(carla, _objects_csv({tower.key: "12 kg"})).content.decode()
    assert re.search(r'<span class="diff-change"><del><span class="visually-hidden">was </span>'
                     r'10\.100 t</del> <span aria-hidden="true">→</span>.*?<ins>12 kg</ins>',
                     page)
    assert "<del>1" not in page  # no character-wise strike-through
    unchanged = SauschwerObject.objects.count() - 1
    assert f"{unchanged} unchanged" in page
    assert page.count('<td class="import-type">') == unchanged + 1
    assert "Skipped" not in page and "Unchanged" in page and "Changed" in page


def test_confirming_an_import_counts_unchanged_rows_and_names_the_file_in_the_history(
        mini_catalogue, carla):
    tower = SauschwerObject.objects.get(key="der-eiffelturm")
    preview = _preview(carla, _objects_csv({tower.key: "12 kg"}), "objekte-neu.csv")
    page = preview.content.decode()
    fields = dict(re.findall(r'name="(import_file_name|original_file_name|format|resource)"'
                             r'[^>]*value="([^"]*)"', page))
    done = carla.post(reverse("admin:cards_sauschwerobject_process_import"), fields)
    assert done.status_code == 302
    unchanged = SauschwerObject.objects.count() - 1
    assert _messages(carla, done.url) == [
        f"Import finished (Sauschwer objects): 0 new, 1 updated, {unchanged} unchanged."]
    tower.refresh_from_db()
    assert tower.weight_g == 12_000
    assert tower.history.first().history_change_reason == "spreadsheet import of objekte-neu.csv"


def test_an_import_error_names_the_rows_card_and_shows_the_column_as_code(mini_catalogue, carla):
    data = b"key,name,weight_g,source\nein-stein,Ein Stein,0,Waage\n"
    page = _preview(carla, data).content.decode()
    assert "row 2 (“Ein Stein”), column <code>weight_g</code>: “0” weighs nothing" in page
    assert "`weight_g`" not in page


# --- 10. history and the English preview -------------------------------------------------


def test_the_history_links_the_user_only_for_who_may_open_users(mini_catalogue, carla,
                                                                admin_client):
    oma = ConceptCard.objects.get(key="oma")
    carla.post(reverse("admin:cards_conceptcard_change", args=[oma.pk]),
               {"text": "Großmutter", **NO_INLINES})
    history = reverse("admin:cards_conceptcard_history", args=[oma.pk])
    user_url = reverse("admin:auth_user_change", args=[carla.user.pk])
    page = carla.get(history).content.decode()
    assert "carla" in page and user_url not in page
    assert carla.get(user_url).status_code == 403  # the link would have led here
    assert f'href="{user_url}"' in admin_client.get(history).content.decode()


def test_a_revert_says_once_what_it_did(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    change = reverse("admin:cards_conceptcard_change", args=[oma.pk])
    carla.post(change, {"text": "Großmutter", **NO_INLINES})
    first = oma.history.earliest("history_date")
    revert = reverse("admin:cards_conceptcard_simple_history", args=[oma.pk, first.history_id])
    form = carla.get(revert).content.decode()
    crumbs = form.split('class="breadcrumbs"', 1)[1].split("</div>", 1)[0]
    assert "Concept cards" in crumbs and "Historical" not in crumbs
    response = carla.post(revert, {"text": first.text, **NO_INLINES})
    assert response.url == change
    notes = _messages(carla, response.url)
    assert len(notes) == 1 and notes[0].startswith(
        f"Reverted concept card “Oma” to version {first.version} of "), notes


def test_restoring_a_deleted_card_gives_one_message_and_the_delete_page_says_it_can(
        mini_catalogue, carla):
    card = SloganCard.objects.get(key="karte-002")
    delete = reverse("admin:cards_slogancard_delete", args=[card.pk])
    page = carla.get(delete).content.decode()
    assert 'id="restore-note"' in page and reverse("admin:cards_deleted") in page
    carla.post(delete, {"post": "yes"}, follow=True)  # its "deleted" message read
    last = SloganCard.history.filter(id=card.pk).exclude(history_type="-").first()
    revert = reverse("admin:cards_slogancard_simple_history", args=[card.pk, last.history_id])
    response = carla.post(revert, {"key": "karte-002"})
    assert response.status_code == 302
    notes = _messages(carla, response.url)
    assert len(notes) == 1 and notes[0].startswith("Restored the deleted slogan card “karte-002”")
    assert "related rows" in notes[0]


def test_a_german_only_slogan_card_is_not_drawn_in_english(mini_catalogue, carla):
    card = SloganCard.objects.get(key="karte-001")  # both slogans known only in German
    page = carla.get(reverse("admin:cards_slogancard_change", args=[card.pk])).content.decode()
    assert 'data-absent-lang="en"' in page and "Not in the English deck" in page
    assert f"/preview/en/{card.key}/" not in page
    assert f"/preview/de/{card.key}/" in page
    typed = {"_preview_object_id": str(card.pk), "_preview_language": ["de", "en"],
             "slogans-0-markets": "de", "slogans-1-markets": "de,en"}
    answer = carla.post(reverse("admin:cards_slogancard_form_preview"), typed).json()
    assert [a["language"] for a in answer["absent"]] == ["en"]
    assert {p["language"] for p in answer["previews"]} == {"de"}
    typed["slogans-0-markets"] = "de,en"
    answer = carla.post(reverse("admin:cards_slogancard_form_preview"), typed).json()
    assert answer["absent"] == [] and {p["language"] for p in answer["previews"]} == {"de", "en"}


# --- 11. the small ones ------------------------------------------------------------------


def test_export_and_import_pages_name_formats_and_columns_as_people_write_them(mini_catalogue,
                                                                             carla):
    for step in ("export", "import"):
        page = carla.get(reverse(f"admin:cards_sauschwerobject_{step}")).content.decode()
        options = re.findall(r'<option value="\d">([^<]+)</option>', page)
        assert options == ["CSV", "XLSX", "TSV", "JSON"], step
    page = carla.get(reverse("admin:cards_sauschwerobject_export")).content.decode()
    assert "weight_g" in page and "Weight G" not in page


def test_a_saved_slogan_cards_key_is_not_called_the_slug_of_its_german_text(mini_catalogue,
                                                                            carla):
    card = SloganCard.objects.get(key="karte-001")
    page = carla.get(reverse("admin:cards_slogancard_change", args=[card.pk])).content.decode()
    assert "slug of the German text" not in page
    assert "The card's stable identifier; imports match rows on it" in page


def test_admin_dates_follow_the_users_language(mini_catalogue, carla):
    oma = ConceptCard.objects.get(key="oma")
    history = reverse("admin:cards_conceptcard_history", args=[oma.pk])
    german = carla.get(history, headers={"accept-language": "de-DE,de;q=0.9"})
    assert re.search(r"\d{1,2}\. \w+ \d{4} \d{2}:\d{2}", german.content.decode())
    assert german["Content-Language"] == "de"
    english = carla.get(history, headers={"accept-language": "en-US"}).content.decode()
    assert re.search(r"\d{1,2} \w{3} \d{4}, \d{2}:\d{2}", english)  # 4 Dec 2026, 15:44
    assert "p.m." not in english and "a.m." not in english
    assert "Accept-Language" in german["Vary"]


def test_the_favicon_is_there(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and "curation/favicon" in response.url
    page = Client().get(reverse("admin:login")).content.decode()
    assert 'rel="icon"' in page and "curation/favicon" in page


def test_the_translations_list_names_the_cards_kind_and_filters_in_sentence_case(
        mini_catalogue, carla):
    page = carla.get(reverse("admin:cards_translation_changelist")).content.decode()
    assert '<td class="field-kind">concept card</td>' in page
    assert "Cards | concept card" not in page
    assert ">Concept card</a>" in page and ">Spießer Alfons card</a>" in page
    objects = carla.get(reverse("admin:cards_conceptcard_changelist")).content.decode()
    assert ">Missing</a>" in objects and ">missing</a>" not in objects
    assert Translation.objects.exists()


def test_the_translations_list_exports_a_kinds_translation_file_as_filtered(mini_catalogue,
                                                                           carla):
    listing = carla.get(reverse("admin:cards_translation_changelist")).content.decode()
    export_url = reverse("admin:cards_translation_export")
    assert export_url in listing
    page = carla.get(export_url).content.decode()
    kinds = re.findall(r'<option value="(\d+)"[^>]*>([^<]+ translations)</option>', page)
    chosen = next(value for value, name in kinds if name == "Sauschwer object translations")
    prefix = "sauschwerobjecttranslationfileresource"
    fields = {f"{prefix}_{column}": "on" for column in ("key", "field", "language", "text",
                                                        "state")}
    response = carla.post(export_url, {"format": "0", "resource": chosen, **fields})
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["key", "field", "language", "text", "state"]
    objects = {o.key for o in SauschwerObject.objects.all()}
    stored = Translation.objects.filter(
        content_type__model="sauschwerobject").count()
    assert len(rows) - 1 == stored and {row[0] for row in rows[1:]} <= objects
    assert response["Content-Disposition"].startswith(
        'attachment; filename="sauschwer-objects-translations-en-')
