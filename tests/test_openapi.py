"""The OpenAPI description (exports/schema/openapi.json): valid OpenAPI 3.1, describes every URL
of exports/urls.py (and nothing that is not there), and says what the API really answers."""

import json
import re
from urllib.parse import urljoin

import pytest
from django.db.models import F, Value
from django.db.models.functions import Concat
from django.test import override_settings
from django.urls import resolve, reverse
from jsonschema import Draft202012Validator
from jsonschema_path import SchemaPath
from openapi_spec_validator import OpenAPIV31SpecValidator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from cards.models import SauschwerObject
from exports import api, signing, urls
from exports.api import OPENAPI_PATH
from exports.packs import SCHEMA_PATH, publish

SPEC = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
PACK_SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
# Where the description is served; its reference to /api/schema/content-pack.json then lands
# on the pack schema's $id, which is served beside it.
BASE = urljoin(PACK_SCHEMA["$id"], "/api/openapi.json")
REGISTRY = Registry().with_resources([
    (BASE, DRAFT202012.create_resource(SPEC)),
    (PACK_SCHEMA["$id"], DRAFT202012.create_resource(PACK_SCHEMA)),
])
# A value for each URL parameter, by its name in exports/urls.py or in the description.
SAMPLES = {"game": "sauschwer", "language": "en", "version": "1", "since": "1",
           "digest": "0" * 64,
           "sha256": "0" * 64}
API_PATTERNS = [p for p in urls.urlpatterns if p.callback is not api.not_found]


def _local_only(uri: str) -> object:
    """The description's references are resolved from the repository, never the network."""
    if uri == PACK_SCHEMA["$id"]:
        return PACK_SCHEMA
    raise LookupError(f"The description refers to {uri}, which is not in the repository.")


def _matches(template: str, url: str) -> bool:
    pieces = re.split(r"(\{[^}/]+\})", template)
    regex = "".join("[^/]+" if p.startswith("{") else re.escape(p) for p in pieces)
    return re.fullmatch(regex, url) is not None


def _fill(template: str) -> str:
    return re.sub(r"\{([^}/]+)\}", lambda m: SAMPLES[m.group(1)], template)


def _get(*parts: str) -> tuple[list[str], dict]:
    """The node at a JSON pointer of the description, following one local $ref."""
    node = SPEC
    for part in parts:
        node = node[part]
    if "$ref" in node:
        parts = node["$ref"].removeprefix("#/").split("/")
        return _get(*parts)
    return list(parts), node


def _pointer(parts: list[str]) -> str:
    return "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def test_the_description_is_valid_openapi_3_1():
    assert SPEC["openapi"].startswith("3.1.")
    spec = SchemaPath.from_dict(SPEC, base_uri=BASE, handlers={"https": _local_only,
                                                               "http": _local_only})
    OpenAPIV31SpecValidator(spec).validate()


def test_the_pack_schema_is_referenced_where_it_is_served():
    assert PACK_SCHEMA["$id"] == urljoin(BASE, reverse("api:schema"))


def _template_of(pattern) -> str:
    """The OpenAPI path of a URL pattern of exports/urls.py, parameters written as {}."""
    route = str(pattern.pattern)
    if hasattr(pattern.pattern, "_route"):  # path(): packs/<str:game>/…
        return "/api/" + re.sub(r"<(?:[^>:]+:)?[^>]+>", "{}", route)
    # re_path(): each named group becomes {}, and what is left must be plain text
    out, i = [], 0
    route = route.removeprefix("^").removesuffix("$")
    while i < len(route):
        if route.startswith("(?P<", i):
            depth, j, in_class = 0, i, False
            while True:
                c = route[j]
                if c == "\\":
                    j += 2
                    continue
                if in_class:
                    in_class = c != "]"
                elif c == "[":
                    in_class = True
                elif c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            out.append("{}")
            i = j + 1
        elif route[i] == "\\":
            out.append(route[i + 1])
            i += 2
        else:
            assert route[i] not in "[](){}*+?|^$", f"cannot read {pattern.pattern} as a path"
            out.append(route[i])
            i += 1
    return "/api/" + "".join(out)


DESCRIBED = {re.sub(r"\{[^}/]+\}", "{}", template) for template in SPEC["paths"]}
# The play API (/api/play/, games/api_urls.py) is checked by tests/play/test_api_openapi.py.
PACK_PATHS = {t: item for t, item in SPEC["paths"].items() if not t.startswith("/api/play/")}


def _described_as(template: str) -> str:
    """The described path a URL template is served as: itself, or for a URL kept with a
    trailing slash (the index's first URL) the path without it, whose description names it."""
    if template not in DESCRIBED and template.endswith("/") and template[:-1] in SPEC["paths"]:
        described = SPEC["paths"][template[:-1]]["get"]["description"]
        assert f"`{template}`" in described, f"{template[:-1]}'s description does not name {template}"
        return template[:-1]
    return template


@pytest.mark.parametrize("pattern", API_PATTERNS, ids=lambda p: str(p.pattern))
def test_every_url_of_the_api_is_described(pattern):
    assert pattern.name, f"{pattern.pattern} has no name; the API's URLs are reversed by name."
    template = _described_as(_template_of(pattern))
    assert template in DESCRIBED, f"{pattern.pattern} ({template}) is not described in {OPENAPI_PATH.name}."
    names = list(pattern.pattern.regex.groupindex)
    unknown = [n for n in names if n not in SAMPLES]
    assert not unknown, f"Give SAMPLES a value for the URL parameter(s) {unknown}."
    url = reverse(f"api:{pattern.name}", kwargs={n: SAMPLES[n] for n in names})
    assert resolve(url).func is pattern.callback


@pytest.mark.parametrize("template", PACK_PATHS)
def test_every_described_path_is_served(template):
    match = resolve(_fill(template))
    assert match.func is not api.not_found, f"{template} is described but no view serves it."
    assert match.namespace == "api"


# (described path, [METHOD ]URL, request headers, who asks, status the API answers); GET when
# the URL names no method
SCENARIOS = [
    ("/api/packs", "/api/packs", {}, "anyone", 200),
    ("/api/packs", "/api/packs", {"If-None-Match": "{index_etag}"}, "anyone", 304),
    ("/api/packs/{game}/{language}/latest", "/api/packs/sauschwer/en/latest", {}, "anyone", 302),
    ("/api/packs/{game}/{language}/latest", "/api/packs/sauschwer/en/latest?redirect=false", {},
     "anyone", 200),
    ("/api/packs/{game}/{language}/latest", "/api/packs/sauschwer/en/latest?redirect=no", {},
     "anyone", 400),
    # the client holds the newest release (sauschwer en 2): nothing to fetch
    ("/api/packs/{game}/{language}/latest", "/api/packs/sauschwer/en/latest?since=2", {}, "anyone",
     304),
    ("/api/packs/{game}/{language}/latest", "/api/packs/sign/en/latest", {}, "anyone", 404),
    ("/api/packs/{game}/{language}/latest", "/api/packs/poker/en/latest", {}, "anyone", 404),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/sauschwer/en/1.json", {}, "anyone",
     200),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/symbols/en/1.json?pictures=embedded",
     {}, "anyone", 200),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/sauschwer/en/1.json",
     {"If-None-Match": "{release_etag}"}, "anyone", 304),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/sauschwer/en/9.json", {}, "anyone",
     404),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/sauschwer/xx/1.json", {}, "anyone",
     404),
    ("/api/packs/{game}/{language}/draft.json", "/api/packs/slogan/en/draft.json", {}, "curator",
     200),
    ("/api/packs/{game}/{language}/draft.json", "/api/packs/slogan/en/draft.json", {}, "anyone",
     403),
    ("/api/packs/{game}/{language}/draft.json", "/api/packs/poker/en/draft.json", {}, "curator", 404),
    ("/api/schema/content-pack.json", "/api/schema/content-pack.json", {}, "anyone", 200),
    ("/api/schema/content-pack-delta.json", "/api/schema/content-pack-delta.json", {}, "anyone",
     200),
    ("/api/pictures/{sha256}.png", "/api/pictures/{picture}.png", {}, "anyone", 200),
    ("/api/pictures/{sha256}.png", "/api/pictures/{picture}.png", {"If-None-Match": '"{picture}"'},
     "anyone", 304),
    ("/api/pictures/{sha256}.png", f"/api/pictures/{'0' * 64}.png", {}, "anyone", 404),
    # A picture changed after it was stored (see _tamper_a_picture) is refused, never served.
    ("/api/pictures/{sha256}.png", "/api/pictures/{tampered}.png", {}, "anyone", 409),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/symbols/de/1.json?pictures=embedded",
     {}, "anyone", 409),
    ("/api/packs/{game}/{language}/draft.json", "/api/packs/symbols/de/draft.json?pictures=embedded",
     {}, "curator", 409),
    # Release files missing or changed in the release storage (see _break_release_files):
    # refused as JSON, never served as other bytes.
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/slogan/en/1.json", {}, "anyone",
     503),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/slogan/de/2.json", {}, "anyone",
     409),
    ("/api/packs/{game}/{language}/{since}..{version}.delta.json",
     "/api/packs/slogan/en/1..2.delta.json", {}, "anyone", 503),
    ("/api/packs/{game}/{language}/{since}..{version}.delta.json",
     "/api/packs/slogan/de/1..2.delta.json", {}, "anyone", 409),
    ("/api/openapi.json", "/api/openapi.json", {}, "anyone", 200),
    ("/api/keys", "/api/keys", {}, "anyone", 200),
    ("/api/timestamp", "/api/timestamp", {}, "anyone", 200),
    ("/api/timestamp", "/api/timestamp", {"If-None-Match": "{timestamp_etag}"}, "anyone", 304),
    ("/api/timestamp", "/api/timestamp", {}, "anyone, of a server without a signing key", 404),
    ("/api/packs/{game}/{language}/{version}.json.sig", "/api/packs/sauschwer/en/1.json.sig", {},
     "anyone", 200),
    ("/api/packs/{game}/{language}/{version}.json.sig", "/api/packs/sauschwer/en/9.json.sig", {},
     "anyone", 404),
    # sauschwer en 1..2 (one object added) is a delta; sauschwer de 1..2 (every card renamed,
    # see the test) is no smaller than the release and goes to the full release.
    ("/api/packs/{game}/{language}/{since}..{version}.delta.json",
     "/api/packs/sauschwer/en/1..2.delta.json", {}, "anyone", 200),
    ("/api/packs/{game}/{language}/{since}..{version}.delta.json",
     "/api/packs/sauschwer/en/1..2.delta.json", {"If-None-Match": "{delta_etag}"}, "anyone", 304),
    ("/api/packs/{game}/{language}/{since}..{version}.delta.json",
     "/api/packs/sauschwer/de/1..2.delta.json", {}, "anyone", 303),
    ("/api/packs/{game}/{language}/{since}..{version}.delta.json",
     "/api/packs/sauschwer/en/2..1.delta.json", {}, "anyone", 400),
    ("/api/packs/{game}/{language}/{since}..{version}.delta.json",
     "/api/packs/sauschwer/en/1..9.delta.json", {}, "anyone", 404),
    # ?since=N on a release: the delta path's answers under the release's URL
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/sauschwer/en/2.json?since=1", {},
     "anyone", 200),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/sauschwer/de/2.json?since=1", {},
     "anyone", 303),
    ("/api/packs/{game}/{language}/{version}.json", "/api/packs/sauschwer/en/2.json?since=2", {},
     "anyone", 400),
    # the pack API is read-only: one refused method per path (tests/test_api_methods.py tries
    # every unsafe method on every route)
    *((template, f"POST {_fill(template)}", {}, "anyone", 405) for template in PACK_PATHS),
]


def test_the_scenarios_cover_every_described_status():
    described = {(template, status) for template, item in PACK_PATHS.items()
                 for status in item["get"]["responses"]}
    covered = {(template, str(status)) for template, _, _, _, status in SCENARIOS}
    assert covered == described


def _tamper_a_picture() -> str:
    """A new tile with a picture of its own, released in symbols (de) only; then its file and
    the release's copy are changed. Returns the picture's sha256. (Pictures are stored by
    content and no other test has these random pixels, so no other test sees the change.)"""
    import io
    import random

    from django.core.files.base import ContentFile
    from PIL import Image

    from cards.models import SymbolTile
    from exports.models import PackPicture

    rnd = random.Random(7)
    buffer = io.BytesIO()
    Image.frombytes("RGB", (64, 64), bytes(rnd.randrange(256) for _ in range(64 * 64 * 3))).save(
        buffer, "PNG")
    tile = SymbolTile(key="geaendert", name="Geändert", position=90,
                      image=ContentFile(buffer.getvalue(), name="geaendert.png"))
    tile.full_clean()
    tile.save()
    publish("symbols", "de")
    with open(tile.image.path, "wb") as handle:
        handle.write(b"changed on disk")
    PackPicture.objects.filter(sha256=tile.image_sha256).update(data=b"changed in the database")
    return tile.image_sha256


def _break_release_files() -> None:
    """Releases 1 and 2 of slogan in en and de; then the file of slogan en 1 is deleted and
    the file of slogan de 2 changed in the release storage."""
    from exports.models import Release
    from exports.release_files import release_name, release_storage

    made = {}
    for language in ("en", "de"):
        for version in (1, 2):
            data = json.dumps({"game": "slogan", "language": language,
                               "content_version": version}).encode()
            made[language, version] = Release.objects.create(
                game="slogan", language=language, version=version, body_sha256="0" * 64,
                data=data)
    storage = release_storage()
    storage.delete(release_name(made["en", 1].sha256))
    with open(storage.path(release_name(made["de", 2].sha256)), "wb") as handle:
        handle.write(b'{"changed": "after publishing"}')


@pytest.mark.django_db
def test_live_answers_match_the_description(mini_catalogue, client, admin_client):
    for cached in vars(api).values():  # the API's in-process caches outlive a test's database
        if hasattr(cached, "cache_clear"):
            cached.cache_clear()
    release = publish("sauschwer", "en").release
    publish("symbols", "en")
    symbols = json.loads(client.get("/api/packs/symbols/en/1.json").content)
    SauschwerObject.objects.create(key="ein-stein", name="Ein Stein", weight_g=500, source="x")
    publish("sauschwer", "en")
    publish("sauschwer", "de")
    SauschwerObject.objects.update(name=Concat(F("name"), Value("!")))  # every card changes
    publish("sauschwer", "de")
    values = {"release_etag": f'"{release.sha256}"',
              "delta_etag": client.get("/api/packs/sauschwer/en/1..2.delta.json")["ETag"],
              "picture": symbols["body"]["symbols"][0]["picture"]["sha256"],
              "tampered": _tamper_a_picture()}
    _break_release_files()
    values["index_etag"] = client.get("/api/packs")["ETag"]  # of the index as it now is
    values["timestamp_etag"] = client.get("/api/timestamp")["ETag"]
    problems = []
    for template, request, headers, who, status in SCENARIOS:
        method, _, url = request.format(**values).rpartition(" ")
        headers = {k: v.format(**values) for k, v in headers.items()}
        assert _matches(template, url.partition("?")[0]), (template, url)
        asking = admin_client if who == "curator" else client
        if who.endswith("without a signing key"):
            with override_settings(KARTOTHEK_SIGNING_KEY="", KARTOTHEK_SIGNING_KEY_GENERATE=False):
                signing.signing_key.cache_clear()
                response = asking.get(url, headers=headers)
            signing.signing_key.cache_clear()
        else:
            response = getattr(asking, (method or "GET").lower())(url, headers=headers)
        where = f"{method or 'GET'} {url} ({who}{', ' + str(headers) if headers else ''})"
        if response.status_code != status:
            problems.append(f"{where}: {response.status_code}, the scenario expects {status}")
            continue
        parts, described = _get("paths", template, "get", "responses", str(status))
        for header in described.get("headers", {}):
            if not response.has_header(header):
                problems.append(f"{where}: no {header} header, which the description promises")
        content = described.get("content")
        if not content:
            if response.content:
                problems.append(f"{where}: a body, where the description has none")
            continue
        media_type = response["Content-Type"].partition(";")[0].strip()
        if media_type not in content:
            problems.append(f"{where}: {media_type}, described: {', '.join(content)}")
            continue
        if media_type.endswith("json") and "schema" in content[media_type]:
            schema = {"$ref": BASE + _pointer([*parts, "content", media_type, "schema"])}
            validator = Draft202012Validator(schema, registry=REGISTRY)
            for error in validator.iter_errors(json.loads(response.content)):
                at = "/".join(str(p) for p in error.absolute_path) or "(the body)"
                problems.append(f"{where}: the body does not match the description at {at}: "
                                f"{error.message[:200]}")
                break
    assert not problems, "\n".join(problems)


def test_the_pack_schema_is_bundled_into_the_components_for_generated_clients():
    from exports.openapi_bundle import PREFIX, bundled_schemas

    bundle = bundled_schemas(PACK_SCHEMA)
    assert {name: SPEC["components"]["schemas"][name] for name in bundle} == bundle, (
        "openapi.json's bundled pack schema is stale: run python -m exports.openapi_bundle")
    text = OPENAPI_PATH.read_text(encoding="utf-8")
    assert '"$ref": "/api/schema/' not in text  # nothing a downloaded copy cannot resolve
    assert {"$ref": f"#/components/schemas/{PREFIX}"} in _get(
        "paths", "/api/packs/{game}/{language}/{version}.json", "get", "responses", "200"
    )[1]["content"]["application/json"]["schema"]["oneOf"]


def test_the_delta_schema_in_the_components_is_the_standalone_one():
    standalone = json.loads((OPENAPI_PATH.parent / "content-pack-delta.json").read_text(encoding="utf-8"))
    assert SPEC["components"]["schemas"]["PackDelta"] == {
        k: v for k, v in standalone.items() if k not in ("$schema", "$id")}


def test_every_pack_api_parameter_has_an_example():
    missing = []
    for template, item in PACK_PATHS.items():
        for parameter in item.get("parameters", []) + item["get"].get("parameters", []):
            if "$ref" in parameter:
                parameter = _get(*parameter["$ref"].removeprefix("#/").split("/"))[1]
            if "example" not in parameter and "examples" not in parameter:
                missing.append(f"{template}: {parameter['name']}")
    assert not missing
