"""docs/clients.md's JavaScript steps are the client's real API: each step is a whole module
that `tsc --strict` type-checks against clients/js (built), and each is under 50 lines."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from tests.js.helpers import CLIENT, ROOT, TSC, build

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


def test_every_js_step_type_checks_against_the_client(tmp_path: Path):
    build()
    for name, code in js_steps().items():
        (tmp_path / f"{name}.ts").write_text(code, encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text(json.dumps({"compilerOptions": {
        "strict": True, "noEmit": True, "target": "ES2022", "module": "ES2022",
        "moduleResolution": "Bundler", "lib": ["ES2022", "DOM"], "types": [],
        "paths": {"@kartothek/client": [str(CLIENT / "dist" / "index.d.ts")],
                  "eventsource": [str(CLIENT / "node_modules" / "eventsource")]},
    }, "include": ["*.ts"]}), encoding="utf-8")
    done = subprocess.run([str(TSC), "-p", str(tmp_path / "tsconfig.json")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
