"""The database itself refuses to change a release (whatever client issues the UPDATE)."""

from django.db import migrations

SQLITE_CREATE = """
CREATE TRIGGER exports_release_immutable
BEFORE UPDATE ON exports_release
BEGIN
    SELECT RAISE(ABORT, 'releases are immutable');
END;
"""
SQLITE_DROP = "DROP TRIGGER IF EXISTS exports_release_immutable;"

POSTGRES_CREATE = """
CREATE OR REPLACE FUNCTION exports_release_immutable() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'releases are immutable';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER exports_release_immutable
BEFORE UPDATE ON exports_release
FOR EACH ROW EXECUTE FUNCTION exports_release_immutable();
"""
POSTGRES_DROP = """
DROP TRIGGER IF EXISTS exports_release_immutable ON exports_release;
DROP FUNCTION IF EXISTS exports_release_immutable();
"""


def create(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(SQLITE_CREATE)
    elif vendor == "postgresql":
        schema_editor.execute(POSTGRES_CREATE)


def drop(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute(SQLITE_DROP)
    elif vendor == "postgresql":
        schema_editor.execute(POSTGRES_DROP)


class Migration(migrations.Migration):
    dependencies = [("exports", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
