"""Template tags for card previews (exports/preview.py): the URL of a text's card preview
(the translation editor's rows) and the two previews of the publish page's visual diff."""

from __future__ import annotations

from typing import Any

from django import template
from django.db.models import Model
from django.urls import NoReverseMatch, reverse

from exports import preview

register = template.Library()


def _card_owner(obj: Model) -> Model | None:
    """The object whose admin previews ``obj``'s card: itself, or an option's slogan."""
    if hasattr(obj, "key"):
        return obj
    slogan = getattr(obj, "slogan", None)  # a slogan's answer option
    return slogan if slogan is not None and hasattr(slogan, "key") else None


@register.simple_tag
def card_preview_src(obj: Model, language: str, side: str = "front") -> str:
    """The preview URL of the card ``obj`` is (or is part of), in ``language``; "" if none."""
    owner = _card_owner(obj)
    if owner is None or not owner.pk:
        return ""
    opts = owner._meta
    try:
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_card_preview",
                      args=[language, owner.key])  # type: ignore[attr-defined]
    except NoReverseMatch:
        return ""
    return f"{url}?side={side}"


@register.simple_tag
def card_pair(game: str, language: str, key: str, release: int | str | None) -> dict[str, Any]:
    """The URLs of a card as it was in ``release`` and as it is now (front and back); a side
    is None where the card did not exist (added since) or does not any more (removed)."""
    number = int(release) if release not in (None, "") else None
    then = preview.group_of_key(game, key, number, language) if number is not None else None
    now = preview.group_of_key(game, key, None)

    def urls(group: str | None, at: int | None) -> dict[str, str] | None:
        if group is None:
            return None
        return {side: preview.preview_url(game, language, key, release=at, side=side, group=group)
                for side in preview.SIDES}

    return {"old": urls(then, number), "new": urls(now, None), "release": number,
            "width": preview.DEFAULT_WIDTH // 2, "height": preview.height_for(preview.DEFAULT_WIDTH // 2)}
