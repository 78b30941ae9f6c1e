"""The admin site: the cards app's models grouped by game, the way curators think of them."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse

# model name -> section of the index page, in the order the sections appear
SECTIONS = {
    "Sag's mit Symbolen": ["conceptcard", "symboltile"],
    "Sign": ["signsymbol", "signcolour", "signcard"],
    "Slogan": ["slogancard", "slogan", "alfonscard"],
    "Sauschwer": ["sauschwerobject"],
    "Translations": ["translation"],
}


class KartothekAdminSite(admin.AdminSite):
    site_header = "Kartothek"
    site_title = "Kartothek"
    index_title = "The cards of four party games"

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[dict]:
        apps = super().get_app_list(request, app_label)
        cards = next((app for app in apps if app["app_label"] == "cards"), None)
        if cards is None:
            return apps
        by_name = {model["object_name"].lower(): model for model in cards["models"]}
        sections = []
        for title, names in SECTIONS.items():
            models = [by_name.pop(name) for name in names if name in by_name]
            if models:
                sections.append({**cards, "name": title, "models": models})
        if by_name:
            sections.append({**cards, "models": list(by_name.values())})
        if request.user.has_perm("cards.change_conceptcard"):
            sections.append({
                **cards,
                "name": "History",
                "models": [{
                    "name": "Deleted cards", "object_name": "DeletedCard",
                    "admin_url": reverse("admin:cards_deleted"), "add_url": None,
                    "view_only": True, "perms": {"view": True},
                }],
            })
        position = apps.index(cards)
        return apps[:position] + sections + apps[position + 1:]


    def get_urls(self):  # type: ignore[no-untyped-def]
        return [
            path("cards/deleted/", self.admin_view(self.deleted_cards_view), name="cards_deleted"),
            *super().get_urls(),
        ]

    def deleted_cards_view(self, request: HttpRequest) -> HttpResponse:
        """Deleted cards, newest first, each linked to its history (where it is restored)."""
        from django.core.exceptions import PermissionDenied

        from cards.history import deleted_cards

        if not request.user.has_perm("cards.change_conceptcard"):
            raise PermissionDenied
        rows = [
            {
                "card": card,
                "kind": card.model._meta.verbose_name,
                "history_url": reverse(
                    f"admin:cards_{card.model._meta.model_name}_history", args=[card.pk]
                ),
            }
            for card in deleted_cards()
        ]
        context = {**self.each_context(request), "title": "Deleted cards", "rows": rows}
        return TemplateResponse(request, "admin/cards/deleted.html", context)


class KartothekAdminConfig(AdminConfig):
    default_site = "kartothek.admin.KartothekAdminSite"
