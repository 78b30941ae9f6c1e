"""The project's URLs: the admin (curation), the play pages and their API, the packs API, media."""

from django.conf import settings
from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from django.views.static import serve


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    # at request time: the static file's hashed name is known once collectstatic ran
    return HttpResponsePermanentRedirect(static("curation/favicon.svg"))


def media(request: HttpRequest, path: str, document_root: str) -> HttpResponse:
    """A symbol picture; a name the file system refuses (too long) is a file that is not there."""
    try:
        return serve(request, path, document_root=document_root)
    except OSError:
        raise Http404(path[:100]) from None


# An admin-styled 403 that names what the page needs and who holds it (curation/forbidden.py).
handler403 = "curation.forbidden.forbidden"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="admin:index", permanent=False)),
    # Browsers ask for /favicon.ico on every page that names no icon (the admin names one).
    path("favicon.ico", favicon),
    path(settings.KARTOTHEK_ADMIN_PATH, admin.site.urls),
    path("api/play/", include("games.api_urls")),
    path("play/", include("games.urls")),
    path("api/", include("exports.urls")),
    # Symbol pictures. A deployment behind a web server serves MEDIA_ROOT itself and never
    # reaches this view; a small installation is served by Django (files are public content).
    re_path(
        rf"^{settings.MEDIA_URL.strip('/')}/(?P<path>.*)$",
        media,
        {"document_root": settings.MEDIA_ROOT},
    ),
]
