"""Every model admin of the project, registered when Django's admin autodiscovers this module:
the content types and translations, the glossary and dismissed checks, the brand owners,
releases, webhooks and rooms."""

from curation import (  # noqa: F401
    brand_admin,
    game_admins,
    glossary_admin,
    release_admin,
    room_admin,
    slogan_admin,
    translation_admin,
    webhook_admin,
)
