"""The admin site: the cards app's models grouped by game, the way curators think of them."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest
from django.urls import path, reverse

from cards.permissions import print_permissions
from common.permissions import has_all

# model name -> section of the index page, in the order the sections appear
SECTIONS = {
    "Sag's mit Symbolen": ["conceptcard", "symboltile"],
    "Sign": ["signsymbol", "signcolour", "signcard"],
    "Slogan": ["slogancard", "slogan", "alfonscard", "brandownership"],
    "Sauschwer": ["sauschwerobject"],
    "Translations": ["translation", "glossaryterm", "checkdismissal"],
}


GAME_OF_SECTION = {
    "Sag's mit Symbolen": "symbols", "Sign": "sign", "Slogan": "slogan", "Sauschwer": "sauschwer",
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
                game = GAME_OF_SECTION.get(title)
                if game and has_all(request, print_permissions(game)):
                    models.append(self._link("Print deck (PDF)", "admin:exports_print", game))
                sections.append({**cards, "name": title, "models": models})
        if by_name:
            sections.append({**cards, "models": list(by_name.values())})
        translations = next((s for s in sections if s["name"] == "Translations"), None)
        if translations is not None:
            translations["models"].insert(0, self._link("Progress and editor", "admin:cards_progress"))
        if request.user.has_perm("cards.change_conceptcard"):
            sections.append({
                **cards,
                "name": "History",
                "models": [self._link("Deleted cards", "admin:cards_deleted")],
            })
        exports = next((app for app in apps if app["app_label"] == "exports"), None)
        if exports is not None and request.user.has_perm("exports.add_release"):
            exports["models"].append(self._link("Publish content packs", "admin:exports_publish"))
        position = apps.index(cards)
        return apps[:position] + sections + apps[position + 1:]

    def app_index(self, request: HttpRequest, app_label: str, extra_context: Any = None) -> Any:
        # The page of an app ("Cards" in the breadcrumbs) is titled by the app, not by its first
        # section: the cards app's page was "Sag's mit Symbolen administration".
        from django.apps import apps as registry

        try:
            name = str(registry.get_app_config(app_label).verbose_name)
        except LookupError:
            name = app_label
        context = {"title": name, **(extra_context or {})}
        return super().app_index(request, app_label, context)

    @staticmethod
    def _link(name: str, url_name: str, *args: str) -> dict:
        return {
            "name": name, "object_name": name.replace(" ", ""),
            "admin_url": reverse(url_name, args=args),
            "add_url": None, "view_only": True, "perms": {"view": True},
        }

    def get_urls(self):  # type: ignore[no-untyped-def]
        from curation import editor_live, print_pages
        from curation import translation_pages as views
        from curation.release_admin import publish_view, review_view

        def page(view):  # type: ignore[no-untyped-def]
            return self.admin_view(lambda request, **kwargs: view(self, request, **kwargs))

        return [
            path("cards/deleted/", page(views.deleted_view), name="cards_deleted"),
            path("cards/progress/", page(views.progress_view), name="cards_progress"),
            path(
                "cards/translate/<str:game>/<str:language>/",
                page(views.translate_view),
                name="cards_translate",
            ),
            path("cards/translate/<str:game>/<str:language>/check/", page(editor_live.check_view),
                 name="cards_translate_check"),
            path("cards/dismiss/<str:game>/<str:language>/", page(views.dismiss_view),
                 name="cards_dismiss"),
            path("exports/publish/", page(publish_view), name="exports_publish"),
            path("exports/publish/<str:game>/<str:language>/", page(review_view),
                 name="exports_publish_review"),
            path("exports/print/<str:game>/", page(print_pages.print_view), name="exports_print"),
            path("exports/job/<int:pk>/", page(print_pages.job_view), name="exports_job"),
            path("exports/job/<int:pk>/download/", page(print_pages.job_download),
                 name="exports_job_download"),
            path("cards/po/<str:game>/<str:language>/download/", page(views.po_download_view),
                 name="cards_po_download"),
            path("cards/po/<str:game>/<str:language>/upload/", page(views.po_upload_view),
                 name="cards_po_upload"),
            *super().get_urls(),
        ]


class KartothekAdminConfig(AdminConfig):
    default_site = "curation.site.KartothekAdminSite"
