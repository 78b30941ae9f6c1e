"""A refused file changes nothing on any way in; admin uploads stop at the size limit; previews stay small."""

from __future__ import annotations

import json
import os
import re
import time

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import FileUploadHandler
from django.urls import reverse

from cards.catalogue import CatalogueError, import_catalogue
from cards.models import ConceptCard
from cards.uploads import preview_folder
from tests import hostile_files as hostile
from tests.import_limits_helpers import FORMAT, concepts_csv
from tests.test_catalogue import snapshot

# --- a refused file changes nothing, on every way in ------------------------------------------


@pytest.mark.parametrize("build", [hostile.xlsx_cell_at_xfd, hostile.csv_wide_short_line,
                                   hostile.json_deep], ids=["xlsx", "csv", "json"])
def test_import_content_refuses_a_hostile_file_with_a_message_and_changes_nothing(
        mini_catalogue, tmp_path, run_command, build):
    name, data = build()
    path = tmp_path / name
    path.write_bytes(data)
    before = snapshot()
    status, out, err = run_command("import_content", str(path))
    assert status == 1
    assert "Traceback" not in out + err and "RecursionError" not in out + err
    assert re.search(r"more than 50 columns|nested too deeply", err)
    assert snapshot() == before


def test_import_catalogue_refuses_deep_json_with_a_message(db, tmp_path):
    folder = tmp_path / "catalogue" / "symbols"
    folder.mkdir(parents=True)
    (folder / "concepts.json").write_bytes(hostile.json_deep()[1])
    with pytest.raises(CatalogueError, match=r"concepts\.json: this JSON is nested too deeply"):
        import_catalogue(tmp_path / "catalogue")
    assert not ConceptCard.objects.exists()


def test_import_pack_refuses_deep_json_with_a_message(db, tmp_path, run_command):
    path = tmp_path / "pack.json"
    path.write_bytes(hostile.json_deep()[1])
    status, out, err = run_command("import_pack", str(path))
    assert status == 1
    assert "nested too deeply" in err and "Traceback" not in out + err


def test_import_pack_refuses_json_nested_just_under_the_parser_limit(db, tmp_path, run_command):
    # The parser takes it; checking it against the schema must not overflow either.
    pack = {"game": "sauschwer", "language": "de", "body": {"cards": []}, "sha256": "0",
            "extra": json.loads("[" * 900 + "]" * 900)}
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack))
    status, _out, err = run_command("import_pack", str(path))
    assert status == 1 and "Traceback" not in err


# --- uploads through the admin ----------------------------------------------------------------


@pytest.fixture
def curator(client, db):
    from django.contrib.auth.models import Group

    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def upload(client, model: str, name: str, data: bytes):
    return client.post(reverse(f"admin:cards_{model}_import"),
                       {"format": FORMAT[name.rsplit(".", 1)[1]], "resource": "0",
                        "import_file": SimpleUploadedFile(name, data)})


def confirm(client, model: str, response):
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"',
                             response.content.decode()))
    fields.pop("csrfmiddlewaretoken", None)
    return client.post(reverse(f"admin:cards_{model}_process_import"), fields)


class Recorder(FileUploadHandler):
    """Placed after the limit: records how many bytes reach the handlers that store files."""

    received: list[int] = []

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        Recorder.received.append(0)

    def receive_data_chunk(self, raw_data, start):
        Recorder.received[-1] += len(raw_data)
        return raw_data

    def file_complete(self, file_size):
        return None


def test_an_upload_over_the_limit_is_dropped_while_it_streams_in(curator, settings, tmp_path):
    limit = 200 * 1024
    settings.KARTOTHEK_IMPORT_MAX_BYTES = limit
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024  # the file would go to a temporary file
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "uploads")
    (tmp_path / "uploads").mkdir()
    settings.VAR_DIR = tmp_path / "var"  # a preview folder of its own (others leave previews)
    settings.FILE_UPLOAD_HANDLERS = [
        "cards.uploads.LimitedUploadHandler",
        "tests.test_import_limits_uploads.Recorder",
        "django.core.files.uploadhandler.TemporaryFileUploadHandler",
    ]
    Recorder.received = []
    before = snapshot()
    response = upload(curator, "conceptcard", "concepts.csv", concepts_csv(60_000))  # ~830 KB
    assert response.status_code == 200
    page = response.content.decode()
    assert "concepts.csv: the file is larger than 200 KB, the most an upload takes" in page
    assert 0 < Recorder.received[0] <= limit  # the storing handlers never saw more
    assert list((tmp_path / "uploads").iterdir()) == []  # and their partial file is gone
    assert not preview_folder().exists() or not list(preview_folder().iterdir())
    assert snapshot() == before


def test_a_refused_preview_leaves_no_file_and_a_confirmed_one_is_removed(curator, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    bad = upload(curator, "conceptcard", "concepts.csv", b"key,text\noma\n")
    assert "Nothing was imported" in bad.content.decode() or "row 2 has 1 cell" in bad.content.decode()
    assert not preview_folder().exists() or list(preview_folder().iterdir()) == []
    unreadable = upload(curator, "conceptcard", "concepts.csv", hostile.csv_wide_short_line()[1])
    assert "more than 50 columns" in unreadable.content.decode()
    assert list(preview_folder().iterdir()) == []

    good = upload(curator, "conceptcard", "concepts.csv", b"key,text\noma,Oma\n")
    assert 'name="import_file_name"' in good.content.decode()
    assert len(list(preview_folder().iterdir())) == 1
    assert confirm(curator, "conceptcard", good).status_code == 302
    assert ConceptCard.objects.filter(key="oma").exists()
    assert list(preview_folder().iterdir()) == []


def test_an_abandoned_preview_is_removed_by_the_next_upload_and_cannot_be_confirmed(
        curator, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    old = upload(curator, "conceptcard", "concepts.csv", b"key,text\noma,Oma\n")
    (stale,) = preview_folder().iterdir()
    an_hour_ago = time.time() - 3601
    os.utime(stale, (an_hour_ago, an_hour_ago))
    upload(curator, "conceptcard", "concepts.csv", b"key,text\nopa,Opa\n")
    assert not stale.exists() and len(list(preview_folder().iterdir())) == 1
    response = confirm(curator, "conceptcard", old)
    assert response.status_code == 302
    assert "upload the file again" in curator.get(response.url).content.decode()
    assert not ConceptCard.objects.filter(key="oma").exists()


@pytest.mark.parametrize("name", ["../../etc/passwd", "/etc/passwd", "x" * 40, ""])
def test_a_forged_preview_name_is_refused_without_reading_anything(curator, name):
    response = curator.post(reverse("admin:cards_conceptcard_process_import"),
                            {"import_file_name": name, "original_file_name": "x.csv",
                             "format": "0", "resource": "0"})
    assert response.status_code == 302
    assert not ConceptCard.objects.exists()


def test_the_preview_of_a_large_file_shows_counts_and_the_changed_rows_first(curator, settings,
                                                                             tmp_path):
    settings.VAR_DIR = tmp_path
    for n in range(0, 2_000, 2):  # every other row exists already, unchanged
        ConceptCard.objects.create(key=f"k{n}", text=f"Karte {n}")
    response = upload(curator, "conceptcard", "concepts.csv", concepts_csv(2_000))
    page = response.content.decode()
    assert "2000 rows:\n    1000 new, 0 to update,\n    1000 unchanged." in page
    assert "Showing 200 rows, the changed ones first; 1800 more are not shown." in page
    assert page.count('<tr class="new">') == 200 and '<tr class="skip">' not in page
    assert len(page) < 200_000


def test_a_long_list_of_row_errors_is_cut_with_a_count(curator, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    rows = "".join(f"k{n},\n" for n in range(1_000))  # every text missing
    page = upload(curator, "conceptcard", "concepts.csv", f"key,text\n{rows}".encode()).content.decode()
    assert "Nothing was imported: 1000 problems" in page
    assert "… and 800 more problems (the first 200 are shown)." in page
    assert len(page) < 200_000


def test_a_po_upload_over_the_limit_is_dropped_and_says_why(mini_catalogue, admin_client, settings):
    from django.contrib.messages import get_messages

    settings.KARTOTHEK_IMPORT_MAX_BYTES = 100 * 1024
    before = snapshot()
    po = b'msgid ""\nmsgstr ""\n' + b"# padding\n" * 30_000
    response = admin_client.post(reverse("admin:cards_po_upload", args=["symbols", "en"]),
                                 {"po_file": SimpleUploadedFile("symbols.po", po)})
    assert response.status_code == 302
    texts = [str(m) for m in get_messages(response.wsgi_request)]
    assert texts == ["symbols.po: the file is larger than 100 KB, the most an upload takes; "
                     "nothing was read"]
    assert snapshot() == before


def test_the_upload_limit_leaves_other_uploads_alone(mini_catalogue, admin_client, settings):
    # A picture on a tile's change form is not an import: dropping it would save the tile
    # without it and without a word, so the import limit does not apply there.
    from cards.models import SymbolTile
    from cards.uploads import upload_refusal

    settings.KARTOTHEK_IMPORT_MAX_BYTES = 100 * 1024
    tile = SymbolTile.objects.first()
    response = admin_client.post(reverse("admin:cards_symboltile_change", args=[tile.pk]),
                                 {"image": SimpleUploadedFile("big.png", b"\x89PNG" + b"0" * 300_000)})
    assert upload_refusal(response.wsgi_request) is None
    response = admin_client.post(reverse("admin:cards_symboltile_import"),
                                 {"format": "0", "resource": "0",
                                  "import_file": SimpleUploadedFile("t.csv", b"0" * 300_000)})
    assert upload_refusal(response.wsgi_request) is not None
