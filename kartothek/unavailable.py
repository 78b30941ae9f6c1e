"""While the database is unreachable (a restart, a failover), the JSON APIs answer a JSON 503
with ``Retry-After`` instead of Django's HTML 500 page: a client of /api/ always gets JSON it
can read, and knows to come back (`make faults` restarts PostgreSQL under load)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

logger = logging.getLogger("django.request")

RETRY_AFTER_SECONDS = 5


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        unreachable = isinstance(exception, OperationalError | InterfaceError)
        if not unreachable or not request.path.startswith("/api/"):
            return None  # everything else keeps Django's handling (and its error report)
        logger.error("Database unavailable: %s %s", request.method, request.path, exc_info=exception)
        response = JsonResponse({"error": "The database cannot be reached right now; try again in a "
                                          "few seconds.", "status": 503}, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response["Cache-Control"] = "no-store"
        return response
