"""`make run`'s reloader watches the project's own packages (RELOAD_DIRS), never .venv or var/."""

from __future__ import annotations

import re
from pathlib import Path

from uvicorn.config import Config
from uvicorn.supervisors.statreload import StatReload

ROOT = Path(__file__).resolve().parent.parent


def _reload_dirs() -> list[str]:
    match = re.search(r"^RELOAD_DIRS := (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert match, "Makefile has no RELOAD_DIRS line"
    return match.group(1).split()


def test_run_passes_every_reload_dir_to_uvicorn() -> None:
    recipe = (ROOT / "Makefile").read_text()
    assert "--reload \\\n\t\t$(foreach dir,$(RELOAD_DIRS),--reload-dir $(dir))" in recipe


def test_the_reloader_polls_the_project_code_only(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    dirs = _reload_dirs()
    assert set(dirs) >= {"kartothek", "common", "cards", "exports", "games", "curation"}
    config = Config("kartothek.asgi:application", reload=True, reload_dirs=dirs)
    assert sorted(config.reload_dirs) == sorted((ROOT / d).resolve() for d in dirs)
    files = list(StatReload(config, target=lambda sockets: None, sockets=[]).iter_py_files())
    assert files and all(ROOT in f.parents for f in files)
    assert not [f for f in files if {".venv", "var", "node_modules"} & set(f.relative_to(ROOT).parts)]
    assert len(files) < 2000, len(files)  # the whole checkout with .venv was 11,405
