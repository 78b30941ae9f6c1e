"""Every parameter of /api/openapi.json has examples, and they are real: a fuzzer or a client
developer who sends them reaches real packs of the starter catalogue once `make run` (or
`manage.py publish_starter`) has published it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from cards.catalogue import import_catalogue
from cards.models import Game, SauschwerObject
from exports import api
from exports.api import OPENAPI_PATH
from exports.packs import publish

SPEC = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
STARTER = Path(__file__).resolve().parent.parent / "fixtures"


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in node:
        target: Any = SPEC
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return target
    return node


def parameters() -> list[tuple[str, str, dict[str, Any]]]:
    """(path, method or "*", parameter) for every parameter of every operation."""
    found = []
    for template, item in SPEC["paths"].items():
        for parameter in item.get("parameters", []):
            found.append((template, "*", _resolve(parameter)))
        for method, operation in item.items():
            if method != "parameters":
                for parameter in operation.get("parameters", []):
                    found.append((template, method, _resolve(parameter)))
    return found


def examples_of(parameter: dict[str, Any]) -> list[Any]:
    if "example" in parameter:
        return [parameter["example"]]
    return [example["value"] for example in parameter.get("examples", {}).values()]


def test_every_parameter_of_the_description_has_examples():
    missing = [f"{path} {method}: {p['name']}" for path, method, p in parameters()
               if not examples_of(p)]
    assert not missing
    both = [p["name"] for _, _, p in parameters() if "example" in p and "examples" in p]
    assert not both  # OpenAPI: one or the other


def test_the_game_and_language_examples_name_every_game_and_language():
    game = _resolve({"$ref": "#/components/parameters/game"})
    language = _resolve({"$ref": "#/components/parameters/language"})
    assert sorted(examples_of(game)) == sorted(Game.values)
    # every edition a pack path can name: the languages, and the slogan game's markets
    from exports.packs import editions_of_game

    editions = {e for g in Game.values for e in editions_of_game(g)}
    assert sorted(examples_of(language)) == sorted(editions)


def _fill(template: str, chosen: dict[str, Any]) -> str:
    return re.sub(r"\{([^}/]+)\}", lambda m: str(chosen[m.group(1)]), template)


def _starter_subset(tmp_path: Path) -> Path:
    """The starter catalogue's Sauschwer objects and Sag's mit Symbolen cards and tiles
    (the packs of one game depend on that game's files only), with their translations."""
    folder = tmp_path / "starter"
    for part in ["sauschwer/objects.csv", "symbols/concepts.csv", "symbols/symbol_tiles.csv",
                 "symbols/pictures", "translations/en/objects.csv",
                 "translations/en/concepts.csv", "translations/en/symbol_tiles.csv"]:
        source, target = STARTER / part, folder / part
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    return folder


@pytest.mark.slow
@pytest.mark.django_db
def test_the_pack_api_examples_reach_real_packs_of_the_starter_catalogue(tmp_path, admin_client):
    client = admin_client  # drafts too
    for cached in vars(api).values():
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
    report = import_catalogue(_starter_subset(tmp_path))
    assert not report.errors, report.errors[:3]
    for game in ("sauschwer", "symbols"):
        for language in settings.KARTOTHEK_LANGUAGES:
            publish(game, language)  # what publish_starter does: release 1
    problems = []
    for template, _method, parameter in parameters():
        if template.startswith("/api/play/") or parameter["in"] == "header":
            continue
        item = SPEC["paths"][template]
        # each example of this parameter, the others at their first example
        others = {_resolve(p)["name"]: examples_of(_resolve(p))[0]
                  for p in item.get("parameters", []) if _resolve(p)["in"] == "path"}
        for value in examples_of(parameter):
            chosen = {**others, parameter["name"]: value}
            if chosen.get("game") not in (None, "sauschwer", "symbols"):
                continue  # the other games' starter files are not loaded here (slow)
            if "-" in str(chosen.get("language", "")):
                continue  # en-GB, en-US: the slogan game's markets (tests/test_slogan_markets.py)
            url = _fill(template, chosen)
            if parameter["in"] == "query":
                url += f"?{parameter['name']}={value}"
            if "{since}..{version}" in template or parameter["name"] == "since":
                continue  # below: a delta needs a second release
            response = client.get(url)
            if response.status_code >= 400:
                problems.append(f"{url}: {response.status_code} {response.content[:120]!r}")
    # the header examples: the release's ETag gives 304
    release_item = SPEC["paths"]["/api/packs/{game}/{language}/{version}.json"]
    etag = next(p for p in release_item["parameters"] if p.get("name") == "If-None-Match")
    url = "/api/packs/symbols/de/1.json"  # German symbols: of the starter files, the steadiest
    got = client.get(url)["ETag"]
    if client.get(url, headers={"If-None-Match": examples_of(etag)[0]}).status_code != 304:
        problems.append(f"the If-None-Match example is not the ETag of {url}: it is {got}")
    # a second release: the delta examples (since=1, version=2) answer
    SauschwerObject.objects.filter(key=SauschwerObject.objects.order_by("key")[0].key).update(
        weight_g=123456)
    publish("sauschwer", "de")
    for url in ["/api/packs/sauschwer/de/1..2.delta.json", "/api/packs/sauschwer/de/2.json?since=1"]:
        if client.get(url).status_code != 200:
            problems.append(f"{url}: no delta")
    assert not problems, "\n".join(problems)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    duplicates = {key for key in keys if keys.count(key) > 1}
    assert not duplicates, f"keys given twice in one object: {sorted(duplicates)}"
    return dict(pairs)


def test_the_bundle_regenerator_reproduces_the_committed_description(tmp_path, monkeypatch):
    from exports import openapi_bundle

    copy = tmp_path / "openapi.json"
    copy.write_bytes(OPENAPI_PATH.read_bytes())
    monkeypatch.setattr(openapi_bundle, "OPENAPI_PATH", copy)
    openapi_bundle.write()
    assert copy.read_bytes() == OPENAPI_PATH.read_bytes(), (
        "openapi.json is stale: run python -m exports.openapi_bundle")
    openapi_bundle.write()  # a second run changes nothing (no component written twice)
    assert copy.read_bytes() == OPENAPI_PATH.read_bytes()
    json.loads(OPENAPI_PATH.read_text(encoding="utf-8"), object_pairs_hook=_no_duplicate_keys)
