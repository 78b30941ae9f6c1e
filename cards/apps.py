from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CardsConfig(AppConfig):
    name = "cards"
    verbose_name = "Cards"

    def ready(self) -> None:
        from cards.roles import on_post_migrate

        # After the cards app's own post_migrate (which creates its permissions).
        post_migrate.connect(on_post_migrate, sender=self, dispatch_uid="cards-groups")
