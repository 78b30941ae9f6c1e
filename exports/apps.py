from django.apps import AppConfig


class ExportsConfig(AppConfig):
    name = "exports"
    verbose_name = "Packs and print"

    def ready(self) -> None:
        # django-tasks-db registers its raw task table in the admin; curators follow their
        # decks on the job pages (exports/print_views.py), and the README's roles table
        # covers every admin page, so the raw table stays out.
        from django.contrib import admin
        from django_tasks_db.models import DBTaskResult

        if admin.site.is_registered(DBTaskResult):
            admin.site.unregister(DBTaskResult)
        # the signing key's system check; webhooks announce every new release, and their
        # admin pages (after the admin's autodiscover, before any URL is resolved)
        from exports import signing, webhooks, webhooks_admin  # noqa: F401
        from kartothek import deploy_checks  # noqa: F401  (check --deploy: no example secrets)
