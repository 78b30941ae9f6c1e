"""Every admin URL × every role × GET and POST gets what the README's roles table says."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction

from tests.permission_matrix.cases import PAGES, PUBLIC, ROUTES, build_case, expected
from tests.permission_matrix.forms import _PAGES
from tests.permission_matrix.rows import CLIENT_ROLES, CSRF_TOKEN
from tests.permission_matrix.snapshot import snapshot
from tests.permission_matrix.world import _registered, client_for


def test_every_admin_page_is_in_the_matrix():
    # The walk sees the admin (else the matrix below would pass vacuously) and every page
    # that is not a model's has a row.
    names = {name for _route, name in ROUTES}
    assert {"cards_conceptcard_simple_history", "cards_translate", "exports_print"} <= names
    for route, name in ROUTES:
        model_page = any(route.startswith(f"admin/{m._meta.app_label}/{m._meta.model_name}/")
                         for m in _registered())
        if not model_page:
            key = name or ("catch_all" if route.endswith("(?P<url>.*)$") else route)
            assert key in PAGES, route


@pytest.mark.parametrize("route,name", ROUTES, ids=[route for route, _ in ROUTES])
def test_every_role_gets_what_the_readme_table_says(world, db, route, name):
    _PAGES.clear()
    case = build_case(world, route, name)
    su = client_for(world, "superuser")
    problems = []
    befores: dict[str, dict[str, tuple[int, str]]] = {}
    refused_payload: dict[str, Any] | None = None
    for role in CLIENT_ROLES:
        for method in ("GET", "POST"):
            need = case.need.get if method == "GET" else case.need.post
            allowed = expected(role, need)
            with transaction.atomic():
                data: dict[str, Any] = {}
                if method == "POST":
                    # A refused request consumes nothing, so refused roles share one payload;
                    # an allowed one may (an import's temporary file): a fresh one each.
                    if allowed or refused_payload is None:
                        data = case.payload(world, su)
                        if not allowed:
                            refused_payload = data
                    else:
                        data = refused_payload
                    for value in data.values():
                        if hasattr(value, "seek"):
                            value.seek(0)
                    if case.prepare is not None:
                        case.prepare(world)
                if method not in befores or (method == "POST" and case.prepare is not None):
                    # The same for every role (each case is rolled back), unless the case
                    # prepared something (new history rows)
                    befores[method] = snapshot()
                before = befores[method]
                client = client_for(world, role)
                if method == "GET":
                    response = client.get(case.url)
                else:
                    response = client.post(case.url, {**data, "csrfmiddlewaretoken": CSRF_TOKEN})
                after = snapshot()
                transaction.set_rollback(True)
            status = response.status_code
            wrote = before != after
            where = f"{role} {method} {case.url}: {status}"
            wanted = case.need.statuses.get(method)
            if role in ("non-staff", "anonymous") and need != PUBLIC:
                login = "/admin/" if name == "logout" else "/admin/login/"
                if status != 302 or not response["Location"].startswith(login):
                    problems.append(f"{where}, expected the login page")
            elif allowed or (wanted and status == wanted):
                if (status != wanted) if wanted else status not in (200, 302):
                    problems.append(f"{where}, expected {wanted or '200/302'}")
                elif method == "POST" and case.need.writes is True and not wrote and not wanted:
                    problems.append(f"{where}, expected the write to happen")
                if wrote and not (allowed and method == "POST" and case.need.writes is not False):
                    problems.append(f"{where} wrote although it should not write")
                continue
            elif status != case.need.refused:
                problems.append(f"{where}, expected {case.need.refused}")
            if wrote:
                changes = [t for t in before if before[t] != after[t]]
                problems.append(f"{where}: refused but wrote {changes}")
    assert not problems, "\n".join(problems)
