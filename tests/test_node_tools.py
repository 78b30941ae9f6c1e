"""What JavaScript clients' own tools make of the served schemas (tools/node, installed by
`make install-dev` with `npm ci`): ajv 8 compiles the pack and the delta schema in strict mode
and holds the real starter packs and a real delta to them; `redocly lint` (recommended rules,
tools/node/redocly.yaml) finds nothing in /api/openapi.json; and openapi-typescript's types
(default flags) let a client (tools/node/example-client.ts) compile under `tsc --strict`, while
a misspelt field or a wrong action does not. One Node process per tool."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from cards.catalogue import import_catalogue
from cards.models import SauschwerObject
from exports.packs import (
    DELTA_SCHEMA_PATH,
    SCHEMA_PATH,
    build_pack,
    editions_of_game,
    publish,
    with_embedded_pictures,
)
from tests.conftest import STARTER

TOOLS = Path(__file__).resolve().parent.parent / "tools" / "node"
BIN = TOOLS / "node_modules" / ".bin"
NODE = shutil.which("node")
# slow: make test runs them (-m ""), not the default selection
pytestmark = [pytest.mark.skipif(NODE is None, reason="node is not installed (CI has it)"),
              pytest.mark.slow]


def _run(*args: str | Path, stdin: str | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    if not (BIN / "tsc").exists():
        pytest.fail("tools/node has no node_modules: run make install-dev (npm ci --prefix tools/node)")
    return subprocess.run([str(a) for a in args], input=stdin, capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def _served(client: Any, url: str, path: Path) -> dict[str, Any]:
    answer = client.get(url)
    assert answer.status_code == 200 and answer.content == path.read_bytes()
    return json.loads(answer.content)


@pytest.mark.django_db
def test_ajv_strict_compiles_both_schemas_and_they_hold_the_starter_packs_and_a_delta(client):
    schemas = [_served(client, reverse("api:schema"), SCHEMA_PATH),
               _served(client, reverse("api:delta-schema"), DELTA_SCHEMA_PATH)]
    pack_id, delta_id = (schema["$id"] for schema in schemas)
    assert not import_catalogue(STARTER).errors
    documents = [{"schema": pack_id, "name": f"{game} {edition}", "data": build_pack(game, edition)}
                 for game in ("symbols", "sign", "slogan", "sauschwer")
                 for edition in editions_of_game(game)]
    documents.append({"schema": pack_id, "name": "symbols de (embedded pictures)",
                      "data": with_embedded_pictures(build_pack("symbols", "de"))})
    publish("sauschwer", "en")
    SauschwerObject.objects.filter(pk=SauschwerObject.objects.order_by("key")[0].pk).update(weight_g=4321)
    publish("sauschwer", "en")
    delta = client.get("/api/packs/sauschwer/en/1..2.delta.json")
    assert delta.status_code == 200
    documents.append({"schema": delta_id, "name": "delta", "data": delta.json()})
    wrong = json.loads(json.dumps(documents[-2]["data"]))
    wrong["body"]["cards"] = [{"key": "x"}]
    documents.append({"schema": pack_id, "name": "broken", "data": wrong})  # the check does check

    ran = _run(NODE, TOOLS / "check-schemas.mjs",
               stdin=json.dumps({"schemas": schemas, "documents": documents}))
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    assert answer["compiled"] == [pack_id, delta_id], answer["problems"]
    assert len(documents) > 8
    assert [p.partition(":")[0] for p in answer["problems"]] == ["broken"], answer["problems"]


def test_both_schemas_have_one_id_scheme_where_they_are_served():
    pack, delta = (json.loads(p.read_text(encoding="utf-8")) for p in (SCHEMA_PATH, DELTA_SCHEMA_PATH))
    base = pack["$id"].removesuffix(reverse("api:schema"))
    assert delta["$id"] == base + reverse("api:delta-schema")
    assert pack["$schema"] == delta["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.fixture
def description(client, tmp_path: Path) -> Path:
    """/api/openapi.json as a client downloads it."""
    answer = client.get("/api/openapi.json")
    assert answer.status_code == 200
    path = tmp_path / "openapi.json"
    path.write_bytes(answer.content)
    return path


def test_redocly_lint_with_the_recommended_rules_finds_nothing(description):
    ran = _run(BIN / "redocly", "lint", "--config", TOOLS / "redocly.yaml", "--format=json", description)
    report = json.loads(ran.stdout[ran.stdout.index("{"):])
    assert report["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, json.dumps(
        report["problems"][:5], indent=1)
    assert ran.returncode == 0


# Each line a client could write that the types must refuse, with the TypeScript error it gives.
BROKEN = [
    ('export const a: S["NewRoom"] = { game: "chess", language: "en", name: "Ada" };', "TS2322"),
    ('export const b: S["NewRoom"] = { game: "sign", language: "en" };', "TS2741"),
    ('export const c: S["Action"] = { type: "place", card: "c0123456789ab" };', "TS2322"),
    ('export const d: S["Action"] = { type: "marker", side: "blue" };', "TS2322"),
    ('export const e = (v: S["SauschwerSeatView"]) => v.hands[v.you][0].weight_g;', "TS2339"),
    ('export const f = (v: S["SymbolsTableView"]) => v.secret;', "TS2339"),
    ('export const g = (e: S["SignLogEvent"]) => e.type === "take" ? e.card.length : 0;', "TS18048"),
]


def test_openapi_typescript_types_compile_a_client_under_tsc_strict(description, tmp_path):
    generated = _run(BIN / "openapi-typescript", description, "-o", tmp_path / "kartothek-api.ts")
    assert generated.returncode == 0, generated.stderr
    assert "warn" not in (generated.stdout + generated.stderr).lower(), generated.stderr
    shutil.copy(TOOLS / "example-client.ts", tmp_path)
    broken = ['import type { components } from "./kartothek-api";', 'type S = components["schemas"];',
              *(line for line, _ in BROKEN)]
    (tmp_path / "broken.ts").write_text("\n".join(broken) + "\n")
    ran = _run(BIN / "tsc", "--strict", "--noEmit", "--pretty", "false", "--target", "es2022",
               "--module", "esnext", "--moduleResolution", "bundler", "--lib", "es2022,dom",
               "example-client.ts", "broken.ts", cwd=tmp_path)
    errors = re.findall(r"^(\S+?)\((\d+),\d+\): error (TS\d+)", ran.stdout, re.MULTILINE)
    assert [e for e in errors if e[0] != "broken.ts"] == [], ran.stdout  # the client compiles
    found = {(int(line), code) for name, line, code in errors if name == "broken.ts"}
    expected = {(number, code) for number, (_, code) in enumerate(BROKEN, start=3)}
    assert found >= expected and {line for line, _ in found} == {line for line, _ in expected}, ran.stdout
