"""docs/clients.md's JavaScript steps are the client's real API: each step is a whole module
that `tsc --strict` type-checks against clients/js (built), and each is under 50 lines."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.js.helpers import CLIENT, ROOT, TSC, build, kartothek_server, publish_catalogue

DOC = ROOT / "docs" / "clients.md"
STEPS = ["import", "list", "release", "update", "keys", "room", "errors"]


def js_steps() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    return dict(re.findall(r"<!-- js-step: (\w+) -->\n```ts\n(.*?)```", text, flags=re.S))


def test_the_docs_show_each_js_step_in_under_50_lines_in_order():
    steps = js_steps()
    assert list(steps) == STEPS
    assert {name: len(code.splitlines()) for name, code in steps.items()
            if len(code.splitlines()) >= 50} == {}
    text = DOC.read_text(encoding="utf-8")
    assert text.index("## JavaScript") < text.index("## Python") < text.index("## curl")


def _tsc(folder: Path, steps: dict[str, str], *, emit: bool) -> None:
    """The steps as modules of a strict TypeScript project that imports clients/js's types."""
    for name, code in steps.items():
        (folder / f"{name}.ts").write_text(code, encoding="utf-8")
    (folder / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "strict": True, "noEmit": not emit, "outDir": ".", "target": "ES2022", "module": "ES2022",
        "moduleResolution": "Bundler", "lib": ["ES2022", "DOM"], "types": [],
        "paths": {"@kartothek/client": [str(CLIENT / "dist" / "index.d.ts")],
                  "eventsource": [str(CLIENT / "node_modules" / "eventsource")]},
    }, "files": [f"{name}.ts" for name in steps]}), encoding="utf-8")
    done = subprocess.run([str(TSC), "-p", str(folder / "tsconfig.json")], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_js_step_type_checks_against_the_client(tmp_path: Path):
    build()
    _tsc(tmp_path, js_steps(), emit=False)

# The steps that run as they are in Node against a real server (the others need a browser's
# localStorage or name a server on the internet): compiled by tsc, run by node.
RUN = {"list": "sauschwer de  release 2", "release": "release 1, signed by key",
       "errors": "", "room": "the guest saw the end:"}


def _project(folder: Path) -> None:
    """A folder where `import "@kartothek/client"` is clients/js, as after `npm install`."""
    modules = folder / "node_modules"
    (modules / "@kartothek").mkdir(parents=True)
    (modules / "@kartothek" / "client").symlink_to(CLIENT)
    (modules / "eventsource").symlink_to(CLIENT / "node_modules" / "eventsource")
    (folder / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    # Node has no EventSource of its own; a Node app installs one like this
    (folder / "preload.mjs").write_text(
        'import { EventSource } from "eventsource";\nglobalThis.EventSource = EventSource;\n',
        encoding="utf-8")


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_js_steps_run_against_a_real_server(mini_catalogue, tmp_path: Path):
    build()
    publish_catalogue()
    _project(tmp_path)
    _tsc(tmp_path, {name: js_steps()[name] for name in RUN}, emit=True)
    with kartothek_server() as server:
        for name, expected in RUN.items():
            script = tmp_path / f"{name}.js"
            script.write_text(script.read_text(encoding="utf-8").replace(
                "http://127.0.0.1:8000", server.url), encoding="utf-8")
            done = subprocess.run(["node", "--import", "./preload.mjs", script.name],
                                  cwd=tmp_path, capture_output=True, text=True, timeout=60)
            assert (done.returncode, done.stderr) == (0, ""), (name, done.stderr[-3000:])
            assert expected in done.stdout, (name, done.stdout)
