"""The admin site: the cards app's models grouped by game, the way curators think of them."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest

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
        position = apps.index(cards)
        return apps[:position] + sections + apps[position + 1:]


class KartothekAdminConfig(AdminConfig):
    default_site = "kartothek.admin.KartothekAdminSite"
