"""The matrix's cases: what each admin page needs for GET and POST, and what an allowed POST sends."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import polib
from django.contrib import admin
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db.models import Model, ProtectedError
from django.db.models.deletion import Collector
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver

from cards.models import (
    CheckDismissal,
    ConceptCard,
    SignColour,
    Slogan,
    SloganCard,
    SloganOption,
    Translation,
)
from cards.po import export_po
from common.permissions import permission
from exports.models import Release, WebhookDelivery
from tests.permission_matrix.forms import FormReader, as_new, changed, page_form
from tests.permission_matrix.rows import (
    CONTENT,
    CSRF_TOKEN,
    NEW_PASSWORD,
    PASSWORD,
    STAFF,
    perms,
    role_permissions,
)
from tests.permission_matrix.world import World, _registered


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


def expected(role: str, need: frozenset[str] | str) -> bool:
    """Whether the README table lets the role through."""
    if need == PUBLIC:
        return True
    if need == NEVER or role in ("non-staff", "anonymous"):
        return False
    if role == "superuser":
        return True
    return need <= role_permissions(role)  # type: ignore[operator]
