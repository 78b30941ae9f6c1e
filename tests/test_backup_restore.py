"""The README's backup routine restores into an empty database with every pack and every
release byte for byte.

Two paths: ``export_catalogue`` (content and pictures as files; ``import_catalogue``
restores them) on SQLite and PostgreSQL, and ``pg_dump``/``pg_restore`` of the whole database
(releases included) on PostgreSQL when the binaries are there. The restore runs in another
process against a new, empty database and its own KARTOTHEK_VAR_DIR, as on a new machine.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from cards.catalogue import import_catalogue
from tests.conftest import MINI
from tests.test_production import clean_environment

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def dump(out: Path) -> None:
    """Every pack built from the current content and every release's bytes, as files."""
    from exports.models import Release
    from exports.packs import BODIES, build_pack, canonical

    out.mkdir(parents=True)
    for game in BODIES:
        for language in settings.KARTOTHEK_LANGUAGES:
            (out / f"pack-{game}-{language}.json").write_bytes(canonical(build_pack(game, language)))
    for release in Release.objects.all():
        name = f"release-{release.game}-{release.language}-{release.version}"
        (out / f"{name}.json").write_bytes(bytes(release.data))
        (out / f"{name}.sha256").write_text(f"{release.sha256} {release.body_sha256} {release.size}")


def files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def catalogue_with_releases() -> None:
    """The mini catalogue, every game published in every language, and a second release."""
    from cards.models import SauschwerObject
    from exports.packs import BODIES, publish

    assert not import_catalogue(MINI).errors
    for game in BODIES:
        for language in settings.KARTOTHEK_LANGUAGES:
            publish(game, language)
    egg = SauschwerObject.objects.order_by("pk").first()
    assert egg is not None
    egg.source += " (checked)"
    egg.save()
    assert publish("sauschwer", "en").release.version == 2
    assert publish("sauschwer", "de").release.version == 2  # the German source changed too


def restored_environment(tmp_path: Path, database_url: str) -> dict[str, str]:
    return clean_environment(SECRET_KEY="restore-test", DATABASE_URL=database_url,
                             KARTOTHEK_VAR_DIR=str(tmp_path / "restored-var"))


def run(env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    return result.stdout


def dump_in(env: dict[str, str], out: Path) -> None:
    run(env, "-c", "import django, sys; django.setup(); from pathlib import Path; "
                   "from tests.test_backup_restore import dump; dump(Path(sys.argv[1]))", str(out))


def postgres_url(name: str) -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD']}@{s['HOST']}:{s['PORT']}/{name}"


def empty_database() -> tuple[str, object]:
    """A URL of a new, empty database of the same kind as the test database, and a cleanup."""
    if connection.vendor != "postgresql":
        return "", lambda: None
    name = f"kartothek_restore_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return postgres_url(name), drop


@pytest.mark.postgres  # runs on SQLite too; the marker puts it into CI's PostgreSQL pass as well
def test_export_catalogue_restores_every_pack_and_the_newest_release_of_each_byte_for_byte(tmp_path):
    from exports.packs import canonical

    catalogue_with_releases()
    dump(tmp_path / "before")
    call_command("export_catalogue", str(tmp_path / "backup"))

    url, drop = empty_database()
    if not url:
        url = f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    try:
        env = restored_environment(tmp_path, url)
        run(env, "manage.py", "migrate", "--no-input")
        run(env, "manage.py", "import_catalogue", str(tmp_path / "backup"))
        dump_in(env, tmp_path / "after")
    finally:
        drop()  # type: ignore[operator]
    before, after = files(tmp_path / "before"), files(tmp_path / "after")
    packs = [name for name in before if name.startswith("pack-")]
    assert len(packs) == 4 * len(settings.KARTOTHEK_LANGUAGES)
    for name in packs:
        assert after[name] == before[name], name
    # The content restores, not the release history (that is pg_dump's part): publishing the
    # restored content gives the bytes of the newest release of each game and language.
    for release in _newest_releases():
        restored = json.loads(after[f"pack-{release.game}-{release.language}.json"])
        assert canonical({**restored, "content_version": release.version}) == bytes(release.data)


def _newest_releases():  # type: ignore[no-untyped-def]
    from exports.models import Release

    newest = {}
    for release in Release.objects.order_by("version"):
        newest[(release.game, release.language)] = release
    return list(newest.values())


def _pg_binary(name: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return found[-1] if found else shutil.which(name)


@pytest.mark.postgres
def test_pg_dump_and_pg_restore_bring_back_every_pack_and_every_release_byte_for_byte(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("pg_dump is PostgreSQL's")
    pg_dump, pg_restore = _pg_binary("pg_dump"), _pg_binary("pg_restore")
    if not pg_dump or not pg_restore:
        pytest.skip("pg_dump/pg_restore are not installed")
    catalogue_with_releases()
    dump(tmp_path / "before")
    s = connection.settings_dict
    pg_env = {**os.environ, "PGPASSWORD": s["PASSWORD"]}
    where = ["--host", s["HOST"], "--port", str(s["PORT"]), "--username", s["USER"]]
    backup = tmp_path / "kartothek.dump"
    subprocess.run([pg_dump, *where, "--format=custom", "--no-owner", "--file", str(backup),
                    s["NAME"]], env=pg_env, check=True, capture_output=True, timeout=300)
    # Pictures and release bytes are files: the routine copies KARTOTHEK_VAR_DIR's media/
    # after the dump (files are only ever added, so the copy holds all the dump names).
    copy = tmp_path / "media-copy"
    shutil.copytree(settings.MEDIA_ROOT, copy)
    assert list((copy / "releases").rglob("*.json"))

    url, drop = empty_database()
    try:
        subprocess.run([pg_restore, *where, "--no-owner", "--exit-on-error", "--dbname",
                        url.rsplit("/", 1)[1], str(backup)], env=pg_env, check=True,
                       capture_output=True, timeout=300)
        env = restored_environment(tmp_path, url)
        # The restored database is complete: migrate has nothing left to do.
        assert "No migrations to apply." in run(env, "manage.py", "migrate", "--no-input")
        # Without media/ the database names releases whose bytes are not there: refused.
        missing = subprocess.run(
            [sys.executable, "-c", "import django; django.setup(); from exports.models import "
             "Release; [r.data for r in Release.objects.all()]"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert missing.returncode != 0
        assert "is missing from the release storage" in missing.stderr
        shutil.copytree(copy, tmp_path / "restored-var" / "media")
        dump_in(env, tmp_path / "after")
    finally:
        drop()  # type: ignore[operator]
    before, after = files(tmp_path / "before"), files(tmp_path / "after")
    assert any(name.startswith("release-sauschwer-en-2") for name in before)
    assert after == before
