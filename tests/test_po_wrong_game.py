"""A PO file uploaded on the wrong game's row gets one clear error, not one per entry."""

import polib
import pytest
from django.contrib.auth.models import Group, User
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards.models import Translation
from cards.po import export_po

pytestmark = pytest.mark.django_db


@pytest.fixture
def tina(client):
    user = User.objects.create_user(username="tina", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Translators"))
    client.force_login(user)
    return client


def _upload(client, game, text):
    url = reverse("admin:cards_po_upload", args=[game, "en"])
    return client.post(url, {"po_file": SimpleUploadedFile("upload.po", text.encode())})


def _translated(po_text):
    po = polib.pofile(po_text)
    for entry in po:
        entry.msgstr = entry.msgstr or entry.msgid + " (en)"
    return po


def test_a_sauschwer_file_on_slogans_row_gets_one_error_naming_both(mini_catalogue, tina):
    before = list(Translation.objects.values_list("pk", "version", "text"))
    po = _translated(export_po("sauschwer", "en"))
    response = _upload(tina, "slogan", str(po))
    notes = [str(m) for m in get_messages(response.wsgi_request)]
    errors = [n for n in notes if n.startswith("error")]
    assert errors == ["error: this file is for Sauschwer, you uploaded it on Slogan's row: "
                      "upload it on the row of Sauschwer (en)"]
    assert len(notes) == 2  # the error and the summary line
    assert "nothing was saved" in notes[-1]
    assert list(Translation.objects.values_list("pk", "version", "text")) == before


def test_a_file_whose_tool_dropped_the_project_header_is_recognised_by_its_entries(
        mini_catalogue, tina):
    po = _translated(export_po("sauschwer", "en"))
    po.metadata["Project-Id-Version"] = "PACKAGE VERSION"
    response = _upload(tina, "symbols", str(po))
    errors = [str(m) for m in get_messages(response.wsgi_request) if str(m).startswith("error")]
    assert errors == ["error: this file is for Sauschwer, you uploaded it on the row of "
                      "Sag's mit Symbolen: upload it on the row of Sauschwer (en)"]


def test_the_right_row_still_imports(mini_catalogue, tina):
    po = _translated(export_po("sauschwer", "en"))
    po.metadata["Project-Id-Version"] = "PACKAGE VERSION"
    response = _upload(tina, "sauschwer", str(po))
    notes = [str(m) for m in get_messages(response.wsgi_request)]
    assert not [n for n in notes if n.startswith("error")], notes
