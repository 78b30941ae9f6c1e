"""Release bytes move out of the database into STORAGES["releases"] (exports/release_files.py).

Forward: every release's bytes are written to ``releases/ab/<sha256>.json`` (checked against
the row's sha256 first: a row whose bytes do not match stops the migration, nothing is
dropped), then the ``data`` and ``data_gzip`` columns are dropped. Backward: the columns come
back and are filled from the files, each checked against its sha256. The trigger that
refuses an UPDATE of a release (0002) is made again afterwards both ways: SQLite drops a
table's triggers when a column change makes it rebuild the table, and the backward step
must fill the columns of rows the trigger protects.

The helpers are written out here, not imported from exports/release_files.py, so that this
migration keeps doing what it did when that module changes.
"""

import gzip
import hashlib
import importlib

from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.db import migrations, models

_trigger = importlib.import_module("exports.migrations.0002_release_trigger")


def _name(digest: str) -> str:
    return f"releases/{digest[:2]}/{digest}.json"


def _stored_sha(storage, name: str) -> str | None:  # type: ignore[no-untyped-def]
    try:
        with storage.open(name, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except (OSError, ValueError):
        return None


def bytes_to_files(apps, schema_editor):  # type: ignore[no-untyped-def]
    Release = apps.get_model("exports", "Release")
    storage = storages["releases"]
    rows = Release.objects.using(schema_editor.connection.alias).order_by("pk").only(
        "pk", "sha256", "data")
    for release in rows.iterator(chunk_size=50):
        data = bytes(release.data)
        if hashlib.sha256(data).hexdigest() != release.sha256:
            raise RuntimeError(f"Release {release.pk}: its bytes in the database do not match "
                               f"its sha256 {release.sha256}; nothing was moved. Repair the "
                               "row from a backup, then migrate again.")
        name = _name(release.sha256)
        if _stored_sha(storage, name) == release.sha256:
            continue  # already there (an earlier, interrupted run)
        if storage.exists(name):
            storage.delete(name)  # a damaged copy: the true bytes go under the same name
        if storage.save(name, ContentFile(data)) != name:
            raise RuntimeError(f"Release {release.pk}: {name} could not be written.")


def files_to_bytes(apps, schema_editor):  # type: ignore[no-untyped-def]
    Release = apps.get_model("exports", "Release")
    storage = storages["releases"]
    _trigger.drop(apps, schema_editor)
    rows = Release.objects.using(schema_editor.connection.alias).order_by("pk")
    for pk, digest in rows.values_list("pk", "sha256").iterator(chunk_size=50):
        with storage.open(_name(digest), "rb") as handle:
            data = handle.read()
        if hashlib.sha256(data).hexdigest() != digest:
            raise RuntimeError(f"Release {pk}: its file {_name(digest)} does not match its "
                               "sha256; restore it from a backup first.")
        rows.filter(pk=pk).update(data=data, data_gzip=gzip.compress(data, 9, mtime=0))
    _trigger.create(apps, schema_editor)


def trigger_again(apps, schema_editor):  # type: ignore[no-untyped-def]
    _trigger.drop(apps, schema_editor)
    _trigger.create(apps, schema_editor)


def no_trigger(apps, schema_editor):  # type: ignore[no-untyped-def]
    _trigger.drop(apps, schema_editor)  # files_to_bytes makes it again when it is done


class Migration(migrations.Migration):
    dependencies = [("exports", "0005_release_notes")]

    operations = [
        migrations.RunPython(bytes_to_files, files_to_bytes),
        # A default only so that the columns can come back (backward) on a table with rows;
        # files_to_bytes then fills them.
        migrations.AlterField(model_name="release", name="data",
                              field=models.BinaryField(default=b"")),
        migrations.AlterField(model_name="release", name="data_gzip",
                              field=models.BinaryField(default=b"")),
        migrations.RemoveField(model_name="release", name="data"),
        migrations.RemoveField(model_name="release", name="data_gzip"),
        migrations.RunPython(trigger_again, no_trigger),
    ]
