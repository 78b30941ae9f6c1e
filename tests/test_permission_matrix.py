"""Every write checks its permission: every admin URL × every role × GET and POST.

The admin URLs come from the URL resolver: every page of a model admin (a new model's too)
is in the matrix without editing this test — its permission follows from the page's kind
(list, add, change, delete, history, revert, import, export) and the model. A page that is
no model's fails ``test_every_admin_page_is_in_the_matrix`` until ``PAGES`` says what it
needs (one of the README table's rows). What each role may do is the README's roles table (section *Roles*):
``README_TABLE`` below is that table, a test parses the README and compares, and another
compares it with the permissions the two groups really hold — so the documentation, the
groups and the behaviour cannot drift apart.

Each case sends what a browser would send (the form as the page renders it for a
superuser, with a real change in it) through a client that enforces CSRF with a valid
token, i.e. a forged request that only the permission check can stop. An allowed role gets
200/302 and, where the request writes, the database changes; a refused role gets 403 (or
the login page, for everyone without staff status) and the content, history, release, user
and group tables are exactly as before (compared by a checksum of every row; releases, which
the database keeps from changing, by count and last id).

Cost: the catalogue is loaded once per module (each test a savepoint, each case another) and
each role logs in once, so the ~1,500 requests take about 25 s of CPU.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from hashlib import sha256
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import polib
import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.db.models import Model, ProtectedError
from django.db.models.deletion import Collector
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver

from cards.catalogue import import_catalogue
from cards.findings import refresh_findings
from cards.models import (
    CheckDismissal,
    ConceptCard,
    GlossaryTerm,
    SauschwerObject,
    SignColour,
    Slogan,
    SloganCard,
    SloganOption,
    Translation,
)
from cards.po import export_po
from common.permissions import permission
from exports.models import Release, RenderJob, WebhookDelivery, WebhookEndpoint
from exports.packs import publish
from games.models import Room
from games.rooms import open_room

README = Path(__file__).resolve().parent.parent / "README.md"
MINI = Path(__file__).parent / "data" / "mini"
PASSWORD = "karten-pw-1"
NEW_PASSWORD = "Neues-Kennwort-2026!"
CSRF_TOKEN = "k" * 32  # a valid token: the forged requests pass CSRF, only permissions stop them

ROLES = ("superuser", "Curators", "Translators", "Viewers", "staff without group", "everyone else")
# "everyone else" is two roles in the matrix: a logged-in user without staff status, and
# nobody logged in.
CLIENT_ROLES = ("superuser", "Curators", "Translators", "Viewers", "staff without group", "non-staff",
                "anonymous")
STAFF = "(staff status)"  # a pseudo-permission: what every staff user has


# The translation checks' glossary and dismissed findings: rows of their own in the table.
CHECKS = [GlossaryTerm, CheckDismissal]


def content_models() -> list[type[Model]]:
    """Every content type of the cards app (all but translations, the translation checks'
    models, history tables and tables derived from the others that nobody edits: no
    permissions, e.g. the stored check findings)."""
    return [m for m in apps.get_app_config("cards").get_models()
            if m is not Translation and m not in CHECKS and not m.__name__.startswith("Historical")
            and m._meta.default_permissions]


def perms(*actions: str, models: list[type[Model]]) -> frozenset[str]:
    return frozenset(permission(action, model) for action in actions for model in models)


CONTENT = content_models()
# The rows of the README's roles table, each as the permissions it stands for.
ROWS: dict[str, frozenset[str]] = {
    "open the admin, change their own password": frozenset({STAFF}),
    "see cards, their history and list pages; export spreadsheets":
        perms("view", models=CONTENT),
    "read a game's draft pack (`draft.json`)": perms("view", models=CONTENT),
    "add, change and delete cards, revert a version, see and restore deleted cards, import "
    "spreadsheets": perms("add", "change", "delete", models=CONTENT),
    "print decks (PDF)": perms("change", models=CONTENT),
    "see translations, progress, the glossary and dismissed checks; download PO files":
        perms("view", models=[Translation, *CHECKS]),
    "add and change translations (editor, *Translations* list and its import, PO "
    "upload, revert)":
        perms("add", "change", models=[Translation]),
    "approve translations (review: *Approve this page*, *Approve selected*, the *approved* "
    "state, also in an imported file)": perms("approve", models=[Translation]),
    "delete translations": perms("delete", models=[Translation]),
    "edit the glossary, dismiss translation checks": perms("add", "change", "delete", models=CHECKS),
    "see releases": perms("view", models=[Release]),
    "publish content packs": perms("add", models=[Release]),
    "register webhooks, see their deliveries and send them again":
        perms("view", "add", "change", "delete", models=[WebhookEndpoint])
        | perms("view", models=[WebhookDelivery]),
    "see play rooms and delete them": perms("view", "delete", models=[Room]),
    "manage users and groups": perms("view", "add", "change", "delete", models=[User, Group]),
}
# The README's roles table: which rows each role may do.
README_TABLE: dict[str, set[str]] = {
    "superuser": set(ROWS),
    "Curators": set(ROWS) - {"manage users and groups"},
    "Translators": {
        "open the admin, change their own password",
        "see cards, their history and list pages; export spreadsheets",
        "read a game's draft pack (`draft.json`)",
        "see translations, progress, the glossary and dismissed checks; download PO files",
        "add and change translations (editor, *Translations* list and its import, PO "
    "upload, revert)",
    },
    "Viewers": {
        "open the admin, change their own password",
        "see cards, their history and list pages; export spreadsheets",
        "read a game's draft pack (`draft.json`)",
        "see translations, progress, the glossary and dismissed checks; download PO files",
        "see releases",
    },
    "staff without group": {"open the admin, change their own password"},
    "everyone else": set(),
}


def role_permissions(role: str) -> frozenset[str]:
    return frozenset().union(*(ROWS[row] for row in README_TABLE[role]))


# --- the README, the table and the groups agree ------------------------------------------


def readme_roles_table() -> dict[str, set[str]]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("**Roles.**"):]
    table: list[list[str]] = []
    for line in section.splitlines():
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif table:
            break  # the end of the first table after "Roles"
    header, _rule, *rows = table
    assert header[1:] == list(ROLES), header
    result: dict[str, set[str]] = {role: set() for role in ROLES}
    for row in rows:
        assert set(row[1:]) <= {"yes", "no"}, row
        for role, cell in zip(ROLES, row[1:], strict=True):
            if cell == "yes":
                result[role].add(row[0])
    return result


def test_the_readme_roles_table_is_the_matrix_of_this_test():
    assert readme_roles_table() == README_TABLE
    assert set().union(*README_TABLE.values()) == set(ROWS)


@pytest.mark.django_db
def test_the_groups_hold_exactly_the_permissions_of_the_readme_table():
    relevant = [*CONTENT, Translation, *CHECKS, Release, Room, User, Group, WebhookEndpoint,
                WebhookDelivery]
    types = ContentType.objects.get_for_models(*relevant).values()
    for role in ("Curators", "Translators", "Viewers"):
        held = {f"{p.content_type.app_label}.{p.codename}" for p in
                Permission.objects.filter(group__name=role, content_type__in=types)}
        assert held == role_permissions(role) - {STAFF}, role


# --- the world the matrix runs in ---------------------------------------------------------


@dataclass
class World:
    users: dict[str, User | None]
    target: dict[type[Model], Model]  # per model admin: the object its URLs are about
    first_version: dict[type[Model], int] = field(default_factory=dict)
    po_entry: str = ""
    sessions: dict[str, dict[str, str]] = field(default_factory=dict)  # role -> cookies
    job: int = 0  # a queued background deck (exports.models.RenderJob)
    dismiss_unit: str = ""  # an editor text with an open "unchanged" finding


def _registered() -> dict[type[Model], admin.ModelAdmin]:
    return dict(admin.site._registry)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The mini catalogue, one user per role and a changed version of every object the
    matrix touches — built once for the module and rolled back at its end (each test runs
    in a savepoint inside it, each case in another)."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            assert not import_catalogue(MINI).errors
            users: dict[str, User | None] = {"anonymous": None}
            users["superuser"] = User.objects.create_superuser("sue", "", PASSWORD)
            for role, name in (("Curators", "carla"), ("Translators", "tina"),
                               ("Viewers", "vera"), ("staff without group", "sam")):
                user = User.objects.create_user(name, "", PASSWORD, is_staff=True)
                if role in ("Curators", "Translators", "Viewers"):
                    user.groups.add(Group.objects.get(name=role))
                users[role] = user
            users["non-staff"] = User.objects.create_user("nora", "", PASSWORD)
            User.objects.create_user("vicky", "", PASSWORD)  # the user the user admin edits
            Group.objects.create(name="Spare")  # the group the group admin edits
            # A release of the sauschwer pack, then a change: publishing writes release 2.
            publish("sauschwer", "en")
            open_room(game="sauschwer", language="en", name="Hosting Hanna")  # a play room
            # A webhook endpoint and one delivery to it (the one "send again" sends).
            hook = WebhookEndpoint.objects.create(name="Partner app", url="https://hooks.example.org/k",
                                                  secret="whsec_" + "A" * 44)
            WebhookDelivery.objects.create(endpoint=hook, url=hook.url, release=Release.objects.get(),
                                           message_id="msg_1", scheduled_for=hook.created_at)
            egg = SauschwerObject.objects.get(key="ein-huehnerei")
            egg.source = egg.source + " (checked)"
            egg.save()
            # A translation that PO upload may overwrite (approved ones it never does).
            row = Translation.objects.get(object_id=egg.pk, language="en", field="name",
                                          content_type=ContentType.objects.get_for_model(egg))
            row.state = "translated"
            row.save()
            # A translation check's finding to dismiss (the German name kept unchanged), and
            # a dismissal made earlier (on another check) for the dismissals' admin pages.
            plain = SauschwerObject.objects.exclude(pk=egg.pk).order_by("key").last()
            same = Translation.objects.get(object_id=plain.pk, language="en", field="name",
                                           content_type=ContentType.objects.get_for_model(plain))
            same.text = plain.name
            same.save()
            CheckDismissal.objects.create(content_object=plain, field="name", language="en",
                                          check_name="length", reason="A long name is right here.",
                                          text=same.text, source=plain.name)
            target: dict[type[Model], Model] = {}
            versions: dict[type[Model], int] = {}
            for model in _registered():
                obj = model._default_manager.order_by("-pk").first()
                assert obj is not None, f"the mini catalogue has no {model.__name__}"
                target[model] = obj
                history = getattr(model, "history", None)
                if history is not None:
                    # A second version, so that reverting to the first one writes.
                    name = "key" if hasattr(obj, "key") else "text"
                    setattr(obj, name, getattr(obj, name) + ("-v2" if name == "key" else " v2"))
                    obj.save()
                    versions[model] = obj.history.earliest("history_date").history_id
            world = World(users, target, versions, f"{egg.key}:name")
            world.dismiss_unit = f"sauschwerobject-{plain.pk}-name"
            world.job = RenderJob.objects.create(game="sauschwer", language="en", release="draft",
                                                 options={}, kind="pdf").pk
            # The stored check findings follow the changes above once they are committed (never,
            # in this rolled-back world): bring them up to date, so reading a page that shows
            # them writes nothing.
            refresh_findings()
            for role, user in users.items():
                # One login per role for the module: each case rolls back what it did to
                # the session (a logout, a password change), so the cookies stay valid.
                client = Client()
                if user is not None:
                    client.force_login(user)
                world.sessions[role] = {name: morsel.value
                                        for name, morsel in client.cookies.items()}
            yield world
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


# --- reading a page's form the way a browser sends it -------------------------------------


class FormReader(HTMLParser):
    """The fields of each POST form on a page, as a browser would submit them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[list[tuple[str, str]]] = []
        self._form: list[tuple[str, str]] | None = None
        self._select: tuple[str, bool, list[tuple[str, bool]]] | None = None
        self._textarea: str | None = None
        self._text = ""
        self._option: list[str] | None = None
        self.labels: dict[str, list[tuple[str, str]]] = {}  # select name -> (value, label)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("method", "").lower() == "post":
            self._form = []
            self.forms.append(self._form)
        if self._form is None:
            return
        name = a.get("name", "")
        if tag == "input" and name:
            kind = a.get("type", "text").lower()
            if kind in ("submit", "button", "image", "reset", "file"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self._form.append((name, a.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select" and name:
            self._select = (name, "multiple" in a, [])
        elif tag == "option" and self._select is not None:
            self._select[2].append((a.get("value", ""), "selected" in a))
            self._option = [a.get("value", ""), ""]
            self.labels.setdefault(self._select[0], []).append(("", ""))
        elif tag == "textarea" and name:
            self._textarea, self._text = name, ""

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text += data
        if self._option is not None and self._select is not None:
            self._option[1] += data
            self.labels[self._select[0]][-1] = (self._option[0], self._option[1].strip())

    def handle_endtag(self, tag: str) -> None:
        if self._form is None:
            return
        if tag == "option":
            self._option = None
        if tag == "select" and self._select is not None:
            name, multiple, options = self._select
            chosen = [value for value, selected in options if selected]
            if not chosen and not multiple and options:
                chosen = [options[0][0]]
            self._form.extend((name, value) for value in chosen)
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self._form.append((self._textarea, self._text.removeprefix("\n")))
            self._textarea = None
        elif tag == "form":
            self._form = None


_PAGES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}  # url -> form, labels; per test


def page_form(client: Client, url: str, labels: dict[str, Any] | None = None) -> dict[str, Any]:
    """The biggest POST form of a page (not the header's logout form), as POST data; the
    options of its selects (value, label) go into ``labels`` when given."""
    if url in _PAGES:  # the same page in every case of a test (each case is rolled back)
        data, seen = _PAGES[url]
        if labels is not None:
            labels.update(seen)
        return dict(data)
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    reader = FormReader()
    reader.feed(response.content.decode())
    fields = max(reader.forms, key=len)
    if labels is not None:
        labels.update(reader.labels)
    data: dict[str, Any] = {}
    for name, value in fields:
        if "__prefix__" in name or name == "csrfmiddlewaretoken":
            continue
        data.setdefault(name, []).append(value)
    form = {name: values if len(values) > 1 else values[0] for name, values in data.items()}
    _PAGES[url] = (form, reader.labels)
    return dict(form)


def changed(data: dict[str, Any]) -> dict[str, Any]:
    """The same form with one real change in it (a saved card's key is read-only, so not
    the key); a form with no text to change (a Sign card) is saved as it is, which still
    writes the card's history."""
    for name, suffix in (("key", "-neu"), ("text", " neu"), ("first_name", "Neu"),
                         ("name", " neu"), ("slogans-0-text", " neu"), ("term", " neu"),
                         ("reason", " neu"), ("group", " neu")):
        if name in data:
            return {**data, name: f"{data[name]}{suffix}"}
    if "symbol" in data and "colour" in data:
        return data
    raise AssertionError(f"no field to change in {sorted(data)}")


def as_new(data: dict[str, Any], model_admin: admin.ModelAdmin, obj: Model,
           request: Any) -> dict[str, Any]:
    """A change form's data turned into an add form's: its inline rows become new rows."""
    data = dict(data)
    for formset, _inline in model_admin.get_formsets_with_inlines(request, obj):
        prefix = formset.get_default_prefix()
        fk = getattr(formset, "fk", None)
        data[f"{prefix}-INITIAL_FORMS"] = "0"
        for name in list(data):
            match = re.fullmatch(rf"{re.escape(prefix)}-\d+-(\w+)", name)
            if match and match.group(1) in ("id", "DELETE", *([fk.name] if fk else [])):
                del data[name]
    return data


def remove(obj: Model) -> None:
    # Through the queryset: Model.delete() would set obj.pk to None for the later cases.
    type(obj)._default_manager.filter(pk=obj.pk).delete()


def free(obj: Model) -> None:
    """Delete what protects obj from deletion (a Sign symbol's cards …), not obj itself."""
    while True:
        try:
            Collector(using="default").collect([obj])
            return
        except ProtectedError as exc:
            for other in exc.protected_objects:
                free(other)
                other.delete()


# --- the cases -------------------------------------------------------------------------------

NEVER = "never"  # nobody, not even a superuser (a release never changes)
PUBLIC = "public"  # everybody (the login page)


@dataclass
class Need:
    get: frozenset[str] | str
    post: frozenset[str] | str
    writes: bool | None  # does an allowed POST write? None: unknown (a page nobody declared)
    statuses: dict[str, int] = field(default_factory=dict)  # allowed answer other than 200/302
    refused: int = 403


@dataclass
class Case:
    route: str
    url: str
    need: Need
    payload: Callable[[World, Client], dict[str, Any]] = lambda world, su: {}
    prepare: Callable[[World], None] | None = None  # before a POST: e.g. free the object


# (model, page kind) -> what the page needs, from (view, add, change, delete) of the model.
RULE_REFUSALS: dict[tuple[type[Model], str], Callable[..., Need]] = {
    # "Delete selected" is not offered on slogans: sent anyway, it is refused (403).
    (Slogan, "changelist"): lambda view, add, change, delete: Need(view, NEVER, True),
    # A slogan is added only to fill a missing side of a card, with its four options: the
    # bare form is answered with the rule's message and nothing is stored.
    (Slogan, "add"): lambda view, add, change, delete: Need(add, add, False),
    # Deleting a slogan alone would leave its card incomplete: refused with a message.
    (Slogan, "delete"): lambda view, add, change, delete: Need(delete, delete, False),
    # Slogan cards come with their slogans (the slogans file), never on their own.
    (SloganCard, "import"): lambda view, add, change, delete: Need(NEVER, NEVER, False),
    (SloganCard, "process_import"): lambda view, add, change, delete: Need(
        frozenset({STAFF}), NEVER, False, statuses={"GET": 405}),
}


def translation_resource_of(model_admin: admin.ModelAdmin, row: Translation) -> tuple[int, Any]:
    """(index, class) of the Translations list's import resource for the kind of ``row``'s card."""
    kind = row.content_type.model_class()
    kind = Slogan if kind is SloganOption else kind
    request = RequestFactory().get("/admin/")
    request.user = User(is_superuser=True, is_active=True, is_staff=True)
    return next((index, rc) for index, rc in enumerate(
        model_admin.get_import_resource_classes(request)) if rc.content_model is kind)


def _all(*groups: frozenset[str]) -> frozenset[str]:
    return frozenset().union(*groups)


def model_case(route: str, kind: str, model: type[Model], model_admin: admin.ModelAdmin,
               fill: Callable[[str], str]) -> Case:
    view, add, change, delete = (frozenset({permission(a, model)})
                                 for a in ("view", "add", "change", "delete"))
    su_request = RequestFactory().get("/admin/")
    su_request.user = User(is_superuser=True, is_active=True, is_staff=True)
    never = {a: not getattr(model_admin, f"has_{a}_permission")(su_request)
             for a in ("add", "change", "delete")}
    url = fill(route)

    def target(world: World) -> Model:
        return world.target[model]

    def change_url(world: World) -> str:
        return f"/admin/{model._meta.app_label}/{model._meta.model_name}/{target(world).pk}/change/"

    # Where the content rules, not the permissions, refuse a write to everybody (a slogan
    # lives and dies with its card, whose page edits both slogans as one unit; slogan cards
    # are imported through the slogans file): an allowed role is answered without a write,
    # the others are refused as usual.
    if (model, kind) in RULE_REFUSALS:
        def rule_payload(world: World, su: Client) -> dict[str, Any]:
            if kind == "changelist":
                return {"action": "delete_selected", "_selected_action": [target(world).pk],
                        "index": "0", "post": "yes"}
            return {"post": "yes"} if kind == "delete" else {}

        return Case(route, url, RULE_REFUSALS[model, kind](view, add, change, delete), rule_payload)
    if (model, kind) == (WebhookDelivery, "changelist"):  # its one action: send again
        return Case(route, url, Need(view, frozenset({"exports.change_webhookendpoint"}), True),
                    lambda w, su: {"action": "send_again", "_selected_action": [target(w).pk],
                                   "index": "0"})
    if kind == "changelist":
        if model is Release:  # no list actions: publishing is the review page's alone
            action, action_need, writes = "publish_again", NEVER, False
        else:
            action, action_need, writes = "delete_selected", delete, True
        return Case(route, url, Need(view, action_need, writes),
                    lambda w, su: {"action": action, "_selected_action": [target(w).pk],
                                   "index": "0", "post": "yes"},
                    lambda w: free(target(w)))
    if kind == "add":
        need = NEVER if never["add"] else add

        def add_payload(world: World, su: Client) -> dict[str, Any]:
            if need == NEVER:
                return {}
            obj = target(world)
            data = as_new(page_form(su, change_url(world)), model_admin, obj, su_request)
            for name, value in page_form(su, url).items():  # add-only fields (passwords)
                data.setdefault(name, value)
            if "key" in data and not data["key"]:  # read-only on the change form: its own
                data["key"] = obj.key
            return {**data, **{n: NEW_PASSWORD for n in ("password1", "password2") if n in data}}

        def add_prepare(world: World) -> None:
            if need != NEVER:
                free(target(world))
                remove(target(world))  # the add brings it back from its own form

        return Case(route, url, Need(need, need, True), add_payload, add_prepare)
    if kind == "change":
        post = NEVER if never["change"] else change
        return Case(route, url, Need(view, post, True),
                    lambda w, su: {} if post == NEVER else {**changed(page_form(su, url)),
                                                            "_save": "Save"})
    if kind == "delete":
        need = NEVER if never["delete"] else delete
        return Case(route, url, Need(need, need, True), lambda w, su: {"post": "yes"},
                    lambda w: free(target(w)))
    if kind == "simple_history":
        post = NEVER if never["change"] else change
        return Case(route, url, Need(view, post, True),
                    lambda w, su: {**page_form(su, url), "_save": "Save"})
    # Card previews (curation/card_previews.py): seeing a card is enough, and they never write.
    if kind == "card_preview":  # a card's PNG; a POST is answered 405
        return Case(route, url, Need(view, view, False, statuses={"POST": 405}))
    if kind == "typed_preview":  # a PNG of signed typed data; without the data 400, POST 405
        return Case(route, url, Need(view, view, False, statuses={"GET": 400, "POST": 405}))
    if kind == "form_preview":  # the change form as typed → JSON; GET 405; writes nothing
        def typed(world: World, su: Client) -> dict[str, Any]:
            obj = target(world)
            name = next(iter(getattr(model, "TRANSLATABLE_FIELDS", ())), "key")
            return {"_preview_object_id": obj.pk, name: f"{getattr(obj, name)} (typed)",
                    "_save": "Save"}

        return Case(route, url, Need(view, view, False, statuses={"GET": 405}), typed)
    if kind in ("history", "object"):
        return Case(route, url, Need(view if kind == "history" else frozenset({STAFF}),
                                     view if kind == "history" else frozenset({STAFF}), False))
    if kind in ("import", "process_import"):
        need = add | change

        def csv_of_all(world: World) -> Any:
            request = RequestFactory().get("/admin/")
            request.user = world.users["superuser"]
            if model is Translation:  # the target's own row, in its kind's translation file
                _index, resource_class = translation_resource_of(model_admin, target(world))
                data = resource_class().export(Translation.objects.filter(pk=target(world).pk))
                upload = io.BytesIO(data.csv.encode())
                upload.name = "translations.csv"
                return upload
            resource = model_admin.get_import_resource_classes(request)[0]()
            dataset = resource.export()
            # Only the target's row (which the confirmed import creates again); a tile's
            # picture file comes only with a catalogue folder, its icon draws it here.
            # (brand owners are matched on brand and since: their brand's rows)
            column = next(c for c in ("key", "id", "brand") if c in dataset.headers)
            wanted = str(getattr(target(world), column))
            rows = [row for row in dataset.dict if str(row[column]) == wanted]
            dataset.wipe()
            dataset.dict = rows
            if "picture" in dataset.headers:
                del dataset["picture"]
            data = dataset.csv.encode()
            upload = io.BytesIO(data)
            upload.name = f"{model._meta.model_name}.csv"
            return upload

        def preview(world: World, su: Client) -> dict[str, Any]:
            labels: dict[str, Any] = {}
            form = page_form(su, fill(route.replace("process_import", "import")), labels)
            csv_choice = next(value for value, label in labels["format"] if label.lower() == "csv")
            if model is Translation:
                form["resource"] = str(translation_resource_of(model_admin, target(world))[0])
            return {**form, "format": csv_choice, "import_file": csv_of_all(world)}

        if kind == "import":
            return Case(route, url, Need(need, need, False), preview)
        # Confirming is POST only: a GET is 405 before any permission is looked at.
        confirm_need = Need(frozenset({STAFF}), need, True, statuses={"GET": 405}, refused=403)

        def confirm(world: World, su: Client) -> dict[str, Any]:
            page = su.post(fill(route.replace("process_import", "import")),
                           {**preview(world, su), "csrfmiddlewaretoken": CSRF_TOKEN})
            reader = FormReader()
            reader.feed(page.content.decode())
            confirm_form = next((f for f in reader.forms
                                 if any(n == "import_file_name" for n, _ in f)), None)
            assert confirm_form is not None, re.findall(r'class="errorlist[^"]*">(.*?)</ul>|'
                                                        r'<li[^>]*>(row .*?)</li>',
                                                        page.content.decode(), re.S)[:5]
            return {n: v for n, v in confirm_form if n != "csrfmiddlewaretoken"}

        def drop_target(world: World) -> None:
            free(target(world))
            remove(target(world))  # the confirmed import creates it again

        return Case(route, url, confirm_need, confirm, drop_target)
    if kind == "export":
        def export_payload(world: World, su: Client) -> dict[str, Any]:
            labels: dict[str, Any] = {}
            form = page_form(su, url, labels)
            csv_choice = next(value for value, label in labels["format"] if label.lower() == "csv")
            return {**form, "format": csv_choice}

        return Case(route, url, Need(view, view, False), export_payload)
    if kind == "password_change":  # the user admin's "change another user's password"
        need = frozenset({permission("change", User)})
        return Case(route, url, Need(need, need, True),
                    lambda w, su: {**page_form(su, url), "password1": NEW_PASSWORD,
                                   "password2": NEW_PASSWORD})
    # A kind of model page this test does not know: what a model page needs at least.
    return Case(route, url, Need(view, change, None))


def _translate_payload(world: World, su: Client) -> dict[str, Any]:
    data = page_form(su, "/admin/cards/translate/sauschwer/en/")
    first = next(name for name in data if name.startswith("text-"))
    return {**data, first: f"{data[first]} (neu)"}


def _po_payload(world: World, su: Client) -> dict[str, Any]:
    po = polib.pofile(export_po("sauschwer", "en"))
    entry = next(e for e in po if e.msgctxt == world.po_entry)
    entry.msgstr += " (neu)"
    upload = io.BytesIO(str(po).encode())
    upload.name = "sauschwer-en.po"
    return {"po_file": upload}


def _print_payload(world: World, su: Client) -> dict[str, Any]:
    return {**page_form(su, "/admin/exports/print/sauschwer/"), "release": "draft",
            "language": "en", "print": "Download PDF"}


def _publish_payload(world: World, su: Client) -> dict[str, Any]:
    # what the review page shows (the world changed an object since release 1), confirmed
    return {**page_form(su, "/admin/exports/publish/sauschwer/en/"), "confirm": "on",
        "publish_untranslated": "on",
            "note": "Geprüft."}


def _dismiss_payload(world: World, su: Client) -> dict[str, Any]:
    return {"unit": world.dismiss_unit, "check": "unchanged", "reason": "The name stays."}


STAFF_ONLY = frozenset({STAFF})
DISMISS = perms("add", models=[CheckDismissal])
CHANGE_CARDS = perms("change", models=[ConceptCard])
TRANSLATIONS_VIEW = perms("view", models=[Translation])
TRANSLATIONS_WRITE = perms("add", "change", models=[Translation])
TRANSLATIONS_APPROVE = perms("approve", models=[Translation])
PUBLISH = frozenset({"exports.add_release"})
SAUSCHWER = [m for m in CONTENT if getattr(m, "GAME", None) == "sauschwer"]

# The admin pages that are not a model's: what each needs (the README table's rows).
PAGES: dict[str, tuple[Need, Callable[[World, Client], dict[str, Any]]]] = {
    "index": (Need(STAFF_ONLY, STAFF_ONLY, False), lambda w, su: {}),
    "login": (Need(PUBLIC, PUBLIC, False), lambda w, su: {"username": "x", "password": "y"}),
    "logout": (Need(STAFF_ONLY, STAFF_ONLY, False, statuses={"GET": 405}), lambda w, su: {}),
    "password_change": (Need(STAFF_ONLY, STAFF_ONLY, True), lambda w, su: {
        "old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}),
    "password_change_done": (Need(STAFF_ONLY, STAFF_ONLY, False, statuses={"POST": 405}),
                             lambda w, su: {}),
    "autocomplete": (Need(perms("view", models=[SignColour]), STAFF_ONLY, False,
                          statuses={"POST": 405}), lambda w, su: {}),
    "jsi18n": (Need(STAFF_ONLY, STAFF_ONLY, False, statuses={"POST": 405}), lambda w, su: {}),
    "view_on_site": (Need(STAFF_ONLY, STAFF_ONLY, False,
                          statuses={"GET": 404, "POST": 404}), lambda w, su: {}),
    "app_list": (Need(perms("view", models=[ConceptCard]), perms("view", models=[ConceptCard]),
                      False, refused=404), lambda w, su: {}),
    "catch_all": (Need(STAFF_ONLY, STAFF_ONLY, False, statuses={"GET": 404, "POST": 404}),
                  lambda w, su: {}),
    "cards_deleted": (Need(CHANGE_CARDS, CHANGE_CARDS, False), lambda w, su: {}),
    "cards_progress": (Need(TRANSLATIONS_VIEW, TRANSLATIONS_VIEW, False), lambda w, su: {}),
    "cards_translate": (Need(perms("change", models=[Translation]), TRANSLATIONS_WRITE, True),
                        _translate_payload),
    "cards_dismiss": (Need(DISMISS, DISMISS, True), _dismiss_payload),
    # The editor's checks while typing: POST only, answers JSON, never writes.
    "cards_translate_check": (Need(perms("change", models=[Translation]),
                                   perms("change", models=[Translation]), False,
                                   statuses={"GET": 405}),
                              lambda w, su: {"unit": w.dismiss_unit, "text": "Kleiderschrank!"}),
    "cards_po_download": (Need(TRANSLATIONS_VIEW, TRANSLATIONS_VIEW, False), lambda w, su: {}),
    "cards_po_upload": (Need(perms("change", models=[Translation]), TRANSLATIONS_WRITE, True),
                        _po_payload),
    # The overview only shows; publishing is the review page's confirmed form.
    "exports_publish": (Need(PUBLISH, PUBLISH, False, statuses={"POST": 405}),
                        lambda w, su: {"game": "sauschwer", "language": "en"}),
    "exports_publish_review": (Need(PUBLISH, PUBLISH, True), _publish_payload),
    "exports_print": (Need(perms("change", models=SAUSCHWER), perms("change", models=SAUSCHWER),
                           False), _print_payload),
    # a background deck's page and its file (queued in the world: no file yet, 404)
    "exports_job": (Need(perms("change", models=SAUSCHWER), perms("change", models=SAUSCHWER),
                         False), lambda w, su: {}),
    "exports_job_download": (Need(perms("change", models=SAUSCHWER),
                                  perms("change", models=SAUSCHWER), False,
                                  statuses={"GET": 404, "POST": 404}), lambda w, su: {}),
}


def admin_routes() -> list[tuple[str, str | None]]:
    """Every URL pattern under the admin namespace: (route text, name)."""
    found: list[tuple[str, str | None]] = []

    def walk(resolver: URLResolver, prefix: str, inside: bool) -> None:
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                walk(entry, prefix + str(entry.pattern), inside or entry.namespace == "admin")
            elif isinstance(entry, URLPattern) and inside:
                found.append((prefix + str(entry.pattern), entry.name))

    walk(get_resolver(), "", False)
    return found


ROUTES = admin_routes()


def filler(world: World | None, model: type[Model] | None) -> Callable[[str], str]:
    """Fills a route's arguments with real values: the model's object, its first version,
    a game and language, a content type (see module docstring)."""

    def fill(route: str) -> str:
        obj = world.target[model] if world and model else None
        values = {
            "object_id": str(obj.pk) if obj else "1", "id": str(obj.pk) if obj else "1",
            "game": "sauschwer", "language": "en", "app_label": "cards",
            "content_type_id": str(ContentType.objects.get_for_model(ConceptCard).pk),
            "url": "nothing-here/", "pk": str(world.job) if world else "1",
            "key": str(getattr(obj, "key", "")) or "none",
        }
        if world and model is None and "content_type_id" in route:
            values["object_id"] = str(ConceptCard.objects.first().pk)
        positional = [values["object_id"], str(world.first_version.get(model, 0)) if world else "0"]
        url = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: values[m.group(1)], route)
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m.group(1)], url)
        url = re.sub(r"\([^)]*\)", lambda m: positional.pop(0), url)
        return "/" + url.replace("^", "").replace("$", "")

    return fill


def build_case(world: World, route: str, name: str | None) -> Case:
    for model, model_admin in _registered().items():
        base = f"admin/{model._meta.app_label}/{model._meta.model_name}/"
        if route.startswith(base):
            info = f"{model._meta.app_label}_{model._meta.model_name}_"
            kind = name[len(info):] if name and name.startswith(info) else "object"
            return model_case(route, kind, model, model_admin, filler(world, model))
    key = name or ("catch_all" if route.endswith("(?P<url>.*)$") else route)
    if key not in PAGES:
        raise AssertionError(
            f"The admin page {route} ({name}) is in no row of the README's roles table: add "
            "what it needs to PAGES here and, if it is a new capability, a row to the table.")
    need, payload = PAGES[key]
    url = filler(world, None)(route)
    if key == "autocomplete":
        url += "?app_label=cards&model_name=signcard&field_name=colour&term=r"
    if key == "cards_dismiss":
        url += f"?unit={world.dismiss_unit}&check=unchanged"
    return Case(route, url, need, payload)


# --- the snapshot ------------------------------------------------------------------------------


def snapshot_tables() -> tuple[list[str], list[tuple[str, str]]]:
    """(tables compared row by row, append-only tables compared by count and last id):
    content, translations and their history, play rooms, users and groups; releases and their pictures
    (which the database itself keeps from changing)."""
    full = [m._meta.db_table for label in ("cards", "games")
            for m in apps.get_app_config(label).get_models()]
    full += [Group._meta.db_table, Group.permissions.through._meta.db_table,
             User.groups.through._meta.db_table]
    full += [WebhookEndpoint._meta.db_table]  # endpoints change in place
    append_only = [(m._meta.db_table, m._meta.pk.column)
                   for m in apps.get_app_config("exports").get_models() if m is not WebhookEndpoint]
    return full, append_only


FULL_TABLES, APPEND_ONLY_TABLES = snapshot_tables()


def snapshot() -> dict[str, tuple[int, str]]:
    """Per table: the number of rows and a checksum of all of them."""
    result = {}
    with connection.cursor() as cursor:
        for table in FULL_TABLES:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)} ORDER BY 1")
            rows = cursor.fetchall()
            result[table] = (len(rows), sha256(repr(rows).encode()).hexdigest())
        for table, pk in APPEND_ONLY_TABLES:
            cursor.execute(f"SELECT COUNT(*), MAX({connection.ops.quote_name(pk)}) "
                           f"FROM {connection.ops.quote_name(table)}")
            count, last = cursor.fetchone()
            result[table] = (count, str(last))
        # Users without last_login, which every login changes.
        cursor.execute("SELECT id, username, password, first_name, is_staff, is_superuser, "
                       "is_active FROM auth_user ORDER BY id")
        rows = cursor.fetchall()
        result["auth_user"] = (len(rows), sha256(repr(rows).encode()).hexdigest())
    return result


# --- the matrix -------------------------------------------------------------------------------


def client_for(world: World, role: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    for name, value in world.sessions[role].items():
        client.cookies[name] = value
    client.cookies[settings.CSRF_COOKIE_NAME] = CSRF_TOKEN
    return client


def expected(role: str, need: frozenset[str] | str) -> bool:
    """Whether the README table lets the role through."""
    if need == PUBLIC:
        return True
    if need == NEVER or role in ("non-staff", "anonymous"):
        return False
    if role == "superuser":
        return True
    return need <= role_permissions(role)  # type: ignore[operator]


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



# --- the bulk approving tools: approving is review, the reviewer's permission ---------------


def _approve_page_payload(world: World, su: Client) -> dict[str, Any]:
    return {**page_form(su, "/admin/cards/translate/sauschwer/en/"),
            "approve_page": "Approve this page"}


def _approve_selected_payload(world: World, su: Client) -> dict[str, Any]:
    translated = Translation.objects.filter(language="en", state="translated").exclude(text="")
    return {"action": "approve_selected", "index": "0",
            "_selected_action": list(translated.values_list("pk", flat=True)[:5])}


BULK_TOOLS: dict[str, tuple[str, Callable[[World, Client], dict[str, Any]]]] = {
    "the editor's Approve this page": ("/admin/cards/translate/sauschwer/en/", _approve_page_payload),
    "the Translations list's Approve selected": ("/admin/cards/translation/",
                                                 _approve_selected_payload),
}


@pytest.mark.parametrize("tool", BULK_TOOLS)
def test_every_role_may_approve_as_the_readme_table_says(world, db, tool):
    """Approving is review: Curators (who hold ``approve_translation``) may, Translators and
    Viewers may not, also by a forged POST."""
    _PAGES.clear()
    url, payload = BULK_TOOLS[tool]
    su = client_for(world, "superuser")
    problems = []
    for role in CLIENT_ROLES:
        with transaction.atomic():
            data = payload(world, su)
            assert data.get("_selected_action", True), "nothing translated to approve"
            before = snapshot()
            response = client_for(world, role).post(url, {**data, "csrfmiddlewaretoken": CSRF_TOKEN})
            wrote = before != snapshot()
            transaction.set_rollback(True)
        allowed = expected(role, TRANSLATIONS_WRITE | TRANSLATIONS_APPROVE)
        where = f"{role} POST {url}: {response.status_code}"
        if role in ("non-staff", "anonymous"):
            if response.status_code != 302 or not response["Location"].startswith("/admin/login/"):
                problems.append(f"{where}, expected the login page")
        elif allowed != wrote or response.status_code != (302 if allowed else 403):
            problems.append(f"{where}, wrote: {wrote}; the README table says "
                            f"{'yes' if allowed else 'no'}")
        if wrote and not allowed:
            problems.append(f"{where}: refused but wrote")
    assert not problems, "\n".join(problems)


# --- approving through a file: the Translations list's import -------------------------------


def _approved_file(world: World) -> Any:
    """The world's translated egg, its text changed and marked approved, as its kind's file."""
    egg = SauschwerObject.objects.get(key=world.po_entry.split(":", 1)[0])
    row = egg.translation("name", "en")
    assert row.state == "translated"
    upload = io.BytesIO(
        f"key,field,language,text,state\n{egg.key},name,en,{row.text} (neu),approved\n".encode())
    upload.name = "approved.csv"
    return upload


def _import_as(world: World, role: str, su: Client) -> tuple[int, int]:
    """Preview and confirm the approved file as ``role``: (preview status, confirm status).
    A role the preview refuses confirms a preview the superuser made (a forged confirm)."""
    model_admin = _registered()[Translation]
    labels: dict[str, Any] = {}
    form = page_form(su, "/admin/cards/translation/import/", labels)
    egg = SauschwerObject.objects.get(key=world.po_entry.split(":", 1)[0])
    index, _resource = translation_resource_of(model_admin, egg.translation("name", "en"))
    data = {**form, "resource": str(index), "import_file": _approved_file(world),
            "format": next(v for v, label in labels["format"] if label.lower() == "csv"),
            "csrfmiddlewaretoken": CSRF_TOKEN}
    client = client_for(world, role)
    preview = client.post("/admin/cards/translation/import/", data)
    page = preview.content.decode() if preview.status_code == 200 else ""
    if 'name="import_file_name"' not in page:
        data["import_file"] = _approved_file(world)
        page = su.post("/admin/cards/translation/import/", data).content.decode()
    reader = FormReader()
    reader.feed(page)
    confirm = next(f for f in reader.forms if any(n == "import_file_name" for n, _ in f))
    fields = {n: v for n, v in confirm if n != "csrfmiddlewaretoken"}
    done = client.post("/admin/cards/translation/process_import/",
                       {**fields, "csrfmiddlewaretoken": CSRF_TOKEN})
    return preview.status_code, done.status_code


def test_every_role_imports_an_approved_row_as_the_readme_table_says(world, db):
    """A file that says *approved*: a reviewer's import approves (Curators), a Translator's is
    saved as *translated*, everyone else is refused and nothing is written."""
    _PAGES.clear()
    su = client_for(world, "superuser")
    egg = SauschwerObject.objects.get(key=world.po_entry.split(":", 1)[0])
    problems = []
    for role in CLIENT_ROLES:
        with transaction.atomic():
            text = egg.translation("name", "en").text
            before = snapshot()
            preview, confirm = _import_as(world, role, su)
            wrote = before != snapshot()
            row = egg.translation("name", "en")
            got = (row.text, row.state)
            transaction.set_rollback(True)
        where = f"{role}: preview {preview}, confirm {confirm}, {got}"
        may_import = expected(role, TRANSLATIONS_WRITE)
        may_approve = expected(role, TRANSLATIONS_WRITE | TRANSLATIONS_APPROVE)
        if role in ("non-staff", "anonymous"):
            if (preview, confirm) != (302, 302) or wrote:
                problems.append(f"{where}, expected the login page and no write")
        elif not may_import:
            if (preview, confirm) != (403, 403) or wrote:
                problems.append(f"{where}, expected 403 twice and no write")
        elif (preview, confirm) != (200, 302) or got != (
                f"{text} (neu)", "approved" if may_approve else "translated"):
            problems.append(f"{where}; the README table says approve: "
                            f"{'yes' if may_approve else 'no'}")
    assert not problems, "\n".join(problems)
