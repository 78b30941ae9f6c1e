"""Export from every list page (a button, not select all → action), and workbooks that keep
numbers as numbers and name their sheet after the content type."""

import io
import re

import openpyxl
import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards.columns import type_from_name
from cards.models import AlfonsCard, SauschwerObject
from curation.content_admin import ContentAdmin

pytestmark = pytest.mark.django_db

CONTENT_ADMINS = [(model, ma) for model, ma in admin.site._registry.items()
                  if isinstance(ma, ContentAdmin)]


@pytest.fixture
def viewer(client):
    user = User.objects.create_user(username="vera", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Viewers"))
    client.force_login(user)
    return client


@pytest.mark.parametrize(("model", "model_admin"), CONTENT_ADMINS,
                         ids=[m._meta.model_name for m, _ in CONTENT_ADMINS])
def test_every_list_page_has_an_export_button(mini_catalogue, viewer, model, model_admin):
    opts = model._meta
    page = viewer.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
    export_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_export")
    assert f'href="{export_url}' in page.content.decode()


def _export_xlsx(client, model):
    opts = model._meta
    resource = admin.site._registry[model].resource_classes[0]
    fields = {f"{resource.__name__.lower()}_{f.column_name}": "on"
              for f in resource().get_export_fields()}
    response = client.post(reverse(f"admin:cards_{opts.model_name}_export"),
                           {"format": "1", "resource": "0", **fields})
    assert response.status_code == 200, response.content[:300]
    return openpyxl.load_workbook(io.BytesIO(response.content))


def test_an_exported_workbook_keeps_weights_as_numbers_and_names_its_sheet(mini_catalogue,
                                                                           viewer):
    book = _export_xlsx(viewer, SauschwerObject)
    sheet = book.active
    assert sheet.title == "sauschwer_objects"
    assert type_from_name(sheet.title) is SauschwerObject
    header = [c.value for c in sheet[1]]
    weights = [row[header.index("weight_g")] for row in sheet.iter_rows(min_row=2, values_only=True)]
    assert weights and all(type(w) is int for w in weights)
    assert sorted(weights) == sorted(SauschwerObject.objects.values_list("weight_g", flat=True))


def test_a_negative_amount_stays_a_number_and_a_formula_still_gets_its_quote(mini_catalogue,
                                                                              viewer):
    card = AlfonsCard.objects.filter(effect="move").first()
    AlfonsCard.objects.filter(pk=card.pk).update(amount=-3, text="=HYPERLINK(\"x\") zurück")
    book = _export_xlsx(viewer, AlfonsCard)
    sheet = book.active
    assert sheet.title == "spiesser_alfons_cards"
    header = [c.value for c in sheet[1]]
    row = next(r for r in sheet.iter_rows(min_row=2, values_only=True)
               if r[header.index("key")] == card.key)
    assert row[header.index("amount")] == -3
    assert row[header.index("text")] == "'=HYPERLINK(\"x\") zurück"


def test_an_exported_workbook_imports_back_unchanged(mini_catalogue, client):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    book = _export_xlsx(client, SauschwerObject)
    data = io.BytesIO()
    book.save(data)
    response = client.post(reverse("admin:cards_sauschwerobject_import"), {
        "format": "1", "resource": "0",
        "import_file": SimpleUploadedFile("export.xlsx", data.getvalue())})
    page = response.content.decode()
    count = SauschwerObject.objects.count()
    assert f"0 new, 0 to update, {count} unchanged" in " ".join(page.split())


def test_an_export_file_is_named_after_the_list_not_the_class(mini_catalogue, viewer):
    opts = SauschwerObject._meta
    resource = admin.site._registry[SauschwerObject].resource_classes[0]
    fields = {f"{resource.__name__.lower()}_{f.column_name}": "on"
              for f in resource().get_export_fields()}
    response = viewer.post(reverse(f"admin:cards_{opts.model_name}_export"),
                           {"format": "1", "resource": "0", **fields})
    assert re.fullmatch(r'attachment; filename="sauschwer-objects-\d{4}-\d{2}-\d{2}\.xlsx"',
                        response["Content-Disposition"]), response["Content-Disposition"]
