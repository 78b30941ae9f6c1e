"""Template helpers of the play pages: assets served by the app itself, actions as JSON."""

from __future__ import annotations

import hashlib
from functools import lru_cache

from django import template
from django.urls import reverse

from games.assets import ASSETS
from games.pages import LANGUAGES

register = template.Library()



@lru_cache(maxsize=16)
def _version(name: str, mtime: float) -> str:
    return hashlib.sha256((ASSETS / name).read_bytes()).hexdigest()[:12]


@register.simple_tag
def asset(name: str) -> str:
    """The URL of a play asset with its content hash (so a browser may cache it for good)."""
    name = "".join(name)  # a plain str: a SafeString does not join paths
    path = ASSETS / name
    return f"{reverse('play:asset', args=[name])}?v={_version(name, path.stat().st_mtime)}"


@register.simple_tag
def code_format() -> dict[str, object]:
    """A room code's length and an example, for the join box and the wrong-code page."""
    from games.lookup import CODE_LENGTH, example_code

    return {"length": CODE_LENGTH, "example": example_code()}


@register.simple_tag
def play_languages() -> tuple[tuple[str, str], ...]:
    return LANGUAGES


@register.filter
def get(mapping: object, key: object) -> object:
    try:
        return mapping[key]  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        return None


@register.filter
def tojson(value: object) -> str:
    """An action as compact JSON for a data attribute (the template escapes it)."""
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"))
