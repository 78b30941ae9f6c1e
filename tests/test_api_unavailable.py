"""While the database cannot be reached, /api/ answers a JSON 503 with Retry-After (never
Django's HTML 500 page), and the rest of the site keeps Django's own error handling."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from tests.test_production import free_port


@pytest.fixture
def unreachable_database(transactional_db):  # type: ignore[no-untyped-def]
    """The real connection pointed at a database that is not there (no server on the port;
    for SQLite a file in a folder that does not exist)."""
    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent-kartothek-folder/db.sqlite3"
    else:
        connection.settings_dict["PORT"] = str(free_port())
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


def test_the_api_answers_json_503_while_the_database_is_away(unreachable_database):
    # One test (one flush of the transactional database): each request needs the database.
    client = Client(raise_request_exception=False)
    answers = [client.get("/api/packs/"), client.get("/api/play/rooms/ABCDE"),
               client.post("/api/play/rooms", {"game": "slogan", "language": "en", "name": "Ada",
                                               "cookie": False}, content_type="application/json")]
    for response in answers:
        assert response.status_code == 503
        assert response["Content-Type"] == "application/json"
        assert response["Retry-After"] == "5"
        assert "try again" in response.json()["error"]
    # Pages outside the API keep Django's own handling.
    assert client.get("/play/").status_code == 500
