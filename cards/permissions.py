"""What a game's pages need: the permissions of every content type whose rows end up in its pack.

- **printing** a game's deck (the print page, the *Print selected cards* action) needs the
  change permission of every content type of that game — what Curators have;
- reading a game's **draft** pack (``/api/packs/GAME/LANG/draft.json``) needs the view
  permission of every content type of that game.
"""

from __future__ import annotations

from django.db.models import Model

from common.permissions import permission


def game_models(game: str) -> list[type[Model]]:
    """Every content type whose rows end up in the game's pack (slogan options included)."""
    # imported when first used: the admin site (curation/site.py) imports this module while
    # Django is still loading the apps
    from cards.models import CONTENT_MODELS, TRANSLATABLE_MODELS

    models: list[type[Model]] = []
    for model in (*CONTENT_MODELS, *TRANSLATABLE_MODELS):
        if getattr(model, "GAME", None) == game and model not in models:
            models.append(model)
    return models


def print_permissions(game: str) -> list[str]:
    """Printing a deck is for the people who may change its cards (Curators)."""
    return [permission("change", model) for model in game_models(game)]


def draft_permissions(game: str) -> list[str]:
    """A draft shows unpublished content: whoever may see every card of the game."""
    return [permission("view", model) for model in game_models(game)]
