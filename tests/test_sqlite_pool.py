"""The SQLite backend keeps closed connections for the next request (kartothek/sqlite/base.py):
a connection closed outside a transaction is used again, one closed inside a transaction is
really closed and its writes are gone, and the pool never grows past its size."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from kartothek.sqlite.base import DatabaseWrapper, idle_connections

pytestmark = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's backend only")


def _wrapper(path: Path, alias: str = "pooltest") -> DatabaseWrapper:
    settings_dict = {**connection.settings_dict, "NAME": str(path), "TEST": {}}
    return DatabaseWrapper(settings_dict, alias=alias)


@pytest.fixture(autouse=True)
def _own_database_file(django_db_blocker):  # type: ignore[no-untyped-def]
    """These tests open a file of their own, not the test database."""
    with django_db_blocker.unblock():
        yield


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    path = tmp_path / "pool.sqlite3"
    first = _wrapper(path)
    with first.cursor() as cursor:
        cursor.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
    first.close()
    return path


def test_a_connection_closed_outside_a_transaction_serves_the_next_connect(db_file: Path):
    one = _wrapper(db_file)
    one.ensure_connection()
    raw = one.connection
    one.close()
    assert idle_connections(str(db_file)) >= 1

    two = _wrapper(db_file)  # another request's wrapper, as in another thread
    with two.cursor() as cursor:
        cursor.execute("INSERT INTO t (v) VALUES ('kept')")
        cursor.execute("SELECT v FROM t")
        assert cursor.fetchall() == [("kept",)]
    assert two.connection is raw
    two.close()


def test_a_connection_closed_inside_a_transaction_is_closed_and_its_write_rolled_back(db_file: Path):
    one = _wrapper(db_file)
    one.ensure_connection()
    raw = one.connection
    one.set_autocommit(False)
    one._start_transaction_under_autocommit()
    with one.cursor() as cursor:
        cursor.execute("INSERT INTO t (v) VALUES ('never committed')")
    assert raw.in_transaction
    one.close()
    assert not one._writer().locked()

    two = _wrapper(db_file)
    with two.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM t")
        assert cursor.fetchone() == (0,)
    assert two.connection is not raw
    two.close()


def test_a_kept_connection_checks_foreign_keys_again(db_file: Path):
    one = _wrapper(db_file)
    with one.cursor() as cursor:
        cursor.execute("PRAGMA foreign_keys = OFF")  # as a migration's schema editor does
    one.close()
    two = _wrapper(db_file)
    with two.cursor() as cursor:
        cursor.execute("PRAGMA foreign_keys")
        assert cursor.fetchone() == (1,)
    two.close()


@override_settings(KARTOTHEK_SQLITE_POOL=2)
def test_the_pool_keeps_no_more_than_its_size(db_file: Path):
    wrappers = [_wrapper(db_file) for _ in range(4)]
    for wrapper in wrappers:
        wrapper.ensure_connection()
    raws = [wrapper.connection for wrapper in wrappers]
    before = idle_connections(str(db_file))
    for wrapper in wrappers:
        wrapper.close()
    assert idle_connections(str(db_file)) == max(before, 2)
    closed = [raw for raw in raws if _is_closed(raw)]
    assert len(closed) == 4 - (max(before, 2) - before)


@override_settings(KARTOTHEK_SQLITE_POOL=0)
def test_a_pool_of_size_zero_closes_every_connection(db_file: Path):
    before = idle_connections(str(db_file))
    one = _wrapper(db_file)
    one.ensure_connection()
    raw = one.connection
    one.close()
    assert _is_closed(raw)
    assert idle_connections(str(db_file)) == before


def _is_closed(raw) -> bool:  # type: ignore[no-untyped-def]
    import sqlite3

    try:
        raw.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False
