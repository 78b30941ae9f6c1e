"""The pack schema and the games' models bundled into the OpenAPI description's components, so
that generated clients (openapi-python-client, openapi-typescript…) see the pack model without
fetching /api/schema/content-pack.json, and a room's views and actions typed. The standalone
schema stays the source: its ``$defs`` become ``ContentPack_<name>`` components and its local
references are rewritten to point there; the games' components come from
``exports.play_schemas``.

    python -m exports.openapi_bundle    # rewrites exports/schema/openapi.json's bundled part

tests/test_openapi.py checks that the committed description holds exactly this bundle.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from exports import play_schemas

SCHEMA_DIR = Path(__file__).parent / "schema"
PACK_SCHEMA_PATH = SCHEMA_DIR / "content-pack.json"
DELTA_SCHEMA_PATH = SCHEMA_DIR / "content-pack-delta.json"
OPENAPI_PATH = SCHEMA_DIR / "openapi.json"
PREFIX = "ContentPack"


JSON_TYPES = {str: "string", int: "integer", bool: "boolean", float: "number"}


def _as_enum(branch: Any) -> Any:
    """A ``{"const": v}`` branch of a union as the equivalent ``{"type": …, "enum": [v]}``:
    openapi-python-client 0.29 reads a const branch as the only one and refuses every other
    value (``content_version`` 1 failed as "must match const 'draft'")."""
    if isinstance(branch, dict) and "const" in branch and type(branch["const"]) in JSON_TYPES:
        value = branch["const"]
        return {**{k: v for k, v in branch.items() if k != "const"},
                "type": JSON_TYPES[type(value)], "enum": [value]}
    return branch


def _rewrite(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _rewrite(v) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            out["$ref"] = f"#/components/schemas/{PREFIX}_{ref.removeprefix('#/$defs/')}"
        for union in ("oneOf", "anyOf"):
            if isinstance(out.get(union), list):
                out[union] = [_as_enum(branch) for branch in out[union]]
        return out
    if isinstance(node, list):
        return [_rewrite(v) for v in node]
    return node


def bundled_schemas(pack_schema: dict[str, Any]) -> dict[str, Any]:
    """{component name: schema} for the pack schema and each of its $defs."""
    top = _rewrite({k: v for k, v in pack_schema.items() if k not in ("$schema", "$id", "$defs")})
    # The standalone schema picks the body's schema by game with if/then, which generators
    # do not follow (openapi-python-client makes the body a bare dict); so the body is also
    # declared as one of the game bodies (each closed, so exactly one matches), which they
    # turn into a typed union. The if/then stays: it ties the body to the pack's game.
    bodies = [branch["then"]["properties"]["body"] for branch in top.get("allOf", [])
              if "body" in branch.get("then", {}).get("properties", {})]
    if bodies:
        top["properties"] = {**top["properties"],
                             "body": {**top["properties"]["body"], "oneOf": bodies}}
    schemas = {PREFIX: top}
    for name, definition in pack_schema.get("$defs", {}).items():
        schemas[f"{PREFIX}_{name}"] = _rewrite(definition)
    return schemas


def _lines(schemas: dict[str, Any]) -> str:
    return "".join(f'      "{name}": {json.dumps(value, ensure_ascii=False)},\n'
                   for name, value in schemas.items())


def write() -> None:
    text = OPENAPI_PATH.read_text(encoding="utf-8")
    delta = json.loads(DELTA_SCHEMA_PATH.read_text(encoding="utf-8"))
    schemas = {**bundled_schemas(json.loads(PACK_SCHEMA_PATH.read_text(encoding="utf-8"))),
               "PackDelta": {k: v for k, v in delta.items() if k not in ("$schema", "$id")},
               **play_schemas.components()}
    # drop a bundle written before (one line per component), then put the new one first in
    # components.schemas, so a rerun adds no copy
    names = "|".join(re.escape(name) for name in schemas)
    text = re.sub(rf'      "{PREFIX}(_[A-Za-z0-9_]+)?": .*\n', "", text)
    text = re.sub(rf'      "({names})": \{{.*\}},\n', "", text)
    anchor = '    "schemas": {\n'
    assert text.count(anchor) == 1, "components.schemas not found"
    text = text.replace(anchor, anchor + _lines(schemas))
    text = text.replace('{"$ref": "/api/schema/content-pack.json"}',
                        f'{{"$ref": "#/components/schemas/{PREFIX}"}}')
    json.loads(text)
    OPENAPI_PATH.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write()
