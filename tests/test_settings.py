"""Settings come from the environment and fail loudly on a bad value."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start(env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items()
             if k not in {"SECRET_KEY", "DEBUG", "DATABASE_URL", "DJANGO_SETTINGS_MODULE"}}
    return subprocess.run(
        [sys.executable, "-c",
         "import django, json; django.setup(); from django.conf import settings as s; "
         "print(json.dumps([s.DEBUG, s.ALLOWED_HOSTS, s.DATABASES['default']['ENGINE'], "
         "s.DATABASES['default'].get('NAME')]))"],
        cwd=ROOT, env={**clean, "DJANGO_SETTINGS_MODULE": "kartothek.settings", **env},
        capture_output=True, text=True, timeout=60,
    )


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off():
    result = start({})
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_debug_starts_without_a_secret_key_on_sqlite():
    result = start({"DEBUG": "1"})
    assert result.returncode == 0, result.stderr
    assert '[true, ["127.0.0.1", "localhost", "[::1]"], "kartothek.sqlite"' in result.stdout


def test_database_url_selects_postgresql_and_hosts_come_from_the_environment():
    result = start({
        "SECRET_KEY": "x", "ALLOWED_HOSTS": "cards.example.org, localhost",
        "DATABASE_URL": "postgres://app:pw@127.0.0.1:5433/kartothek",
    })
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        '[false, ["cards.example.org", "localhost"], "django.db.backends.postgresql", "kartothek"]'
    )


def test_a_debug_value_that_is_not_a_boolean_is_an_error():
    result = start({"DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr
