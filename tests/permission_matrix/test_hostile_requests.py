"""Every URL pattern with hostile values, as anonymous and as each role: never a 5xx.

The patterns come from the URL resolver (a new page is fuzzed without editing this test), each
filled with the matrix world's real values (a model's object, the open room, a game and
language) and then, one argument at a time, with hostile ones: a NUL byte (PostgreSQL cannot
store it: issue 38, finding 5), 5,000 digits, numbers too large for any column, negative
numbers, invalid UTF-8 and a lone surrogate (percent-encoded), digits that are not ASCII. The
query string (every name a view reads) and a form or JSON body carry the same values.

GET as the superuser (who reaches every view's code) and, on the admin's pages, as the other
roles in turn (anonymous only meets the login page there); on the public pages (play, packs,
media) as anonymous too, with a JSON body as well; POST as the superuser (with a valid CSRF
token, so only the view stops it). Marked ``postgres``: CI's PostgreSQL pass runs it, where a
NUL byte in a query is an error (SQLite stores it). About 8,000 requests in ~25 s of CPU (the
matrix's world is built once for the package); on main 809d2ed it found 500s on 48 URL
patterns on PostgreSQL (about half as many on SQLite).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from games.models import Room
from tests.permission_matrix.cases import filler
from tests.permission_matrix.rows import CLIENT_ROLES, CSRF_TOKEN
from tests.permission_matrix.world import client_for

pytestmark = pytest.mark.postgres

# As they travel in a URL (percent-encoded where they must be).
HOSTILE = {
    "nul": "A%00B",
    "digits": "9" * 5000,
    "huge": str(2**70),
    "negative": "-1",
    "utf8": "%FF%FEx",
    "surrogate": "%ED%A0%80",
    "superscript": "%C2%B2",
}
# As a form or JSON body's values.
BODY = {"nul": "A\x00B", "digits": "9" * 5000, "huge": 2**70, "negative": -1,
        "utf8": "\udcff", "surrogate": "\ud800", "superscript": "²"}
# The names views read from a query string or a form (grep request.GET / POST), and the admin's.
NAMES = ["q", "since", "version", "page", "p", "o", "e", "all", "step", "game", "language",
         "release", "width", "unit", "check", "field", "id", "key", "code", "seat", "name",
         "token", "ticket", "v", "market", "side", "state", "reason", "finding", "text", "card",
         "action", "next", "cookie", "last_event_id", "_changelist_filters", "_preview_width",
         "_preview_object_id", "content_type", "content_type__id__exact", "term", "app_label",
         "model_name", "field_name", "format", "resource", "_popup", "_to_field"]


def routes() -> list[str]:
    """Every URL pattern of the project, as route text."""
    found: list[str] = []

    def walk(resolver: URLResolver, prefix: str) -> None:
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                walk(entry, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                found.append(prefix + str(entry.pattern))

    walk(get_resolver(), "")
    return found


ARGUMENT = re.compile(r"\(\?P<(\w+)>[^)]*\)|<(?:\w+:)?(\w+)>")


def arguments(route: str) -> list[str]:
    return [a or b for a, b in ARGUMENT.findall(route)]


def url_of(world: Any, route: str, hostile: dict[str, str]) -> str:
    """The route filled with real values, the arguments in ``hostile`` with those."""
    room = Room.objects.order_by("pk").first()
    real = {"code": room.code, "seat_id": "s1", "name": "play.css", "control": "start",
            "game": "sauschwer", "language": "en", "version": "1", "since": "1",
            "digest": "0" * 64, "path": "x"}
    admin_own: list[str] = []

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in hostile:
            return hostile[name]
        if name in real:
            return real[name]
        admin_own.append(name)
        return match.group(0)

    filled = ARGUMENT.sub(value, route)
    if admin_own:  # the admin's own arguments (an object's id …): the matrix's filler knows them
        filled = filler(world, None)(filled).lstrip("/")
    return "/" + filled.replace("^", "").replace("$", "").replace("\\", "")


def _request(client: Client, method: str, url: str, query: str = "", body: Any = None,
             kind: str = "form") -> int:
    with transaction.atomic():
        target = url + ("?" + query if query else "")
        if method == "GET":
            response = client.get(target)
        elif kind == "json":
            response = client.post(target, json.dumps(body), content_type="application/json",
                                   HTTP_X_CSRFTOKEN=CSRF_TOKEN)
        elif kind == "urlencoded":  # as its bytes: the percent-encoded values as they are
            response = client.post(target, f"{body}&csrfmiddlewaretoken={CSRF_TOKEN}",
                                   content_type="application/x-www-form-urlencoded")
        else:
            response = client.post(target, {**body, "csrfmiddlewaretoken": CSRF_TOKEN})
        if response.streaming:
            response.close()
        transaction.set_rollback(True)
    return response.status_code


@pytest.fixture
def clients(world, db, settings):
    settings.DEBUG_PROPAGATE_EXCEPTIONS = False
    made = {role: client_for(world, role) for role in CLIENT_ROLES}
    for client in made.values():
        client.raise_request_exception = False
    return made


ROUTES = routes()


def cases(world: Any, route: str, others: Any) -> list[tuple[str, str, str, str, Any, str, str]]:
    """(role, method, url, query, body, body kind, value name) of the requests sent to ``route``.

    The admin's pages: the superuser (who gets past every permission) and another role in turn;
    anonymous gets the login page before any of the page's code runs. The public pages (play,
    packs, media): anonymous and the superuser, and a JSON body."""
    admin = route.startswith("admin/")
    found = []
    for value_name, value in HOSTILE.items():
        # multipart where the value is text; invalid UTF-8 goes urlencoded, as its bytes
        as_form: Any = ({name: str(BODY[value_name]) for name in NAMES}
                        if value_name not in ("utf8", "surrogate") else None)
        raw = "&".join(f"{name}={value}" for name in NAMES)
        form, kind = (as_form, "form") if as_form is not None else (raw, "urlencoded")
        roles = ("superuser", next(others)) if admin else ("superuser", "anonymous")
        for name in arguments(route):  # one argument at a time, the others real
            url = url_of(world, route, {name: value})
            found += [(role, "GET", url, "", None, "", value_name) for role in roles]
            found.append(("superuser", "POST", url, "", form, kind, value_name))
        if value_name == "surrogate":
            continue  # in a query or form, %ED%A0%80 is read as "\ufffd" three times: as utf8
        url = url_of(world, route, {})
        found += [(role, "GET", url, raw, None, "", value_name) for role in roles[:1 if admin else 2]]
        found.append(("superuser", "POST", url, "", raw, "urlencoded", value_name))
        if not admin:
            found.append(("anonymous", "POST", url, "", {name: BODY[value_name] for name in NAMES},
                          "json", value_name))
    return found


@pytest.mark.parametrize("route", ROUTES, ids=ROUTES)
def test_no_hostile_value_in_a_path_query_or_body_gives_a_5xx(world, clients, route):
    others = itertools.cycle([r for r in CLIENT_ROLES if r not in ("superuser", "anonymous")])
    problems = []
    for role, method, url, query, body, kind, value_name in cases(world, route, others):
        where = f"{role} {method} {url[:120]} ?{query[:40]} [{value_name}, {kind}]"
        try:
            status = _request(clients[role], method, url, query, body, kind)
        except Exception as error:
            problems.append(f"{where}: {error!r}"[:300])
            continue
        # (an event stream under WSGI is a 503 by design, "served through ASGI only":
        # tests/test_storable_text.py sends the hostile streams through ASGI)
        if status >= 500 and not (status == 503 and route.endswith("/events")):
            problems.append(f"{where}: {status}")
    assert not problems, "\n".join(problems)
