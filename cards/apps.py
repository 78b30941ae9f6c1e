"""The cards app: groups and their permissions after each migrate, stored translation check
findings kept up to date by signals."""

from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


class CardsConfig(AppConfig):
    name = "cards"
    verbose_name = "Cards"

    def ready(self) -> None:
        from cards import findings
        from cards.roles import on_post_migrate

        # The groups hold permissions of all three apps: refresh them once each app's own
        # post_migrate handlers have created its permissions.
        for label in ("cards", "exports", "games"):
            post_migrate.connect(on_post_migrate, sender=apps.get_app_config(label),
                                 dispatch_uid=f"groups-after-{label}")
        # Stored translation check findings follow every change they depend on.
        findings.connect_signals()
        post_migrate.connect(findings.on_post_migrate, sender=self, dispatch_uid="findings-rebuild")
