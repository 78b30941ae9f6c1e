"""Releases keep their notes: what changed since the previous release, and the curator's note.

SQLite adds a column with a default by rebuilding the table, and the rebuilt table has lost
the trigger of migration 0002 that refuses every UPDATE of a release: it is made again here.
(PostgreSQL adds the columns in place and keeps its trigger; no row is updated either way.)
"""

from django.db import migrations, models

SQLITE_TRIGGER = """
CREATE TRIGGER IF NOT EXISTS exports_release_immutable
BEFORE UPDATE ON exports_release
BEGIN
    SELECT RAISE(ABORT, 'releases are immutable');
END;
"""


def trigger_again(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(SQLITE_TRIGGER)


class Migration(migrations.Migration):

    dependencies = [
        ("exports", "0004_release_signature"),
    ]

    operations = [
        # on the way back the columns go (a rebuild again): the trigger is made again last
        migrations.RunPython(migrations.RunPython.noop, trigger_again),
        migrations.AddField(
            model_name="release",
            name="changes",
            field=models.JSONField(
                blank=True, null=True,
                help_text="what changed since the previous release (exports/changes.py); empty "
                          "for releases published before releases kept their changes"),
        ),
        migrations.AddField(
            model_name="release",
            name="note",
            field=models.TextField(blank=True, default="", help_text="the curator's note"),
        ),
        migrations.RunPython(trigger_again, migrations.RunPython.noop),
    ]
