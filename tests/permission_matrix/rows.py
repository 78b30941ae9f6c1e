"""The README's roles table as data: the roles, its rows and the permissions each row stands for."""

from __future__ import annotations

from pathlib import Path

from django.apps import apps
from django.contrib.auth.models import Group, User
from django.db.models import Model

from cards.models import CheckDismissal, GlossaryTerm, Translation
from common.permissions import permission
from exports.models import Release, WebhookDelivery, WebhookEndpoint
from games.models import Room

README = Path(__file__).resolve().parents[2] / "README.md"
MINI = Path(__file__).resolve().parents[1] / "data" / "mini"
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
    "approve translations (review: *Approve this page*, *Approve anyway*, *Approve selected*, "
    "the *approved* state, also in an imported file)": perms("approve", models=[Translation]),
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
