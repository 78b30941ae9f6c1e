"""The client's address for login throttling, also behind reverse proxies."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or with KARTOTHEK_PROXY_COUNT = N > 0 the Nth address from the right of
    X-Forwarded-For: the one the outermost trusted proxy saw. Addresses further left are
    written by the client and cannot be trusted."""
    count: int = settings.KARTOTHEK_PROXY_COUNT
    remote = request.META.get("REMOTE_ADDR", "")
    if count <= 0:
        return remote
    chain = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
             if part.strip()]
    if len(chain) < count:
        return remote  # not (fully) proxied: the direct peer is the best we know
    return chain[-count]
