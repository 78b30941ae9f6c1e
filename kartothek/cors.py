"""Cross-origin use of the API (CORS): the public read-only API's policy.

The site has two policies. The packs, schemas, keys, timestamp and pictures are public content: any page
on any origin may read them, so their answers carry ``Access-Control-Allow-Origin: *`` and no
credentials. The play API (``/api/play/…``) answers only the origins listed in
``KARTOTHEK_CORS_ALLOWED_ORIGINS``: that one is django-cors-headers' (settings ``CORS_*``,
limited to the play paths by ``CORS_URLS_REGEX``), which matches origins, answers preflights
and adds ``Vary: Origin``.

django-cors-headers keeps one policy per process (its settings are global); its way to
widen it, the ``check_request_enabled`` signal, lets more origins through the same policy (the
origin echoed back, the play API's headers and a ``Vary: Origin`` that splits every shared
cache by origin), and its ``CORS_ALLOW_ALL_ORIGINS`` would open the play API too. The public
answer is the same for every origin and every request, so it needs no decision at all: this
step adds fixed headers to the public paths and answers their preflight, and the library keeps
the policy that has to decide something.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase

PUBLIC = re.compile(r"^/api/(?:packs(?:/|$)|keys$|timestamp$|schema/|openapi\.json$|pictures/)")
# What a script on another page may read of a public answer beyond the basic headers: the
# validators it caches by, a release's signature, a delta's own address, a 503's wait.
EXPOSED = "ETag, Last-Modified, Content-Length, Content-Location, X-Kartothek-Signature, Retry-After"
PREFLIGHT_MAX_AGE = "86400"


def _preflight(request: HttpRequest) -> HttpResponse | None:
    """The answer to a browser's preflight (OPTIONS with Access-Control-Request-Method)."""
    if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
        return None
    response = HttpResponse(status=204)
    response["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
    response["Access-Control-Allow-Headers"] = "If-None-Match"
    response["Access-Control-Max-Age"] = PREFLIGHT_MAX_AGE
    return response


def _public_headers(response: HttpResponseBase) -> HttpResponseBase:
    response["Access-Control-Allow-Origin"] = "*"
    response["Access-Control-Expose-Headers"] = EXPOSED
    return response


class PublicCorsMiddleware:
    """``Access-Control-Allow-Origin: *`` on every answer of the public read-only API (its
    errors, 304s and redirects included), and its preflights answered. Sync and async, so the
    event streams' async chain takes no extra thread hop through it."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.async_mode = iscoroutinefunction(get_response)
        if self.async_mode:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.async_mode:
            return self.__acall__(request)
        if not PUBLIC.match(request.path_info):
            return self.get_response(request)
        return _public_headers(_preflight(request) or self.get_response(request))

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        if not PUBLIC.match(request.path_info):
            return await self.get_response(request)
        return _public_headers(_preflight(request) or await self.get_response(request))
