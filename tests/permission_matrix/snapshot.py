"""What a refused request must leave alone: a checksum of every content, user and release table."""

from __future__ import annotations

from hashlib import sha256

from django.apps import apps
from django.contrib.auth.models import Group, User
from django.db import connection

from exports.models import WebhookEndpoint

# --- the snapshot ------------------------------------------------------------------------------


def snapshot_tables() -> tuple[list[str], list[tuple[str, str]]]:
    """(tables compared row by row, append-only tables compared by count and last id):
    content, translations and their history, play rooms, users and groups; releases and their pictures
    (which the database itself keeps from changing)."""
    full = [m._meta.db_table for label in ("cards", "games")
            for m in apps.get_app_config(label).get_models()]
    full += [Group._meta.db_table, Group.permissions.through._meta.db_table,
             User.groups.through._meta.db_table]
    full += [WebhookEndpoint._meta.db_table]  # endpoints change in place
    append_only = [(m._meta.db_table, m._meta.pk.column)
                   for m in apps.get_app_config("exports").get_models() if m is not WebhookEndpoint]
    return full, append_only


FULL_TABLES, APPEND_ONLY_TABLES = snapshot_tables()


def snapshot() -> dict[str, tuple[int, str]]:
    """Per table: the number of rows and a checksum of all of them."""
    result = {}
    with connection.cursor() as cursor:
        for table in FULL_TABLES:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)} ORDER BY 1")
            rows = cursor.fetchall()
            result[table] = (len(rows), sha256(repr(rows).encode()).hexdigest())
        for table, pk in APPEND_ONLY_TABLES:
            cursor.execute(f"SELECT COUNT(*), MAX({connection.ops.quote_name(pk)}) "
                           f"FROM {connection.ops.quote_name(table)}")
            count, last = cursor.fetchone()
            result[table] = (count, str(last))
        # Users without last_login, which every login changes.
        cursor.execute("SELECT id, username, password, first_name, is_staff, is_superuser, "
                       "is_active FROM auth_user ORDER BY id")
        rows = cursor.fetchall()
        result["auth_user"] = (len(rows), sha256(repr(rows).encode()).hexdigest())
    return result
