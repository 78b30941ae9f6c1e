"""Fuzzing every way a file or an option gets in: no unhandled exception, no 500, and the
database unchanged whenever the answer is an error.

The inputs start from real files (the mini catalogue's CSV files, the same tables as XLSX and
JSON, an exported PO file, a built content pack) and are mutated: bytes flipped, inserted,
cut or repeated; cells replaced by hostile values (formulas, control characters, huge
numbers, NaN, very long texts); columns and rows dropped or repeated; a workbook's XML parts
mutated inside a valid zip. Print options get random sizes, papers, sides and numbers
(NaN, infinities, huge and negative values, text).

Slow-marked, with a fixed budget (``max_examples`` per target, derandomized by the profile in
conftest.py): the whole file runs in about a minute on the project's machine.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import os
import re
import zipfile
from pathlib import Path

import pytest
import tablib
from django.contrib.auth.models import Group, User
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.test_catalogue import snapshot

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

MINI = Path(__file__).parent / "data" / "mini"
FORMAT = {"csv": "0", "xlsx": "1", "tsv": "2", "json": "3"}
# (file in the mini catalogue, admin model it imports into)
SEEDS = [
    ("symbols/concepts.csv", "conceptcard"),
    ("sauschwer/objects.csv", "sauschwerobject"),
    ("sign/sign_colours.csv", "signcolour"),
    ("slogan/slogans.csv", "slogan"),
    ("slogan/alfons_cards.csv", "alfonscard"),
    ("translations/en/concepts.csv", "conceptcard"),
]
# FUZZ_EXAMPLES overrides the budget for a longer (or a quick) run by hand.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "100"))
BUDGET = settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck), deadline=None)

HOSTILE_VALUES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["=1+1", "+cmd|' /C calc'!A0", "@SUM(1)", "-3", "'=x", "\t=1", "nan", "NaN",
                     "inf", "-inf", "1e309", "9" * 400, "-0", "0x10", "true", "null", "", " ",
                     "\u200d", "\u2028", "\x00", "\x1b[31m", "<b>x</b>", "ü" * 3000,
                     "x" * 200_000, "1,5", "1.5", "-1", "0", "99999999999999999999"]),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
)


def seed_table(path: str) -> tablib.Dataset:
    with (MINI / path).open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    return tablib.Dataset(*rows[1:], headers=rows[0])


def as_format(dataset: tablib.Dataset, fmt: str) -> bytes:
    if fmt == "xlsx":
        # openpyxl refuses control characters in a cell; the byte mutations bring those in.
        from openpyxl import Workbook
        from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

        book = Workbook()
        for row in [dataset.headers, *dataset]:
            book.active.append([ILLEGAL_CHARACTERS_RE.sub("", v) if isinstance(v, str) else v
                                for v in row])
        out = io.BytesIO()
        book.save(out)
        return rezip(out.getvalue(), {})
    if fmt == "json":
        return dataset.export("json").encode("utf-8")
    out = io.StringIO()
    csv.writer(out, lineterminator="\n", delimiter="\t" if fmt == "tsv" else ",").writerows(
        [dataset.headers, *dataset])
    return out.getvalue().encode("utf-8")


@st.composite
def mutated_table(draw: st.DrawFn, table: tablib.Dataset) -> tablib.Dataset:
    headers = list(table.headers)
    rows = [list(row) for row in table]
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.sampled_from(["cell", "header", "drop_column", "repeat_row", "drop_row",
                                       "add_column"]))
        if action == "cell" and rows:
            row = draw(st.integers(0, len(rows) - 1))
            rows[row][draw(st.integers(0, len(headers) - 1))] = draw(HOSTILE_VALUES)
        elif action == "header":
            headers[draw(st.integers(0, len(headers) - 1))] = draw(st.sampled_from(
                ["key", "text", "", " key ", "KEY", "weight_g", "id", "x" * 100, "state"]))
        elif action == "drop_column" and len(headers) > 1:
            index = draw(st.integers(0, len(headers) - 1))
            del headers[index]
            for row in rows:
                del row[index]
        elif action == "add_column":
            headers.append(draw(st.sampled_from(["extra", "", "key", "source"])))
            for row in rows:
                row.append(draw(HOSTILE_VALUES))
        elif action == "repeat_row" and rows:
            row = rows[draw(st.integers(0, len(rows) - 1))]
            rows.extend(list(row) for _ in range(draw(st.integers(1, 50))))
        elif action == "drop_row" and rows:
            del rows[draw(st.integers(0, len(rows) - 1))]
    return tablib.Dataset(*rows, headers=headers)


@st.composite
def mutated_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(draw(st.integers(0, 6))):
        if not data:
            break
        where = draw(st.integers(0, len(data) - 1))
        action = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "repeat", "nest"]))
        if action == "flip":
            data[where] = draw(st.integers(0, 255))
        elif action == "insert":
            data[where:where] = draw(st.sampled_from(
                [b",", b";", b"\t", b'"', b"\n", b"\r", b"\x00", b"\xff\xfe", b"{", b"[" * 2000,
                 b"]", b"<", b"&", b"\xc3", b"\xef\xbb\xbf"]))
        elif action == "delete":
            del data[where:where + draw(st.integers(1, 50))]
        elif action == "truncate":
            del data[where:]
        elif action == "repeat":
            piece = bytes(data[where:where + draw(st.integers(1, 200))])
            data[where:where] = piece * draw(st.integers(1, 100))
        elif action == "nest":  # the whole file inside lists, a few or thousands deep
            depth = draw(st.sampled_from([1, 30, 999, 5_000]))
            data[:0] = b"[" * depth
            data += b"]" * depth
    return bytes(data)


@st.composite
def mutated_workbook(draw: st.DrawFn, data: bytes) -> bytes:
    """A valid zip whose XML parts (sheet, shared strings, workbook, styles) are mutated."""
    source = zipfile.ZipFile(io.BytesIO(data))
    names = source.namelist()
    target = draw(st.sampled_from([n for n in names if n.endswith(".xml") or n.endswith(".rels")]))
    return rezip(data, {target: draw(mutated_bytes(source.read(target)))})


def rezip(data: bytes, replaced: dict[str, bytes]) -> bytes:
    """The zip again with fixed timestamps (hypothesis needs the same bytes on every run)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in source.namelist():
            part = replaced.get(name, source.read(name))
            if name == "docProps/core.xml":  # creation and change times
                part = re.sub(rb"<dcterms:(created|modified)([^>]*)>[^<]*<",
                              rb"<dcterms:\1\2>2025-01-01T00:00:00Z<", part)
            info = zipfile.ZipInfo(name, date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, part)
    return out.getvalue()


@st.composite
def import_file(draw: st.DrawFn) -> tuple[str, str, bytes]:
    """(file name, admin model, bytes) of a mutated real import file."""
    path, model = draw(st.sampled_from(SEEDS))
    fmt = draw(st.sampled_from(["csv", "tsv", "xlsx", "json"]))
    table = draw(mutated_table(seed_table(path)))
    data = as_format(table, fmt)
    how = draw(st.sampled_from(["cells", "bytes", "parts"] if fmt == "xlsx" else ["cells", "bytes"]))
    if how == "bytes":
        data = draw(mutated_bytes(data))
    elif how == "parts":
        data = draw(mutated_workbook(data))
    return f"{Path(path).stem}.{fmt}", model, data


# Seeds built from the database are built once: an accepted upload changes the database, and
# hypothesis needs the same seed for every example of a run.
@functools.cache
def seed_po(game: str) -> str:
    from cards.po import export_po

    return export_po(game, "en")


@functools.cache
def seed_pack(game: str, language: str) -> str:
    from exports.packs import build_pack

    return json.dumps(build_pack(game, language))


def curator_client() -> Client:
    user, created = User.objects.get_or_create(username="fuzzy", defaults={"is_staff": True})
    if created:
        user.groups.add(Group.objects.get(name="Curators"), Group.objects.get(name="Translators"))
    client = Client(raise_request_exception=True)
    client.force_login(user)
    return client


# --- import_content ------------------------------------------------------------------------


DEEP_JSON = ("concepts.json", "conceptcard", b"[" * 5_000 + b"]" * 5_000)  # issue 10, failure 8


@BUDGET
@given(case=import_file())
@example(case=DEEP_JSON)
def test_import_content_never_fails_unhandled_and_an_error_changes_nothing(mini_catalogue, tmp_path,
                                                                           case):
    name, _model, data = case
    path = tmp_path / name
    path.write_bytes(data)
    before = snapshot()
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_content", str(path), stdout=out, stderr=err)
    except CommandError:
        assert snapshot() == before, err.getvalue()
        assert "Traceback" not in err.getvalue()


# --- the admin import view -------------------------------------------------------------------


@BUDGET
@given(case=import_file(), confirm=st.booleans())
@example(case=DEEP_JSON, confirm=False)
def test_the_admin_import_never_answers_500_and_an_error_changes_nothing(mini_catalogue, case,
                                                                         confirm):
    name, model, data = case
    client = curator_client()
    before = snapshot()
    response = client.post(reverse(f"admin:cards_{model}_import"),
                           {"format": FORMAT[name.rsplit(".", 1)[1]], "resource": "0",
                            "import_file": SimpleUploadedFile(name, data)})
    assert response.status_code == 200
    assert snapshot() == before  # a preview writes nothing
    page = response.content.decode()
    if confirm and 'name="import_file_name"' in page:
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page))
        fields.pop("csrfmiddlewaretoken", None)
        done = client.post(reverse(f"admin:cards_{model}_process_import"), fields)
        assert done.status_code in (200, 302)
        if done.status_code == 200:  # the confirmation was refused: nothing written
            assert snapshot() == before


# --- PO upload -------------------------------------------------------------------------------


@st.composite
def mutated_po(draw: st.DrawFn, text: str) -> bytes:
    lines = text.split("\n")
    for _ in range(draw(st.integers(0, 5))):
        where = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["msgstr", "drop", "repeat", "fuzzy", "context", "raw"]))
        if action == "msgstr":
            value = draw(HOSTILE_VALUES)
            lines.insert(where, "msgstr " + json.dumps(str(value)))
        elif action == "drop":
            del lines[where]
        elif action == "repeat":
            lines[where:where] = lines[where:where + 6] * draw(st.integers(1, 20))
        elif action == "fuzzy":
            lines.insert(where, "#, fuzzy")
        elif action == "context":
            lines.insert(where, "msgctxt " + json.dumps(draw(st.sampled_from(
                ["oma:text", "nobody:text", "oma:nothing", "", ":", "oma:text:x"]))))
        else:
            lines.insert(where, draw(st.text(max_size=40)))
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    return draw(st.one_of(st.just(data), mutated_bytes(data)))


@BUDGET
@given(data=st.data(), game=st.sampled_from(["symbols", "sign", "slogan", "sauschwer"]))
def test_the_po_upload_never_answers_500_and_an_error_changes_nothing(mini_catalogue, data, game):
    po = data.draw(mutated_po(seed_po(game)))
    client = curator_client()
    before = snapshot()
    response = client.post(reverse("admin:cards_po_upload", args=[game, "en"]),
                           {"po_file": SimpleUploadedFile(f"{game}.po", po)})
    assert response.status_code == 302
    levels = [m.level_tag for m in get_messages(response.wsgi_request)]
    if "error" in levels:
        assert snapshot() == before


# --- import_pack -------------------------------------------------------------------------------


@st.composite
def mutated_json(draw: st.DrawFn, value: object, depth: int = 0) -> object:
    if isinstance(value, dict) and value:
        value = dict(value)
        key = draw(st.sampled_from(sorted(value)))
        action = draw(st.sampled_from(["recurse", "replace", "drop", "add"]))
        if action == "recurse" and depth < 6:
            value[key] = draw(mutated_json(value[key], depth + 1))
        elif action == "replace":
            value[key] = draw(st.one_of(HOSTILE_VALUES, st.just([]), st.just({}), st.none()))
        elif action == "drop":
            del value[key]
        else:
            value[draw(st.text(max_size=10))] = draw(HOSTILE_VALUES)
        return value
    if isinstance(value, list) and value:
        value = list(value)
        index = draw(st.integers(0, len(value) - 1))
        action = draw(st.sampled_from(["recurse", "drop", "repeat"]))
        if action == "recurse" and depth < 6:
            value[index] = draw(mutated_json(value[index], depth + 1))
        elif action == "drop":
            del value[index]
        else:
            value.extend([value[index]] * draw(st.integers(1, 5)))
        return value
    return draw(st.one_of(st.just(value), HOSTILE_VALUES))


@BUDGET
@given(data=st.data(), game=st.sampled_from(["symbols", "sign", "slogan", "sauschwer"]),
       language=st.sampled_from(["de", "en"]))
def test_import_pack_never_fails_unhandled_and_an_error_changes_nothing(mini_catalogue, tmp_path,
                                                                        data, game, language):
    from exports.packs import canonical, sha256

    pack = json.loads(seed_pack(game, language))
    for _ in range(data.draw(st.integers(1, 3))):
        pack = data.draw(mutated_json(pack))
    if isinstance(pack, dict) and data.draw(st.booleans()) and "body" in pack:
        # a consistent checksum, so the mutation reaches the restore code
        with contextlib.suppress(TypeError, ValueError):
            pack["sha256"] = sha256(canonical(pack["body"]))
    raw = json.dumps(pack, allow_nan=True).encode()
    raw = data.draw(st.one_of(st.just(raw), mutated_bytes(raw)))
    path = tmp_path / "pack.json"
    path.write_bytes(raw)
    before = snapshot()
    try:
        call_command("import_pack", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    except CommandError:
        assert snapshot() == before


# --- print options -----------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.sampled_from(["0", "1", "3", "5", "6", "2.5"]),  # valid often enough to reach the renderer
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e309", "-1", "0", "3", "1e20", "", "abc", "10,5"]),
    st.integers(-(10**30), 10**30).map(str),
)
OFFSETS = st.one_of(
    st.sampled_from(["0,0", "1.5,-0.5", "-20,20"]),
    st.tuples(NUMBERS, NUMBERS).map(",".join),
    st.sampled_from(["nan,nan", "inf,inf", "1;2", "0 0", "", ",", "1,2,3", "x" * 5000]),
)


VALID_PRINT = {"language": "en", "release": "draft", "size": "poker", "custom_size": "",
               "paper": "a4", "sides": "duplex-long", "bleed": "3", "gap": "0",
               "back_offset": "0,0", "min_font_size": "6", "profile": ""}


@example(game="sauschwer", options=VALID_PRINT, flags={"crop_marks"})  # the renderer is reached
@example(game="sauschwer", options={**VALID_PRINT, "back_offset": "nan,nan"}, flags=set())
@settings(max_examples=max(1, EXAMPLES * 5 // 8), suppress_health_check=list(HealthCheck), deadline=None)
@given(
    game=st.sampled_from(["symbols", "sign", "slogan", "sauschwer"]),
    options=st.fixed_dictionaries({
        # valid choices weigh more, so that the numbers reach the renderer often
        "language": st.sampled_from(["de", "en", "en", "de", "fr", ""]),
        "release": st.sampled_from(["draft", "draft", "draft", "latest", "1", "x"]),
        "size": st.sampled_from(["poker", "bridge", "tarot", "mini", "custom", "custom", "huge"]),
        "custom_size": st.one_of(st.sampled_from(["60x90", "0x0", "1e3x1", "400x400", "9" * 500 + "x1",
                                                  "nanxnan"]), st.text(max_size=12)),
        "paper": st.sampled_from(["a4", "letter", "a0", ""]),
        "sides": st.sampled_from(["duplex-long", "duplex-short", "fold", "separate", "fronts", "x"]),
        "bleed": NUMBERS, "gap": NUMBERS, "back_offset": OFFSETS, "min_font_size": NUMBERS,
        "profile": st.sampled_from(["", "drivethru", "gamecrafter", "x"]),
    }),
    flags=st.sets(st.sampled_from(["crop_marks", "cut_lines", "calibration", "strict"])),
)
def test_print_options_never_answer_500(mini_catalogue, game, options, flags):
    client = curator_client()
    before = snapshot()
    form = {**options, **dict.fromkeys(flags, "on")}
    response = client.post(reverse("admin:exports_print", args=[game]), form)
    assert response.status_code == 200
    if options == VALID_PRINT:
        assert response["Content-Type"] == "application/pdf"
    elif response["Content-Type"].startswith("text/html"):
        assert "errorlist" in response.content.decode()  # refused, and it says why
    assert snapshot() == before


# --- the play API: hostile bodies and query strings ------------------------------------------

# Every play endpoint, with CODE and SEAT filled in from a real room. A new endpoint (e.g. the
# room's event stream) is one more line here.
PLAY_ENDPOINTS = [
    ("POST", "/api/play/rooms"),
    ("GET", "/api/play/rooms/CODE"),
    ("POST", "/api/play/rooms/CODE/seats"),
    ("POST", "/api/play/rooms/CODE/start"),
    ("POST", "/api/play/rooms/CODE/actions"),
    ("POST", "/api/play/rooms/CODE/bots"),
    ("POST", "/api/play/rooms/CODE/teams"),
    ("POST", "/api/play/rooms/CODE/again"),
    ("GET", "/api/play/rooms/CODE/replay"),
    ("POST", "/api/play/rooms/CODE/seats/SEAT/remove"),
    ("POST", "/api/play/rooms/CODE/seats/SEAT/away"),
    ("POST", "/api/play/rooms/CODE/seats/SEAT/host"),
    ("POST", "/api/play/rooms/CODE/seats/SEAT/bot"),
    ("GET", "/api/packs/"),
    ("GET", "/api/packs/slogan/en/1.json"),
    ("GET", "/api/packs/slogan/en/draft.json"),
]

_JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                       st.text(max_size=20), HOSTILE_VALUES.filter(lambda v: not isinstance(v, float)))
PLAY_BODIES = st.one_of(
    st.recursive(_JSON_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                     st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                 max_leaves=20).map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries({"id": _JSON_LEAF, "version": _JSON_LEAF, "action": _JSON_LEAF,
                           "game": st.sampled_from(["slogan", "x", ""]), "name": _JSON_LEAF,
                           "language": _JSON_LEAF, "teams": _JSON_LEAF, "away": _JSON_LEAF,
                           "cookie": _JSON_LEAF, "options": _JSON_LEAF, "release": _JSON_LEAF})
    .map(lambda v: json.dumps(v).encode()),
    st.integers(min_value=1, max_value=200_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=200_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.binary(max_size=200),
    st.just(b'{"name": "' + b"x" * 11_000_000 + b'"}'),  # over DATA_UPLOAD_MAX_MEMORY_SIZE
)
PLAY_QUERIES = st.one_of(
    st.just(""),
    st.dictionaries(st.sampled_from(["game", "step", "since", "x"]),
                    st.one_of(st.text(max_size=12), st.sampled_from(["²", "١", "9" * 40, "-1", "0"])),
                    max_size=3).map(lambda q: "?" + "&".join(f"{k}={v}" for k, v in q.items())),
    st.just("?" + "&".join(f"f{i}=1" for i in range(1_200))),  # over DATA_UPLOAD_MAX_NUMBER_FIELDS
)


@pytest.fixture
def play_room(db):
    from tests.play.core_helpers import all_releases

    all_releases()
    client = Client()
    made = client.post("/api/play/rooms", json.dumps({"game": "slogan", "language": "en", "name": "Ada"}),
                       content_type="application/json").json()
    guest = client.post(f"/api/play/rooms/{made['code']}/seats", json.dumps({"name": "Bo"}),
                        content_type="application/json").json()
    return made["code"], made["token"], guest["seat"]


@pytest.mark.parametrize(("method", "endpoint"), PLAY_ENDPOINTS, ids=[e for _, e in PLAY_ENDPOINTS])
@example(body=b"[" * 100_000 + b"]" * 100_000, query="?game=²", authorised=True)  # issue 21's 500s
@settings(max_examples=max(1, EXAMPLES // 4), suppress_health_check=list(HealthCheck), deadline=None)
@given(body=PLAY_BODIES, query=PLAY_QUERIES, authorised=st.booleans())
def test_play_endpoints_answer_json_never_a_5xx(play_room, method, endpoint, body, query, authorised):
    code, token, guest = play_room
    path = endpoint.replace("CODE", code).replace("SEAT", guest) + query
    client = Client(raise_request_exception=False)
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if authorised else {}
    if method == "POST":
        response = client.post(path, body, content_type="application/json", **headers)
    else:
        response = client.generic("GET", path, body, content_type="application/json", **headers)
    assert response.status_code < 500, (path, response.content[:300])
    if response.status_code not in (204, 304):
        assert response["Content-Type"].startswith("application/json"), (path, response.content[:300])
        if response.status_code >= 400:
            assert response.json()["error"]


# --- the play API's event stream: served only by the ASGI server -------------------------------

# Under Django's test client the async stream cannot run (it answers 503 there), so the stream
# is fuzzed through a real uvicorn server on loopback, read over real HTTP.
EVENT_HEADERS = st.fixed_dictionaries({}, optional={
    "Last-Event-ID": st.one_of(st.sampled_from(["", "0", "-1", "1e9", "9" * 60, "²", "3 x", "NaN"]),
                               # (a header value cannot start or end with a space on the wire)
                               st.text(st.characters(min_codepoint=32, max_codepoint=126),
                                       max_size=30).map(str.strip)),
    "Accept": st.sampled_from(["text/event-stream", "application/json", "*/*", "", "x/" * 500]),
    "Authorization": st.sampled_from(["Bearer", "Bearer x", "Basic abc", "Bearer " + "A" * 5000, ""]),
})


@pytest.fixture
def event_server(transactional_db):
    from django.test import override_settings

    from tests.play.core_helpers import all_releases
    from tests.play.sse_helpers import Server

    all_releases()
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"]), Server() as running:
        client = Client()
        made = client.post("/api/play/rooms", json.dumps({"game": "slogan", "language": "en", "name": "Ada"}),
                           content_type="application/json").json()
        yield running, made["code"], made["token"]


@example(body=b"[" * 100_000 + b"]" * 100_000, query="?game=²", headers={"Last-Event-ID": "9" * 60},
         room="real", authorised=True)
@example(body=b"", query="", headers={"Last-Event-ID": "²"}, room="real", authorised=True)
@settings(max_examples=max(1, EXAMPLES // 2), suppress_health_check=list(HealthCheck), deadline=None)
@given(body=st.one_of(st.just(b""), st.binary(max_size=200), PLAY_BODIES), query=PLAY_QUERIES,
       headers=EVENT_HEADERS, authorised=st.booleans(), room=st.sampled_from(["real", "unknown", "²"]))
def test_the_event_stream_answers_an_event_or_json_never_a_5xx(event_server, body, query, headers,
                                                               authorised, room):
    import httpx

    server, code, token = event_server
    headers = dict(headers)
    if authorised:
        headers["Authorization"] = f"Bearer {token}"
    where = {"real": code, "unknown": "ZZZZZZZZ", "²": "²"}[room]
    url = f"{server.url}/api/play/rooms/{where}/events{query}"
    with httpx.Client(timeout=httpx.Timeout(10, read=10)) as client:
        raw = {name: value.encode("latin-1") for name, value in headers.items()}  # as sent on the wire
        request = client.build_request("GET", url, headers=raw, content=body or None)
        response = client.send(request, stream=True)
        try:
            assert response.status_code < 500, (url, response.read()[:300])
            kind = response.headers.get("content-type", "")
            if response.status_code == 200:
                assert kind.startswith("text/event-stream")
                first = next(response.iter_lines())  # the first line of the first event
                assert first.startswith(("id:", "event:", "retry:", ":")), first
            elif response.status_code != 304:
                assert kind.startswith("application/json"), (url, response.status_code, kind)
                assert json.loads(response.read())["error"]
        finally:
            response.close()
