"""The translation editor's search, on an index: which texts contain a phrase.

A search finds the texts that contain it anywhere, ignoring case (ä finds Ä; ß stays ß and
does not find "ss", as PostgreSQL's ``UPPER`` has it). Each searched column gets a trigram
index, so the database finds the matches without reading every text:

* SQLite: an FTS5 table with the trigram tokenizer per column (external content: the table
  itself holds the text; triggers keep the index in step with every write, bulk ones and
  raw SQL included). A phrase of three characters or more is looked up there.
* PostgreSQL: a GIN index with ``pg_trgm``'s ``gin_trgm_ops`` on ``UPPER(column)``, the
  expression Django's ``icontains`` compares, so the same query uses it (when the extension
  cannot be installed, the search works as before, by reading the table).

Shorter searches (one or two characters: no trigram) read the table, as every search did
before (on SQLite with Python's case-insensitive ``re``, whose case folding matches the index's).
The migration ``0013_search_index`` creates the indexes (:func:`create_indexes`).
"""

from __future__ import annotations

import re
from typing import Any

from django.db import connection
from django.db.models import Q
from django.db.models.expressions import RawSQL

#: (table, column) of every searched text: each translatable source field and translations.
SEARCHED: tuple[tuple[str, str], ...] = (
    ("cards_conceptcard", "text"),
    ("cards_symboltile", "name"),
    ("cards_signsymbol", "name"),
    ("cards_signcolour", "name"),
    ("cards_slogan", "text"),
    ("cards_sloganoption", "text"),
    ("cards_alfonscard", "text"),
    ("cards_sauschwerobject", "name"),
    ("cards_translation", "text"),
)
TRIGRAM = 3


def fts_table(table: str, column: str) -> str:
    return f"{table}_{column}_search"


def matching(model: Any, column: str, search: str) -> Q:
    """A filter for rows of ``model`` whose ``column`` contains ``search``, ignoring case."""
    table = model._meta.db_table
    if (connection.vendor == "sqlite" and len(search) >= TRIGRAM
            and (table, column) in SEARCHED):
        phrase = '"' + search.replace('"', '""') + '"'
        found = RawSQL(f'SELECT rowid FROM "{fts_table(table, column)}" '
                       f'WHERE "{fts_table(table, column)}" MATCH %s', [phrase])
        return Q(pk__in=found)
    if connection.vendor == "sqlite" and not search.isascii():
        # SQLite's LIKE folds ASCII letters only; its REGEXP is Python's (case-insensitive
        # for every letter, as the index and PostgreSQL are), and slower: only for umlauts.
        return Q(**{f"{column}__iregex": re.escape(search)})
    return Q(**{f"{column}__icontains": search})


def translated_matching(content_type_id: int, field: str, language: str, search: str) -> Q:
    """A filter for the objects (of that content type) whose translation of ``field`` into
    ``language`` contains ``search``, ignoring case."""
    from cards.models import Translation

    if connection.vendor == "sqlite" and len(search) >= TRIGRAM:
        # Driven from the index: the matching translations first, then their objects (left
        # to itself, SQLite would walk every translation of the content type instead).
        fts = fts_table(Translation._meta.db_table, "text")
        found = RawSQL(
            f'SELECT t.object_id FROM "{fts}" CROSS JOIN "{Translation._meta.db_table}" t '
            f'ON t.id = "{fts}".rowid WHERE "{fts}" MATCH %s AND t.content_type_id = %s '
            "AND t.field = %s AND t.language = %s",
            ['"' + search.replace('"', '""') + '"', content_type_id, field, language])
        return Q(pk__in=found)
    rows = Translation.objects.filter(content_type_id=content_type_id, field=field,
                                      language=language)
    return Q(pk__in=rows.filter(matching(Translation, "text", search)).values("object_id"))


# --- the indexes (migrations) ----------------------------------------------------------------


def sqlite_statements(table: str, column: str) -> list[str]:
    fts = fts_table(table, column)
    return [
        f'CREATE VIRTUAL TABLE "{fts}" USING fts5("{column}", content="{table}", '
        f"content_rowid=\"id\", tokenize='trigram')",
        f'CREATE TRIGGER "{fts}_insert" AFTER INSERT ON "{table}" BEGIN '
        f'INSERT INTO "{fts}" (rowid, "{column}") VALUES (new.id, new."{column}"); END',
        f'CREATE TRIGGER "{fts}_delete" AFTER DELETE ON "{table}" BEGIN '
        f'INSERT INTO "{fts}" ("{fts}", rowid, "{column}") VALUES (\'delete\', old.id, old."{column}"); END',
        f'CREATE TRIGGER "{fts}_update" AFTER UPDATE OF "{column}" ON "{table}" BEGIN '
        f'INSERT INTO "{fts}" ("{fts}", rowid, "{column}") VALUES (\'delete\', old.id, old."{column}"); '
        f'INSERT INTO "{fts}" (rowid, "{column}") VALUES (new.id, new."{column}"); END',
        f'INSERT INTO "{fts}" ("{fts}") VALUES (\'rebuild\')',
    ]


def postgresql_index(table: str, column: str) -> str:
    return f"{table}_{column}_trgm"


def create_indexes(apps: Any, schema_editor: Any) -> None:
    cursor_connection = schema_editor.connection
    with cursor_connection.cursor() as cursor:
        if cursor_connection.vendor == "sqlite":
            for table, column in SEARCHED:
                for statement in sqlite_statements(table, column):
                    cursor.execute(statement)
        elif cursor_connection.vendor == "postgresql":
            if not _trigram_extension(cursor_connection):
                return
            for table, column in SEARCHED:
                cursor.execute(
                    f'CREATE INDEX IF NOT EXISTS "{postgresql_index(table, column)}" ON "{table}" '
                    f'USING gin ((UPPER("{column}"::text)) gin_trgm_ops)')


def _trigram_extension(db: Any) -> bool:
    """pg_trgm installed (a trusted extension since PostgreSQL 13: the database's owner may
    install it); False when this role may not, and the search reads the tables instead."""
    from django.db import DatabaseError, transaction

    try:
        with transaction.atomic(using=db.alias), db.cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DatabaseError:
        return False
    return True


def drop_indexes(apps: Any, schema_editor: Any) -> None:
    db = schema_editor.connection
    with db.cursor() as cursor:
        for table, column in SEARCHED:
            if db.vendor == "sqlite":
                fts = fts_table(table, column)
                for suffix in ("insert", "delete", "update"):
                    cursor.execute(f'DROP TRIGGER IF EXISTS "{fts}_{suffix}"')
                cursor.execute(f'DROP TABLE IF EXISTS "{fts}"')
            elif db.vendor == "postgresql":
                cursor.execute(f'DROP INDEX IF EXISTS "{postgresql_index(table, column)}"')
