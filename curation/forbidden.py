"""The 403 page: says who the user is, what the page needs and which role holds it.

Permission checks that know what they miss (``common.permissions.require``) raise
``PermissionDenied(MissingPermissions(...))``; the page then names those permissions and
the groups that hold them. The admin's own refusals carry nothing, and the page says which
roles exist. API paths keep answering JSON (a client reads no page).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.models import Group, Permission
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse

from common.permissions import MissingPermissions


def _needed(exception: Exception | None) -> list[dict[str, Any]]:
    missing = next((arg for arg in getattr(exception, "args", ()) if isinstance(arg, MissingPermissions)), ())
    rows = []
    for name in missing:
        app_label, _, codename = name.partition(".")
        found = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
        groups = (sorted(Group.objects.filter(permissions=found).values_list("name", flat=True))
                  if found else [])
        rows.append({"name": found.name if found else name, "groups": groups})
    return rows


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"error": "You may not do this."}, status=403)
    user = request.user
    context = {
        **(admin.site.each_context(request) if getattr(user, "is_staff", False) else {}),
        "title": "You may not open this page",
        "needed": _needed(exception),
        "groups": sorted(user.groups.values_list("name", flat=True)) if user.is_authenticated else [],
        "roles": sorted(Group.objects.values_list("name", flat=True)),
    }
    template = "admin/403.html" if getattr(user, "is_staff", False) else "403.html"
    response = TemplateResponse(request, template, context, status=403)
    return response.render()
