"""The three roles of the admin: Curators edit all content (and publish releases),
Translators only translations, Viewers read everything and change nothing.

The groups are created by migration 0002 and kept in place after every ``migrate`` and
``flush`` (post_migrate), so a database emptied by ``flush`` still has them.
"""

from __future__ import annotations

from typing import Any

CONTENT_MODELS = [
    "conceptcard", "symboltile", "signsymbol", "signcolour", "signcard",
    "slogancard", "slogan", "sloganoption", "alfonscard", "sauschwerobject",
    "brandownership",  # the brand owners the Slogan option checks read: edited like content
]
# The translation checks' glossary and dismissed findings: everyone who sees translations
# sees them; only Curators (who hold every cards permission) edit the glossary and dismiss.
CHECK_MODELS = ["glossaryterm", "checkdismissal"]
TRANSLATOR_PERMISSIONS = [f"view_{name}" for name in CONTENT_MODELS + CHECK_MODELS] + [
    "view_translation", "add_translation", "change_translation",
]

# Read-only: every content type, translations and releases (their view permissions also
# open the draft packs, the progress page and the PO downloads).
VIEWER_PERMISSIONS = [f"view_{name}" for name in CONTENT_MODELS + CHECK_MODELS] + [
    "view_translation"]


def ensure_groups(group_model: Any, permission_model: Any) -> None:
    """Create or repair the groups; takes the models so a migration can pass its own."""
    cards = permission_model.objects.filter(content_type__app_label="cards")
    releases = permission_model.objects.filter(
        content_type__app_label="exports", codename__in=["view_release", "add_release"]
    )
    # Play rooms: Curators see them (playtests, what players met) and may delete stale ones;
    # rooms change only through play.
    rooms = permission_model.objects.filter(
        content_type__app_label="games", codename__in=["view_room", "delete_room"]
    )
    # Webhooks (exports/webhooks.py): Curators register endpoints (their URLs and secrets are
    # for them alone) and follow and resend deliveries; Viewers and Translators see none.
    webhooks = permission_model.objects.filter(
        content_type__app_label="exports",
        codename__in=["view_webhookendpoint", "add_webhookendpoint", "change_webhookendpoint",
                      "delete_webhookendpoint", "view_webhookdelivery"],
    )
    curators, _ = group_model.objects.get_or_create(name="Curators")
    curators.permissions.set([*cards, *releases, *rooms, *webhooks])
    translators, _ = group_model.objects.get_or_create(name="Translators")
    translators.permissions.set(cards.filter(codename__in=TRANSLATOR_PERMISSIONS))
    viewers, _ = group_model.objects.get_or_create(name="Viewers")
    viewers.permissions.set([*cards.filter(codename__in=VIEWER_PERMISSIONS),
                             *releases.filter(codename="view_release")])


def on_post_migrate(sender: Any, **kwargs: Any) -> None:
    from django.contrib.auth.models import Group, Permission

    ensure_groups(Group, Permission)
