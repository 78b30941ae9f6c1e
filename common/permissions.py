"""Permission checks that stand beside the view they guard: one job, say what a request lacks.

:func:`permission` names a model permission the way Django does; :func:`has_all` and
:func:`require` check a request against a list of them, and :func:`requires` declares what a
custom admin page needs to open (GET) and to send (POST). A refusal raises
``PermissionDenied(MissingPermissions(...))``, so the 403 page (curation/forbidden.py) can name
what was missing and which roles hold it.

Which permissions a game's printing or draft needs lives with the content model
(cards/permissions.py); the model admins' write checks live with the admin
(curation/write_checks.py). The README's roles table (section *Roles*) says who may do what;
tests/permission_matrix/ holds every admin URL to it.
"""


from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.contrib.auth import get_permission_codename
from django.core.exceptions import PermissionDenied
from django.db.models import Model
from django.http import HttpRequest, HttpResponse


class MissingPermissions(tuple):  # type: ignore[type-arg]
    """The permissions ("app.codename") a refused request lacked."""


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def permission(action: str, model: type[Model]) -> str:
    """``app_label.action_modelname``, the way Django names a model permission."""
    opts = model._meta
    return f"{opts.app_label}.{get_permission_codename(action, opts)}"


def has_all(request: HttpRequest, perms: Iterable[str]) -> bool:
    user = request.user
    return bool(user.is_active) and all(user.has_perm(perm) for perm in perms)


def require(request: HttpRequest, perms: Iterable[str]) -> None:
    perms = list(perms)
    if not has_all(request, perms):
        user = request.user
        raise PermissionDenied(MissingPermissions(p for p in perms if not user.has_perm(p)))


PageView = Callable[..., HttpResponse]


def requires(get: Iterable[str] = (), post: Iterable[str] = ()) -> Callable[[PageView], PageView]:
    """A custom admin page: ``get`` is needed to open it, ``post`` on top of it to send it."""

    def decorate(view: PageView) -> PageView:
        @wraps(view)
        def wrapper(site: Any, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            needed = list(get)
            if request.method not in SAFE_METHODS:
                needed += post
            require(request, needed)
            return view(site, request, *args, **kwargs)

        return wrapper

    return decorate
