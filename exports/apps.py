"""The exports app: packs and releases, print, previews, webhooks. When Django starts it adds
its rules to the content model's (cards) registries: the *does not fit* translation check and
the check of the published Slogan decks."""

from django.apps import AppConfig


class ExportsConfig(AppConfig):
    name = "exports"
    verbose_name = "Packs and print"

    def ready(self) -> None:
        # the signing key's system check; webhooks announce every new release
        from cards.checks import register_fit_check
        from cards.validation import register_market_rule
        from common import deploy_checks  # noqa: F401  (check --deploy: no example secrets)
        from exports import signing, webhooks  # noqa: F401
        from exports.preview import fit_problem
        from exports.release_checks import released_market_problems

        # the content rules measure with the print layout and look at what was published
        register_fit_check(fit_problem)
        register_market_rule(released_market_problems)
