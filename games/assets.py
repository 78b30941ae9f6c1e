"""The play pages' own stylesheet, script and icon: where they lie, and the view that serves
them (no build step, no CDN); the template tag ``asset`` gives their URLs with a content hash.
"""

from __future__ import annotations

from pathlib import Path

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

ASSETS = Path(__file__).resolve().parent / "static" / "play"
ASSET_TYPES = {"play.css": "text/css; charset=utf-8", "play.js": "text/javascript; charset=utf-8",
               "play-link.js": "text/javascript; charset=utf-8", "favicon.svg": "image/svg+xml"}


@require_GET
def asset(request: HttpRequest, name: str) -> HttpResponse:
    """The play pages' stylesheet and script, served by the app (no build step, no CDN, and
    nothing else to configure under gunicorn); a versioned URL may be cached for a year."""
    if name not in ASSET_TYPES:
        raise Http404(name)
    response = HttpResponse((ASSETS / name).read_bytes(), content_type=ASSET_TYPES[name])
    response["Cache-Control"] = "public, max-age=31536000, immutable" if request.GET.get("v") else "no-cache"
    return response
