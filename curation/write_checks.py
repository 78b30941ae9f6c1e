"""The write checks of every model admin: what Django's own model admin does not enforce.

- a **revert** from a card's history (django-simple-history's ``history_form_view``) saves
  the posted form; the library only checks *view* permission there, so we require the
  model's *change* permission for a POST, and *add* as well when the object no longer exists
  (reverting a deleted card re-creates it);
- a **list action** that the user may not run is refused with 403 (Django would only say
  "No action selected" and show the list again);
- an **import** creates and updates rows: it needs *add* and *change*;
- **printing** needs what ``cards.permissions.print_permissions`` names for the model's game.
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse

from cards.permissions import print_permissions
from common.permissions import SAFE_METHODS, has_all, permission, require


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
