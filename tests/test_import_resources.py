"""Every admin that imports uses the project's resources (issue 10, failure 5).

The slogan-card admin once fell back to django-import-export's default resource: it matched
rows on `id`, checked nothing, stored the key `BAD KEY <b>x</b> !!` and renamed `karte-001`.
These tests walk every ModelAdmin registered on the admin site, so an admin added later
without the project's resource fails here without anyone editing the test.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory
from django.urls import NoReverseMatch, reverse

from cards import resources
from cards.columns import COLUMNS
from cards.models import CONTENT_MODELS, Translation

pytestmark = pytest.mark.django_db

HOSTILE_KEY = "BAD KEY <b>x</b> !!"
CSV_FORMAT = "0"  # position of CSV in cards.formats.FORMATS


def superuser_request():
    request = RequestFactory().get("/admin/")
    request.user = User(username="root", is_staff=True, is_superuser=True, is_active=True)
    return request


def import_admins() -> list[admin.ModelAdmin]:
    """Every registered admin that offers import to a user allowed everything."""
    request = superuser_request()
    return [
        model_admin for model_admin in admins_with_import_views()
        if model_admin.has_import_permission(request)
    ]


def admins_with_import_views() -> list[admin.ModelAdmin]:
    """The card admins (brand owners, matched on brand and year, have tests of their own in
    tests/test_brand_owners.py)."""
    return [m for m in admin.site._registry.values()
            if hasattr(m, "import_action") and m.model in CONTENT_MODELS]


def label(model_admin: admin.ModelAdmin) -> str:
    return model_admin.model._meta.model_name


def snapshot() -> dict[str, list]:
    state = {m._meta.model_name: list(m._default_manager.order_by("pk").values())
             for m in CONTENT_MODELS}
    state["translation"] = list(Translation.objects.order_by("pk").values())
    return state


def test_the_walk_finds_the_importing_admins():
    names = {label(m) for m in import_admins()}
    assert {"conceptcard", "symboltile", "signsymbol", "signcolour", "signcard", "slogan",
            "alfonscard", "sauschwerobject"} <= names


@pytest.mark.parametrize("model_admin", admins_with_import_views(), ids=label)
def test_every_admin_with_import_or_export_uses_a_project_resource_matched_on_key(model_admin):
    for resource_class in model_admin.get_resource_classes(superuser_request()):
        assert resource_class.__module__ == resources.__name__, (
            f"{label(model_admin)} uses {resource_class.__module__}.{resource_class.__name__}, "
            "not a resource of cards/resources.py"
        )
        assert issubclass(resource_class, resources.KeyedResource)
        meta = resource_class._meta
        assert meta.model is model_admin.model
        assert tuple(meta.import_id_fields) == ("key",)  # never `id`
        assert meta.clean_model_instances  # every row runs the model's rules
        assert "id" not in resource_class().fields


@pytest.mark.parametrize("model_admin", import_admins(), ids=label)
def test_every_import_refuses_a_hostile_key_and_stores_nothing(model_admin, mini_catalogue, client):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    required, _optional = COLUMNS[model_admin.model]
    row = {column: "1" for column in required}
    row["key"] = HOSTILE_KEY
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(required))
    writer.writeheader()
    writer.writerow(row)
    before = snapshot()
    response = client.post(
        reverse(f"admin:cards_{label(model_admin)}_import"),
        {"format": CSV_FORMAT, "resource": "0",
         "import_file": SimpleUploadedFile("hostile.csv", out.getvalue().encode())},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Nothing was imported" in html
    assert re.search(r"row 2( \(“[^”]*”\))?, column <code>key</code>: A key is lowercase ASCII "
                     r"letters and digits", html)
    assert "process_import" not in html  # no confirm button
    assert HOSTILE_KEY not in html.replace("BAD KEY &lt;b&gt;x&lt;/b&gt; !!", "")  # escaped
    assert snapshot() == before


@pytest.mark.parametrize("model_admin", import_admins(), ids=label)
def test_an_id_column_cannot_rename_a_stored_card(model_admin, mini_catalogue, client):
    # The default resource matched on `id`: "id=1, key=other" renamed card 1. Ours refuse
    # the column, whatever the rest of the row says.
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    resource = model_admin.get_import_resource_classes(superuser_request())[0]()
    exported = resource.export()
    first = dict(zip(exported.headers, exported[0], strict=True))
    first["key"] = "umbenannt"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["id", *exported.headers])
    writer.writeheader()
    writer.writerow({"id": model_admin.model._default_manager.order_by("pk").first().pk, **first})
    before = snapshot()
    response = client.post(
        reverse(f"admin:cards_{label(model_admin)}_import"),
        {"format": CSV_FORMAT, "resource": "0",
         "import_file": SimpleUploadedFile("rename.csv", out.getvalue().encode())},
    )
    assert response.status_code == 200
    assert "unknown columns: <code>id</code>" in response.content.decode()  # shown as code
    assert snapshot() == before


@pytest.mark.parametrize("model_admin", import_admins(), ids=label)
def test_a_new_key_with_a_stored_cards_content_is_refused(model_admin, mini_catalogue):
    # A stored card exported and given a fresh key is a second copy of the same card: the
    # model rules (same text, same symbol and colour …) refuse it, and nothing is stored.
    resource_class = model_admin.get_import_resource_classes(superuser_request())[0]
    exported = resource_class().export()
    copy = exported[0]
    headers = list(exported.headers)
    row = list(copy)
    row[headers.index("key")] = "eine-ganz-neue-karte"
    if "side" in headers:  # a slogan: its card has both sides already
        row[headers.index("card")] = "karte-001"
    exported.append(row)
    before = snapshot()
    result = resource_class(preview=False).import_data(
        exported, dry_run=False, use_transactions=True, rollback_on_validation_errors=True)
    assert result.has_errors() or result.has_validation_errors()
    assert snapshot() == before


def test_the_slogan_card_admin_offers_no_import_and_its_import_url_refuses(mini_catalogue, client):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    before = snapshot()
    upload = SimpleUploadedFile("cards.csv", f"id,key\n1,{HOSTILE_KEY}\n".encode())
    response = client.post(reverse("admin:cards_slogancard_import"),
                           {"format": CSV_FORMAT, "resource": "0", "import_file": upload})
    assert response.status_code == 403
    assert snapshot() == before
    listing = client.get(reverse("admin:cards_slogancard_changelist")).content.decode()
    assert "/import/" not in listing


def test_the_slogan_card_resource_itself_refuses_any_file(mini_catalogue):
    import tablib

    before = snapshot()
    data = tablib.Dataset(headers=["key"])
    data.append([HOSTILE_KEY])
    result = resources.SloganCardResource().import_data(data, dry_run=False)
    assert result.has_errors()
    assert "imported with their slogans" in str(result.base_errors[0].error)
    assert snapshot() == before


def test_slogan_cards_export_their_key_and_both_slogans(mini_catalogue, client):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    response = client.post(reverse("admin:cards_slogancard_export"),
                           {"format": CSV_FORMAT, "resource": "0",
                            **{f"slogancardresource_{c}": "on"
                               for c in ("key", "slogan_1", "slogan_2")}})
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == {"key": "karte-001", "slogan_1": "Quadratisch. Praktisch. Gut.",
                       "slogan_2": "Ich bin doch nicht blöd!"}
    assert "id" not in rows[0]


def test_no_import_url_exists_without_a_project_resource():
    # Admins without import-export have no import URL at all.
    for model_admin in admin.site._registry.values():
        if hasattr(model_admin, "import_action"):
            continue
        meta = model_admin.model._meta
        with pytest.raises(NoReverseMatch):
            reverse(f"admin:{meta.app_label}_{meta.model_name}_import")
