"""`make run`'s local settings file (.env, kartothek/localenv.py) and how settings read it.

Each case runs `manage.py check` in a subprocess with a clean environment and the file at a
temporary path (KARTOTHEK_ENV_FILE), so the checkout's own .env never plays a part.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from common.env import load_env_file
from kartothek.localenv import write_local_env

ROOT = Path(__file__).resolve().parent.parent


def _check(tmp_path: Path, env_file: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "KARTOTHEK_ENV_FILE": str(env_file),
        "KARTOTHEK_VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "kartothek.settings",
        **env,
    }
    return subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=clean,
        capture_output=True, text=True, timeout=120,
    )


def test_written_once_with_a_fresh_key_and_the_local_marker(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    assert write_local_env(path) is True
    first = path.read_text()
    assert "KARTOTHEK_LOCAL_DEVELOPMENT=1" in first and "DEBUG=1" in first
    assert write_local_env(path) is False  # only when absent: never overwritten
    assert path.read_text() == first
    other = tmp_path / "other.env"
    write_local_env(other)
    keys = [load_env_file(p)["SECRET_KEY"] for p in (path, other)]
    assert keys[0] != keys[1] and len(keys[0]) >= 50


def test_check_works_with_the_file_and_no_environment(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    write_local_env(env_file)
    result = _check(tmp_path, env_file)
    assert result.returncode == 0, result.stderr


def test_without_file_and_environment_the_error_says_so(tmp_path: Path) -> None:
    result = _check(tmp_path, tmp_path / "absent.env")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_the_environment_wins_over_the_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("KARTOTHEK_LOCAL_DEVELOPMENT=1\nDEBUG=1\nSECRET_KEY=from-the-file\n"
                        "ALLOWED_HOSTS=file.example\n")
    before = dict(os.environ)
    try:
        os.environ["ALLOWED_HOSTS"] = "env.example"
        pairs = load_env_file(env_file)
        assert pairs["ALLOWED_HOSTS"] == "file.example"
        assert os.environ["ALLOWED_HOSTS"] == "env.example"
    finally:
        os.environ.clear()
        os.environ.update(before)
    # DEBUG=0 from the environment beats the file's DEBUG=1: the file's key is then refused.
    result = _check(tmp_path, env_file, DEBUG="0")
    assert result.returncode != 0
    assert "local development file" in result.stderr


@pytest.mark.parametrize("debug", ["0", None])
def test_production_refuses_the_files_key_but_takes_a_real_one(tmp_path: Path, debug: str | None) -> None:
    env_file = tmp_path / ".env"
    write_local_env(env_file)
    text = env_file.read_text().replace("DEBUG=1\n", "" if debug is None else f"DEBUG={debug}\n")
    env_file.write_text(text)  # even when the file itself says DEBUG off (or nothing)
    refused = _check(tmp_path, env_file)
    assert refused.returncode != 0
    assert "local development file" in refused.stderr
    accepted = _check(tmp_path, env_file, DEBUG="0", SECRET_KEY="a-real-production-key-" + "x" * 40)
    assert accepted.returncode == 0, accepted.stderr
