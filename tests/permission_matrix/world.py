"""The world the matrix runs in: one user per role, with a session each, and an object per admin."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import User
from django.db.models import Model
from django.test import Client

from tests.permission_matrix.rows import CSRF_TOKEN

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


# --- the matrix -------------------------------------------------------------------------------


def client_for(world: World, role: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    for name, value in world.sessions[role].items():
        client.cookies[name] = value
    client.cookies[settings.CSRF_COOKIE_NAME] = CSRF_TOKEN
    return client
