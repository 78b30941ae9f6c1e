"""No ordinary edit on any admin change page answers 5xx.

Generated over every model admin's change page (the matrix's world has an object of each):
the page's form is read as a browser sends it, and one save changes a combination of its main
fields and its inline rows the way a person would (a text typed on, another choice picked, a
box ticked, a new inline row filled in, a row deleted); then the very same form is sent again
(a second tab, a double click: its versions are stale now). Every answer is below 500: a
saved page, or the form again with its errors. The combinations are drawn from a fixed seed,
and each one is named in the failure message.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import pytest
from django.db import transaction
from django.urls import NoReverseMatch, reverse

from tests.permission_matrix.forms import FormReader
from tests.permission_matrix.rows import CSRF_TOKEN
from tests.permission_matrix.world import _registered, client_for

SEED = 20261204
MAX_CASES = 14  # per page: the singles and the pairs that matter come first, then random sets
_ROW = re.compile(r"^(?P<row>.+?-\d+)-(?P<field>[^-]+)$")
_NOT_TYPED = ("hidden", "readonly", "password", "radio")


@dataclass
class Page:
    data: dict[str, list[str]]
    kinds: dict[str, str]
    options: dict[str, list[str]]  # a select's or a box's values
    templates: dict[str, list[tuple[str, str]]]  # inline prefix -> the empty row's fields


def _read(client: Any, url: str) -> Page:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    reader = FormReader()
    reader.feed(response.content.decode())
    fields = max(reader.forms, key=len)
    data: dict[str, list[str]] = {}
    templates: dict[str, list[tuple[str, str]]] = {}
    for name, value in fields:
        if "__prefix__" in name:
            prefix, _sep, field = name.partition("-__prefix__-")
            templates.setdefault(prefix, []).append((field, value))
        elif name != "csrfmiddlewaretoken":
            data.setdefault(name, []).append(value)
    options = {name: [value for value, _label in pairs] for name, pairs in reader.labels.items()}
    options.update(reader.choices)
    names = {name for name, _value in fields} | set(reader.kinds)
    kinds = {name: reader.kinds.get(name, "hidden") for name in names}
    return Page(data, kinds, options, templates)


def _typed_on(value: str, kind: str) -> str:
    """A value changed as a person types: a number goes up, a date a day on, a text grows."""
    if kind == "number" and not value:
        return "1"
    if kind == "email":
        return f"neu.{value}" if value else "neu@example.org"
    if kind == "url":
        return f"{value.rstrip('/')}/neu" if value else "https://example.org/neu"
    if match := re.fullmatch(r"(-?\d+)([.,]\d+)?(\s*[^\d\s.,][^\d]*)?", value):
        return f"{int(match.group(1)) + 1}{match.group(2) or ''}{match.group(3) or ''}"
    if match := re.fullmatch(r"(\d\d)\.(\d\d\.\d{4})", value):  # 04.12.2026
        return f"{int(match.group(1)) % 28 + 1:02d}.{match.group(2)}"
    if match := re.fullmatch(r"(\d{4}-\d\d-)(\d\d)", value):  # 2026-12-04
        return f"{match.group(1)}{int(match.group(2)) % 28 + 1:02d}"
    if match := re.fullmatch(r"(\d\d):(\d\d)(:\d\d)?", value):  # 18:20:49
        return f"{match.group(1)}:{(int(match.group(2)) + 1) % 60:02d}{match.group(3) or ''}"
    if re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        return "#123456" if value.lower() != "#123456" else "#654321"
    if re.fullmatch(r"[a-z0-9][a-z0-9-]*", value):
        return f"{value}-neu"
    if "@" in value:
        return f"neu.{value}"
    return f"{value} neu" if value else "neu"


def _change(page: Page, data: dict[str, list[str]], name: str) -> bool:
    """Change one field the way a person would; False when it cannot be changed."""
    kind = page.kinds.get(name, "hidden")
    if kind in _NOT_TYPED or name.endswith(("-id", "-DELETE")) or name == "edit_version":
        return False
    current = data.get(name, [])
    if kind == "checkbox":
        boxes = page.options.get(name, ["on"])
        if len(boxes) > 1:  # a row of boxes (several choices): tick or untick the first
            data[name] = [v for v in current if v != boxes[0]] if boxes[0] in current \
                else [*current, boxes[0]]
        elif current:
            del data[name]
        else:
            data[name] = boxes[:1]
        return True
    if kind in ("select", "select-multiple"):
        choices = [v for v in page.options.get(name, []) if v not in current]
        if not choices:
            return False
        picked = next((v for v in choices if v), choices[0])
        data[name] = [*current, picked] if kind == "select-multiple" else [picked]
        return True
    data[name] = [_typed_on(current[0] if current else "", kind)]
    return True


def _units(page: Page) -> list[tuple[str, str]]:
    """What one save can change: each main field, and each inline row (whole)."""
    mains, rows = [], []
    for name in sorted(page.kinds):
        if "__prefix__" in name:
            continue  # the empty row "Add another" copies: a unit of its own below
        match = _ROW.match(name)
        if match is None:
            if page.kinds[name] not in _NOT_TYPED and name != "edit_version":
                mains.append(("field", name))
        elif match.group("row") not in {r for _k, r in rows}:
            rows.append(("row", match.group("row")))
    new_rows = [("new", prefix) for prefix in sorted(page.templates)
                if f"{prefix}-TOTAL_FORMS" in page.data]
    return mains + rows + new_rows


def _add_row(page: Page, data: dict[str, list[str]], prefix: str) -> None:
    """Fill in a new inline row, as "Add another" and typing would."""
    number = int(data[f"{prefix}-TOTAL_FORMS"][0])
    data[f"{prefix}-TOTAL_FORMS"] = [str(number + 1)]
    for field, value in page.templates[prefix]:
        name = f"{prefix}-{number}-{field}"
        data.setdefault(name, []).append(value)
        template = f"{prefix}-__prefix__-{field}"
        page.kinds.setdefault(name, page.kinds.get(template, "hidden"))
        if template in page.options:
            page.options.setdefault(name, page.options[template])
        if field not in ("id", "DELETE") and not value:
            _change(page, data, name)


def _apply(page: Page, units: tuple[tuple[str, str], ...], rng: random.Random) -> dict[str, Any]:
    data = {name: list(values) for name, values in page.data.items()}
    for kind, name in units:
        if kind == "field":
            _change(page, data, name)
            continue
        if kind == "new":
            _add_row(page, data, name)
            continue
        row_fields = [n for n in page.kinds if n.startswith(f"{name}-")]
        existing = bool(data.get(f"{name}-id", [""])[0])
        if existing and f"{name}-DELETE" in page.kinds and rng.random() < 0.25:
            data[f"{name}-DELETE"] = ["on"]  # an ordinary edit too: the row goes
            continue
        for field in row_fields:
            _change(page, data, field)
    return {name: values if len(values) != 1 else values[0] for name, values in data.items()}


def _cases(units: list[tuple[str, str]], rng: random.Random) -> list[tuple[tuple[str, str], ...]]:
    fields = [u for u in units if u[0] == "field"]
    rows = [u for u in units if u[0] != "field"]
    cases: list[tuple[tuple[str, str], ...]] = []
    if units:
        cases.append(tuple(units))  # everything at once
    # a main field and an inline row together: the German text and its translation
    cases += [(f, r) for f in fields[:3] for r in rows[:2]]
    cases += [(u,) for u in units]
    extra = [c for n in (2, 3) for c in combinations(units, n) if c not in cases]
    rng.shuffle(extra)
    cases += extra
    unique = list(dict.fromkeys(cases))
    return unique[:MAX_CASES]


def _change_urls() -> list[tuple[str, str]]:
    found = []
    for model in _registered():
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}_change"
        try:
            reverse(name, args=[1])
        except NoReverseMatch:
            continue
        found.append((model._meta.label, name))
    return found


PAGES = _change_urls()


def test_every_kind_of_content_has_a_change_page_here():
    labels = {label for label, _name in PAGES}
    assert {"cards.ConceptCard", "cards.SymbolTile", "cards.SignSymbol", "cards.SignCard",
            "cards.Slogan", "cards.AlfonsCard", "cards.SauschwerObject",
            "cards.Translation", "cards.GlossaryTerm"} <= labels


@pytest.mark.slow
@pytest.mark.postgres  # row locks and savepoints behave differently there: run it on both
@pytest.mark.parametrize("label,url_name", PAGES, ids=[label for label, _ in PAGES])
def test_no_ordinary_save_answers_5xx(world, db, label, url_name):
    model = next(m for m in _registered() if m._meta.label == label)
    obj = world.target[model]
    url = reverse(url_name, args=[obj.pk])
    client = client_for(world, "superuser")
    client.raise_request_exception = False  # a 500 is counted, with its exception, not raised
    rng = random.Random(f"{SEED}:{label}")
    first = _read(client, url)
    problems = []
    for units in _cases(_units(first), rng):
        with transaction.atomic():
            page = _read(client, url)
            data = {**_apply(page, units, rng), "csrfmiddlewaretoken": CSRF_TOKEN}
            for attempt in ("save", "the same form again"):
                response = client.post(url, data)
                if response.status_code >= 500:
                    error = (getattr(response, "exc_info", None) or (None, None))[1]
                    problems.append(f"{attempt} of {[n for _k, n in units]}: "
                                    f"{response.status_code} {error!r}")
            transaction.set_rollback(True)
    assert not problems, f"{label}: {problems}"
