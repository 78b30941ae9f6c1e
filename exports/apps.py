from django.apps import AppConfig


class ExportsConfig(AppConfig):
    name = "exports"
    verbose_name = "Packs and print"

    def ready(self) -> None:
        from exports import signing  # noqa: F401  (registers the signing key's system check)
