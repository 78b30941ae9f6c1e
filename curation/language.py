"""The admin in its user's language: Django's own words and every date and number format
follow the browser (German: "02.12.2026 13:36"; otherwise English), where the admin used to
show US dates ("Dec. 2, 2026, 1:36 p.m.") to a German publisher. The project's own texts
are English either way; the play pages choose their language themselves (games/views.py)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

ADMIN_LANGUAGES = ("de", "en")


def admin_language(request: HttpRequest) -> str:
    """German for a browser that asks for German first, English otherwise."""
    chosen = translation.get_language_from_request(request) or "en"
    base = chosen.split("-")[0].lower()
    return base if base in ADMIN_LANGUAGES else "en"


class AdminLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.prefix = "/" + settings.KARTOTHEK_ADMIN_PATH.strip("/") + "/"

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(self.prefix):
            return self.get_response(request)
        language = admin_language(request)
        with translation.override(language):
            request.LANGUAGE_CODE = language
            response = self.get_response(request)
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response.render()  # a TemplateResponse renders in the language chosen here
        patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", language)
        return response
