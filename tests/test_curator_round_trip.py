"""A curator's round trip through the admin: export, edit in a spreadsheet, preview, confirm."""

import io
import re

import openpyxl
import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards.models import ConceptCard, Slogan
from cards.resources import SloganResource

pytestmark = pytest.mark.django_db

FORMAT = {"csv": "0", "xlsx": "1", "tsv": "2", "json": "3"}


@pytest.fixture
def carla(client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    client.user = user
    return client


def export(client, model, fmt, **extra):
    fields = {f"{SloganResource.__name__.lower()}_{f.column_name}": "on"
              for f in SloganResource().get_export_fields()} if model == "slogan" else {}
    response = client.post(reverse(f"admin:cards_{model}_export"),
                           {"format": FORMAT[fmt], "resource": "0", **fields, **extra})
    assert response.status_code == 200, response.content[:500]
    return response.content


def preview(client, model, name, data):
    upload = SimpleUploadedFile(name, data)
    response = client.post(reverse(f"admin:cards_{model}_import"),
                           {"format": FORMAT[name.rsplit(".", 1)[1]], "resource": "0",
                            "import_file": upload})
    assert response.status_code == 200
    return response


def confirm(client, model, response):
    html = response.content.decode()
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html))
    fields.pop("csrfmiddlewaretoken", None)
    return client.post(reverse(f"admin:cards_{model}_process_import"), fields)


def test_export_edit_three_add_two_preview_and_confirm(mini_catalogue, carla):
    data = export(carla, "slogan", "xlsx")
    book = openpyxl.load_workbook(io.BytesIO(data))
    sheet = book.active
    header = [c.value for c in sheet[1]]
    text = header.index("text") + 1
    for row in (2, 3, 4):
        sheet.cell(row=row, column=text).value = sheet.cell(row=row, column=text).value + " (neu)"
    sheet.append(["karte-003", 1, "haribo-macht-kinder-froh", "… macht Kinder froh",
                  "Haribo", "Katjes", "Trolli", "Storck", 1, "true", "Haribo, seit 1935"])
    sheet.append(["karte-003", 2, "die-zarteste-versuchung", "Die zarteste Versuchung, seit es …",
                  "Milka", "Merci", "Ritter Sport", "Lindt", 1, "true", "Milka"])
    buffer = io.BytesIO()
    book.save(buffer)

    response = preview(carla, "slogan", "slogans.xlsx", buffer.getvalue())
    page = response.content.decode()
    assert 'name="import_file_name"' in page  # the confirm form: no errors
    assert Slogan.objects.count() == 4  # the preview changed nothing
    done = confirm(carla, "slogan", response)
    assert done.status_code == 302
    message = carla.get(done.url).content.decode()
    assert "Import finished (slogans): 2 new, 3 updated, 1 unchanged." in message
    assert Slogan.objects.count() == 6
    assert Slogan.objects.get(key="haribo-macht-kinder-froh").correct_option.text == "Haribo"
    changed = Slogan.objects.filter(text__endswith="(neu)")
    assert changed.count() == 3
    for slogan in changed:
        latest = slogan.history.first()
        assert (latest.history_type, latest.history_user) == ("~", carla.user)
    assert Slogan.objects.get(key="haribo-macht-kinder-froh").history.first().history_user == carla.user


def test_a_preview_with_an_error_offers_no_confirm_and_changes_nothing(mini_catalogue, carla):
    csv = ("key,name,weight_g,source\n"
           "ein-apfel,Ein Apfel,180,Waage\n"
           "ein-stein,Ein Stein,zwölf,Waage\n").encode()
    response = preview(carla, "sauschwerobject", "dinge.csv", csv)
    page = response.content.decode()
    assert 'name="import_file_name"' not in page
    # the row's object named, the column as code (not literal backticks)
    assert ("row 3 (“Ein Stein”), column <code>weight_g</code>: “zwölf” is not a weight: write "
            "a number with g, kg or t" in page)
    assert not ConceptCard.objects.filter(key="ein-apfel").exists()


def test_a_broken_upload_gets_a_message_not_a_traceback(mini_catalogue, carla):
    response = preview(carla, "conceptcard", "begriffe.csv", b"\x89PNG\r\n\x1a\n\x00\x00")
    page = response.content.decode()
    assert "This is a PNG picture, not a table" in page
    assert "encountered while trying to read file" not in page


def test_exports_cannot_run_as_formulas_and_import_gives_the_text_back(mini_catalogue, carla):
    texts = ["=HYPERLINK(\"http://x\")", "+49 Telefon", "-Minus", "@Zuhause", "\tTab", "'Apostroph"]
    for i, text in enumerate(texts):
        ConceptCard.objects.create(key=f"formel-{i}", text=text)
    for fmt in ("csv", "xlsx"):
        data = export(carla, "conceptcard", fmt, conceptcardresource_key="on",
                      conceptcardresource_text="on")
        if fmt == "csv":
            cells = data.decode("utf-8").splitlines()
            assert not any(line.split(",", 1)[1].startswith(("=", "+", "-", "@", "\t"))
                           for line in cells[1:] if "," in line)
        else:
            sheet = openpyxl.load_workbook(io.BytesIO(data)).active
            values = [row[1].value for row in sheet.iter_rows(min_row=2)]
            assert all(not str(v).startswith(("=", "+", "-", "@", "\t")) for v in values)
            assert all(row[1].data_type == "s" for row in sheet.iter_rows(min_row=2))
        response = preview(carla, "conceptcard", f"begriffe.{fmt}", data)
        assert 'name="import_file_name"' in response.content.decode()
        confirm(carla, "conceptcard", response)
        assert sorted(ConceptCard.objects.filter(key__startswith="formel").values_list(
            "text", flat=True)) == sorted(texts)
        assert all(c.history.count() == 1 for c in ConceptCard.objects.filter(key__startswith="formel"))


def test_export_selected_writes_only_the_chosen_rows(mini_catalogue, carla):
    chosen = list(ConceptCard.objects.filter(key__in=["oma", "papst"]).values_list("pk", flat=True))
    page = carla.post(reverse("admin:cards_conceptcard_changelist"),
                      {"action": "export_admin_action", "_selected_action": chosen})
    assert page.status_code == 200
    assert 'name="export_items"' in page.content.decode()
    response = carla.post(reverse("admin:cards_conceptcard_export"), {
        "format": FORMAT["csv"], "resource": "0", "export_items": chosen,
        "conceptcardresource_key": "on", "conceptcardresource_text": "on",
    })
    lines = response.content.decode("utf-8").strip().splitlines()
    assert lines[0].lstrip("\ufeff") == "key,text"
    assert sorted(lines[1:]) == ["oma,Oma", "papst,Papst"]
