"""Every write checks its permission, in the view that writes.

The README's roles table (section *Roles*) says who may do what; this module is where the
admin enforces the parts that Django's own model admin does not:

- a **revert** from a card's history (django-simple-history's ``history_form_view``) saves
  the posted form; the library only checks *view* permission there, so we require the
  model's *change* permission for a POST, and *add* as well when the object no longer exists
  (reverting a deleted card re-creates it);
- a **list action** that the user may not run is refused with 403 (Django would only say
  "No action selected" and show the list again);
- an **import** creates and updates rows: it needs *add* and *change*;
- **printing** a game's deck (the print page, the *Print selected cards* action) needs the
  change permission of every content type of that game — what Curators have;
- reading a game's **draft** pack (``/api/packs/GAME/LANG/draft.json``) needs the view
  permission of every content type of that game.

Custom admin pages declare what they need with :func:`requires`, so the rule stands beside
the view it guards; tests/test_permission_matrix.py holds every admin URL to the README table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.contrib.admin.utils import unquote
from django.contrib.auth import get_permission_codename
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Model
from django.http import Http404, HttpRequest, HttpResponse

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def permission(action: str, model: type[Model]) -> str:
    """``app_label.action_modelname``, the way Django names a model permission."""
    opts = model._meta
    return f"{opts.app_label}.{get_permission_codename(action, opts)}"


def game_models(game: str) -> list[type[Model]]:
    """Every content type whose rows end up in the game's pack (slogan options included)."""
    from cards.models import CONTENT_MODELS, TRANSLATABLE_MODELS

    models: list[type[Model]] = []
    for model in (*CONTENT_MODELS, *TRANSLATABLE_MODELS):
        if getattr(model, "GAME", None) == game and model not in models:
            models.append(model)
    return models


def print_permissions(game: str) -> list[str]:
    """Printing a deck is for the people who may change its cards (Curators)."""
    return [permission("change", model) for model in game_models(game)]


def draft_permissions(game: str) -> list[str]:
    """A draft shows unpublished content: whoever may see every card of the game."""
    return [permission("view", model) for model in game_models(game)]


def has_all(request: HttpRequest, perms: Iterable[str]) -> bool:
    user = request.user
    return bool(user.is_active) and all(user.has_perm(perm) for perm in perms)


def require(request: HttpRequest, perms: Iterable[str]) -> None:
    perms = list(perms)
    if not has_all(request, perms):
        from kartothek.forbidden import MissingPermissions

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


class WriteChecks:
    """Mixed into every model admin of the project, before the library admins."""

    # --- history: a revert writes, so it needs what the change form needs -------------------

    def history_form_view(self, request: HttpRequest, object_id: str, version_id: str,
                          extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method not in SAFE_METHODS:
            model = self.model  # type: ignore[attr-defined]
            try:
                current = model._default_manager.filter(pk=unquote(object_id)).first()
            except (ValueError, ValidationError):
                raise Http404("No such object.") from None
            if current is None:
                # Bringing a deleted object back creates it again.
                require(request, [permission("add", model), permission("change", model)])
            elif not self.has_change_permission(request, current):  # type: ignore[attr-defined]
                raise PermissionDenied
        return super().history_form_view(  # type: ignore[misc]
            request, object_id, version_id, extra_context)

    # --- list actions -----------------------------------------------------------------------

    def changelist_view(self, request: HttpRequest,
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if request.method == "POST":
            allowed = self.get_actions(request)  # type: ignore[attr-defined]
            # An action hidden from this user (delete, print, publish …) sent anyway.
            if any(action and action not in allowed for action in request.POST.getlist("action")):
                raise PermissionDenied
        return super().changelist_view(request, extra_context)  # type: ignore[misc]

    # --- imports and printing ---------------------------------------------------------------

    def has_import_permission(self, request: HttpRequest) -> bool:
        model = self.model  # type: ignore[attr-defined]
        return has_all(request, [permission("add", model), permission("change", model)])

    def has_print_permission(self, request: HttpRequest) -> bool:
        game = getattr(self.model, "GAME", None)  # type: ignore[attr-defined]
        return game is not None and has_all(request, print_permissions(game))
