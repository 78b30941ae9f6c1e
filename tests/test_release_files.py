"""Release bytes live in STORAGES["releases"] as files named by their sha256
(exports/release_files.py), never in the database; whatever reads them checks the sha256, so
a file changed or lost after publishing is refused with a clear message (JSON 409/503 from
the API), never served or used as other bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from exports.errors import PackError
from exports.models import Release
from exports.packs import load_pack, publish
from exports.release_files import (
    ReleaseFileCorrupt,
    ReleaseFileMissing,
    read_release,
    release_name,
    release_storage,
    store_release,
)
from exports.serialise import gzip_bytes

pytestmark = pytest.mark.django_db


def _path(release: Release) -> Path:
    return Path(release_storage().path(release_name(release.sha256)))


def test_a_published_release_is_a_file_named_by_its_sha256_and_not_a_column(mini_catalogue):
    release = publish("sauschwer", "en").release
    path = _path(release)
    assert path.relative_to(release_storage().location).as_posix() == (
        f"releases/{release.sha256[:2]}/{release.sha256}.json")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == release.sha256
    assert len(path.read_bytes()) == release.size
    assert json.loads(path.read_bytes())["content_version"] == 1
    columns = {c.name for c in connection.introspection.get_table_description(
        connection.cursor(), Release._meta.db_table)}
    assert "data" not in columns and "data_gzip" not in columns
    fresh = Release.objects.get(pk=release.pk)
    assert fresh.data == path.read_bytes()


def test_the_api_serves_the_stored_bytes_plain_and_gzip_with_etag(mini_catalogue, client):
    release = publish("sauschwer", "en").release
    stored = _path(release).read_bytes()
    plain = client.get("/api/packs/sauschwer/en/1.json")
    assert plain.status_code == 200 and plain.content == stored
    assert plain["ETag"] == f'"{release.sha256}"'
    zipped = client.get("/api/packs/sauschwer/en/1.json", headers={"Accept-Encoding": "gzip"})
    assert zipped["Content-Encoding"] == "gzip" and zipped.content == gzip_bytes(stored)
    again = client.get("/api/packs/sauschwer/en/1.json",
                       headers={"If-None-Match": f'"{release.sha256}"'})
    assert again.status_code == 304


def test_a_release_file_changed_after_publishing_is_refused_everywhere(mini_catalogue, client):
    release = publish("sauschwer", "en").release
    true_bytes = _path(release).read_bytes()
    _path(release).write_bytes(true_bytes.replace(b'"content_version":1', b'"content_version":7'))

    response = client.get("/api/packs/sauschwer/en/1.json")
    assert response.status_code == 409 and response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == 409 and "does not hold the published bytes" in body["error"]
    assert "Sauschwer" in body["error"] or "sauschwer" in body["error"]
    embedded = client.get("/api/packs/sauschwer/en/1.json?pictures=embedded")
    assert embedded.status_code == 409
    with pytest.raises(ReleaseFileCorrupt):
        _ = Release.objects.get(pk=release.pk).data
    with pytest.raises(PackError, match="does not hold the published bytes"):
        load_pack("sauschwer", "en", release=1)

    # Put back from the backup: served again at once (a refusal is never cached).
    _path(release).write_bytes(true_bytes)
    assert client.get("/api/packs/sauschwer/en/1.json").content == true_bytes


def test_a_missing_release_file_is_a_json_503_to_retry(mini_catalogue, client):
    release = publish("sauschwer", "en").release
    true_bytes = _path(release).read_bytes()
    _path(release).unlink()
    response = client.get("/api/packs/sauschwer/en/1.json")
    assert response.status_code == 503 and response["Retry-After"] == "60"
    assert "is missing from the release storage" in response.json()["error"]
    with pytest.raises(ReleaseFileMissing):
        read_release(release.sha256, label="test")
    # the row still says which bytes the file must hold: storing them again restores it
    assert store_release(true_bytes) == release.sha256
    assert client.get("/api/packs/sauschwer/en/1.json").content == true_bytes


def test_storing_bytes_again_writes_nothing_and_a_damaged_file_gets_its_true_bytes_back(
        settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    digest = store_release(b'{"a":1}')
    path = tmp_path / release_name(digest)
    written = path.stat().st_mtime_ns
    assert store_release(b'{"a":1}') == digest
    assert path.stat().st_mtime_ns == written and len(list(path.parent.iterdir())) == 1
    path.write_bytes(b"damaged")
    assert store_release(b'{"a":1}') == digest
    assert path.read_bytes() == b'{"a":1}' and len(list(path.parent.iterdir())) == 1


def test_a_release_row_cannot_name_other_bytes_than_its_own(mini_catalogue):
    with pytest.raises(ValueError, match="is not that of its bytes"):
        Release.objects.create(game="sign", language="en", version=1, sha256="0" * 64,
                               body_sha256="0" * 64, data=b"{}")
    assert not Release.objects.exists()
    with pytest.raises(ValueError, match="needs its bytes"):
        Release.objects.create(game="sign", language="en", version=1, body_sha256="0" * 64)


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres  # the migration's column changes and trigger differ on PostgreSQL
def test_the_migration_moves_release_bytes_out_and_back(settings, tmp_path):
    """0006 forward writes every release's bytes as files and drops the columns; backward
    fills the columns from the files again; the UPDATE trigger is there after both."""
    settings.MEDIA_ROOT = tmp_path
    before = [("exports", "0005_release_notes")]
    after = [("exports", "0006_release_bytes_to_storage")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("exports", "Release")
    datas = [json.dumps({"version": n, "text": "Grüße"}).encode() for n in (1, 2)]
    for version, data in enumerate(datas, start=1):
        old.objects.create(game="sauschwer", language="de", version=version,
                           sha256=hashlib.sha256(data).hexdigest(), body_sha256="0" * 64,
                           size=len(data), data=data, data_gzip=gzip_bytes(data))
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        for data in datas:
            digest = hashlib.sha256(data).hexdigest()
            assert (tmp_path / release_name(digest)).read_bytes() == data
        _assert_update_refused()

        executor = MigrationExecutor(connection)
        executor.migrate(before)
        old = executor.loader.project_state(before).apps.get_model("exports", "Release")
        rows = old.objects.order_by("version")
        assert [bytes(r.data) for r in rows] == datas
        assert [bytes(r.data_gzip) for r in rows] == [gzip_bytes(d) for d in datas]
        _assert_update_refused()
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def _assert_update_refused() -> None:
    from django.db import transaction

    with pytest.raises(Exception, match="releases are immutable"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute("UPDATE exports_release SET size = 1")
