"""Publishing through the admin as a curator does: open a pack's review page, confirm."""

from __future__ import annotations

import re
from typing import Any

from django.test import Client
from django.urls import reverse


def review_url(game: str, language: str) -> str:
    return reverse("admin:exports_publish_review", args=[game, language])


def reviewed(page: str) -> dict[str, str]:
    """The hidden fields of a review page: which release and which draft it showed."""
    return dict(re.findall(r'name="(reviewed_\w+)" value="([^"]*)"', page))


def confirm_publish(client: Client, game: str, language: str, *, note: str = "",
                    follow: bool = True) -> Any:
    """GET the review page, then POST its form with the box ticked."""
    page = client.get(review_url(game, language))
    assert page.status_code == 200, page.status_code
    return client.post(review_url(game, language),
                       {**reviewed(page.content.decode()), "note": note, "confirm": "on",
                           "publish_untranslated": "on"},
                       follow=follow)
