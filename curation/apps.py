"""The curation app: holds no models; its admin module registers every model admin."""

from django.apps import AppConfig


class CurationConfig(AppConfig):
    name = "curation"
    verbose_name = "Curation"

    def ready(self) -> None:
        # django-tasks-db registers its raw task table in the admin; curators follow their
        # decks on the job pages (curation/print_pages.py), and the README's roles table
        # covers every admin page, so the raw table stays out (the admin's autodiscover,
        # first in INSTALLED_APPS, has registered it by now).
        from django.contrib import admin
        from django_tasks_db.models import DBTaskResult

        if admin.site.is_registered(DBTaskResult):
            admin.site.unregister(DBTaskResult)
