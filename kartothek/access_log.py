"""Access logs without query strings: a seat's token, a stream ticket (``?ticket=``) or anything
else a client put into a query must never reach a log file.

uvicorn's access lines name the full path with its query (``uvicorn.access``: client, method,
path, HTTP version, status); ``PathsOnly`` keeps the path and drops the query. Installed by the
ASGI application itself (so ``make run``'s uvicorn and the tests' servers have it) and by
deploy/gunicorn.conf.py in every worker; gunicorn's own access format logs ``%(U)s`` (no query).
"""

from __future__ import annotations

import logging


class PathsOnly(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True


def install() -> None:
    """Put the filter on uvicorn's access logger (once, however often this is called)."""
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, PathsOnly) for f in logger.filters):
        logger.addFilter(PathsOnly())
