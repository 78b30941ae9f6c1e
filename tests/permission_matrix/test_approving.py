"""Approving translations is review: the bulk tools and an imported approved row, role by role."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from django.test import Client

from cards.models import SauschwerObject, Translation
from tests.permission_matrix.cases import (
    TRANSLATIONS_APPROVE,
    TRANSLATIONS_WRITE,
    expected,
    translation_resource_of,
)
from tests.permission_matrix.forms import _PAGES, FormReader, page_form
from tests.permission_matrix.rows import CLIENT_ROLES, CSRF_TOKEN
from tests.permission_matrix.snapshot import snapshot
from tests.permission_matrix.world import World, _registered, client_for

# --- the bulk approving tools: approving is review, the reviewer's permission ---------------


def _approve_page_payload(world: World, su: Client) -> dict[str, Any]:
    return {**page_form(su, "/admin/cards/translate/sauschwer/en/"),
            "approve_page": "Approve this page"}


def _approve_anyway_payload(world: World, su: Client) -> dict[str, Any]:
    """The editor page saved with one translated text's own *Approve anyway*."""
    form = page_form(su, "/admin/cards/translate/sauschwer/en/")
    ident = next(name[len("state-"):] for name, value in form.items()
                 if name.startswith("state-") and value == "translated")
    return {**form, "approve_anyway": ident}


def _approve_selected_payload(world: World, su: Client) -> dict[str, Any]:
    translated = Translation.objects.filter(language="en", state="translated").exclude(text="")
    return {"action": "approve_selected", "index": "0",
            "_selected_action": list(translated.values_list("pk", flat=True)[:5])}


BULK_TOOLS: dict[str, tuple[str, Callable[[World, Client], dict[str, Any]]]] = {
    "the editor's Approve this page": ("/admin/cards/translate/sauschwer/en/", _approve_page_payload),
    "the editor's Approve anyway (one text)": ("/admin/cards/translate/sauschwer/en/",
                                               _approve_anyway_payload),
    "the Translations list's Approve selected": ("/admin/cards/translation/",
                                                 _approve_selected_payload),
}


@pytest.mark.parametrize("tool", BULK_TOOLS)
def test_every_role_may_approve_as_the_readme_table_says(world, db, tool):
    """Approving is review: Curators (who hold ``approve_translation``) may, Translators and
    Viewers may not, also by a forged POST."""
    _PAGES.clear()
    url, payload = BULK_TOOLS[tool]
    su = client_for(world, "superuser")
    problems = []
    for role in CLIENT_ROLES:
        with transaction.atomic():
            data = payload(world, su)
            assert data.get("_selected_action", True), "nothing translated to approve"
            before = snapshot()
            response = client_for(world, role).post(url, {**data, "csrfmiddlewaretoken": CSRF_TOKEN})
            wrote = before != snapshot()
            transaction.set_rollback(True)
        allowed = expected(role, TRANSLATIONS_WRITE | TRANSLATIONS_APPROVE)
        where = f"{role} POST {url}: {response.status_code}"
        if role in ("non-staff", "anonymous"):
            if response.status_code != 302 or not response["Location"].startswith("/admin/login/"):
                problems.append(f"{where}, expected the login page")
        elif allowed != wrote or response.status_code != (302 if allowed else 403):
            problems.append(f"{where}, wrote: {wrote}; the README table says "
                            f"{'yes' if allowed else 'no'}")
        if wrote and not allowed:
            problems.append(f"{where}: refused but wrote")
    assert not problems, "\n".join(problems)


# --- approving through a file: the Translations list's import -------------------------------


def _approved_file(world: World) -> Any:
    """The world's translated egg, its text changed and marked approved, as its kind's file."""
    egg = SauschwerObject.objects.get(key=world.po_entry.split(":", 1)[0])
    row = egg.translation("name", "en")
    assert row.state == "translated"
    upload = io.BytesIO(
        f"key,field,language,text,state\n{egg.key},name,en,{row.text} (neu),approved\n".encode())
    upload.name = "approved.csv"
    return upload


def _import_as(world: World, role: str, su: Client) -> tuple[int, int]:
    """Preview and confirm the approved file as ``role``: (preview status, confirm status).
    A role the preview refuses confirms a preview the superuser made (a forged confirm)."""
    model_admin = _registered()[Translation]
    labels: dict[str, Any] = {}
    form = page_form(su, "/admin/cards/translation/import/", labels)
    egg = SauschwerObject.objects.get(key=world.po_entry.split(":", 1)[0])
    index, _resource = translation_resource_of(model_admin, egg.translation("name", "en"))
    data = {**form, "resource": str(index), "import_file": _approved_file(world),
            "format": next(v for v, label in labels["format"] if label.lower() == "csv"),
            "csrfmiddlewaretoken": CSRF_TOKEN}
    client = client_for(world, role)
    preview = client.post("/admin/cards/translation/import/", data)
    page = preview.content.decode() if preview.status_code == 200 else ""
    if 'name="import_file_name"' not in page:
        data["import_file"] = _approved_file(world)
        page = su.post("/admin/cards/translation/import/", data).content.decode()
    reader = FormReader()
    reader.feed(page)
    confirm = next(f for f in reader.forms if any(n == "import_file_name" for n, _ in f))
    fields = {n: v for n, v in confirm if n != "csrfmiddlewaretoken"}
    done = client.post("/admin/cards/translation/process_import/",
                       {**fields, "csrfmiddlewaretoken": CSRF_TOKEN})
    return preview.status_code, done.status_code


def test_every_role_imports_an_approved_row_as_the_readme_table_says(world, db):
    """A file that says *approved*: a reviewer's import approves (Curators), a Translator's is
    saved as *translated*, everyone else is refused and nothing is written."""
    _PAGES.clear()
    su = client_for(world, "superuser")
    egg = SauschwerObject.objects.get(key=world.po_entry.split(":", 1)[0])
    problems = []
    for role in CLIENT_ROLES:
        with transaction.atomic():
            text = egg.translation("name", "en").text
            before = snapshot()
            preview, confirm = _import_as(world, role, su)
            wrote = before != snapshot()
            row = egg.translation("name", "en")
            got = (row.text, row.state)
            transaction.set_rollback(True)
        where = f"{role}: preview {preview}, confirm {confirm}, {got}"
        may_import = expected(role, TRANSLATIONS_WRITE)
        may_approve = expected(role, TRANSLATIONS_WRITE | TRANSLATIONS_APPROVE)
        if role in ("non-staff", "anonymous"):
            if (preview, confirm) != (302, 302) or wrote:
                problems.append(f"{where}, expected the login page and no write")
        elif not may_import:
            if (preview, confirm) != (403, 403) or wrote:
                problems.append(f"{where}, expected 403 twice and no write")
        elif (preview, confirm) != (200, 302) or got != (
                f"{text} (neu)", "approved" if may_approve else "translated"):
            problems.append(f"{where}; the README table says approve: "
                            f"{'yes' if may_approve else 'no'}")
    assert not problems, "\n".join(problems)
