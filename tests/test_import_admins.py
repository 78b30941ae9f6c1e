"""Every admin list that imports spreadsheets does it the safe way (issue 38, finding 10):
``curation.safe_import.SafeImportMixin`` on each (a new importing admin without it fails
here), each import page names the limits a file must keep, no upload is left in the system's
temporary folder or the preview folder after an import, and a NUL character in a cell is a
row error naming its row and column, never a stored cell or a database error."""

from __future__ import annotations

import json
import re
import tempfile

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from import_export.admin import ImportMixin

from cards.formats import FORMATS
from cards.models import BrandOwnership, SauschwerObject
from cards.uploads import preview_folder
from curation.brand_admin import BrandOwnershipAdmin
from curation.safe_import import SafeImportMixin

pytestmark = pytest.mark.django_db
FORMAT = {f.EXTENSION: str(i) for i, f in enumerate(FORMATS)}
HEADER = "brand,group,since,until,source\n"


def _importing_admins() -> list[admin.ModelAdmin]:
    return [model_admin for model_admin in admin.site._registry.values()
            if isinstance(model_admin, ImportMixin)]


def _import_url(model_admin: admin.ModelAdmin, name: str = "import") -> str:
    opts = model_admin.model._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{name}")


def test_every_admin_that_imports_uses_the_safe_import():
    importing = _importing_admins()
    assert any(isinstance(a, BrandOwnershipAdmin) for a in importing)
    assert len(importing) >= 10  # the content lists, the translations, the brand owners
    for model_admin in importing:
        mro = type(model_admin).__mro__
        assert SafeImportMixin in mro, f"{type(model_admin).__name__} imports without SafeImportMixin"
        # before the library's classes, so its methods are the ones that run
        assert mro.index(SafeImportMixin) < mro.index(ImportMixin), type(model_admin).__name__


def test_each_import_page_names_its_limits(admin_client, admin_user, settings, rf):
    settings.KARTOTHEK_IMPORT_MAX_BYTES = 18 * 1024 * 1024
    settings.KARTOTHEK_IMPORT_MAX_ROWS = 12_000
    request = rf.get("/")
    request.user = admin_user
    for model_admin in _importing_admins():
        if not model_admin.has_import_permission(request):
            continue  # a list that imports elsewhere (slogan cards: with their slogans)
        page = admin_client.get(_import_url(model_admin))
        assert page.status_code == 200, type(model_admin).__name__
        limits = re.search(r'<p id="import-limits"[^>]*>(.*?)</p>', page.content.decode())
        assert limits is not None, type(model_admin).__name__
        assert "at most 18 MB, 12,000 rows, 50 columns" in limits.group(1)


@pytest.fixture
def curator(client):
    user = User.objects.create_user("carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


@pytest.fixture
def temp_dir(tmp_path, settings, monkeypatch):
    """The system's temporary folder, and the uploads' and previews' folders, watched."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    settings.FILE_UPLOAD_TEMP_DIR = str(folder)
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 64  # every upload goes through a temporary file
    settings.VAR_DIR = tmp_path / "var"
    return folder


def _upload(client, name: str, data: bytes):
    return client.post(reverse("admin:cards_brandownership_import"),
                       {"format": FORMAT[name.rsplit(".", 1)[1]], "resource": "0",
                        "import_file": SimpleUploadedFile(name, data)})


def _confirm(client, response):
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                             response.content.decode()))
    fields.pop("csrfmiddlewaretoken", None)
    return client.post(reverse("admin:cards_brandownership_process_import"), fields)


def _left(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_brand_owner_import_leaves_no_file_behind(mini_catalogue, curator, temp_dir):
    padded = "https://example.org/" + "s" * 200  # larger than the uploads' memory size
    bad = _upload(curator, "brands.csv", f"{HEADER}Saturn,Ceconomy,19x8,,{padded}\n".encode())
    assert bad.status_code == 200 and "is not a year" in bad.content.decode()
    assert _left(temp_dir) == [] and _left(preview_folder()) == []

    good = _upload(curator, "brands.csv", (HEADER + "Saturn,Ceconomy,,,https://e.org/s\n").encode())
    assert 'name="import_file_name"' in good.content.decode()
    assert _left(temp_dir) == [] and len(_left(preview_folder())) == 1  # kept to confirm
    assert _confirm(curator, good).status_code == 302
    assert BrandOwnership.objects.filter(brand="Saturn", group="Ceconomy").exists()
    assert _left(temp_dir) == [] and _left(preview_folder()) == []


def test_a_brand_owner_upload_over_the_limit_is_refused_with_the_limit(
        mini_catalogue, curator, temp_dir, settings):
    settings.KARTOTHEK_IMPORT_MAX_BYTES = 1024
    big = HEADER + "".join(f"Marke {n},Gruppe,,,https://e.org/{n}\n" for n in range(200))
    refused = _upload(curator, "brands.csv", big.encode())
    assert "the file is larger than 1 KB, the most an upload takes" in refused.content.decode()
    assert not BrandOwnership.objects.filter(brand="Marke 1").exists()
    assert _left(temp_dir) == [] and _left(preview_folder()) == []


def test_a_nul_in_an_import_cell_is_a_row_error_naming_the_cell(mini_catalogue, curator,
                                                               temp_dir):
    rows = [{"brand": "Saturn", "group": "Ceconomy", "since": None, "until": None,
             "source": "https://e.org/s"},
            {"brand": "Pluto", "group": "Ceconomy", "since": None, "until": None,
             "source": "https://e.org/\u0000p"}]
    refused = _upload(curator, "brands.json", json.dumps(rows).encode())
    page = refused.content.decode()
    assert "item 2, column “source”: the cell holds a NUL character (U+0000)" in page
    assert not BrandOwnership.objects.filter(brand__in=["Saturn", "Pluto"]).exists()
    assert _left(temp_dir) == [] and _left(preview_folder()) == []

    # the content lists too (their rows are named the same way)
    objects = [{"key": "ein-stein", "name": "Ein\u0000 Stein", "weight_g": 900, "source": "t"}]
    response = curator.post(reverse("admin:cards_sauschwerobject_import"), {
        "format": FORMAT["json"], "resource": "0",
        "import_file": SimpleUploadedFile("objekte.json", json.dumps(objects).encode())})
    assert "item 1, column “name”: the cell holds a NUL character" in response.content.decode()
    assert not SauschwerObject.objects.filter(key="ein-stein").exists()
