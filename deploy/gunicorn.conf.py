"""gunicorn's settings for `make serve`, from the environment (README: Production).

HOST, PORT          where to listen (default 127.0.0.1:8000, like `make run`)
WEB_CONCURRENCY     worker processes (default 2 x cores + 1)
GUNICORN_TIMEOUT    seconds a request may take before its worker is restarted (default 60)
FORWARDED_ALLOW_IPS the proxy addresses whose X-Forwarded-* headers are trusted (default 127.0.0.1)
"""

import os

_host = os.environ.get("HOST", "127.0.0.1")
bind = f"[{_host}]:{os.environ.get('PORT', '8000')}" if ":" in _host else \
    f"{_host}:{os.environ.get('PORT', '8000')}"
# ASGI (kartothek.asgi:application): uvicorn's maintained gunicorn worker, so a play page's
# event stream (GET /api/play/rooms/CODE/events) waits without holding a thread.
worker_class = "uvicorn_worker.UvicornWorker"
workers = int(os.environ.get("WEB_CONCURRENCY") or (2 * (os.cpu_count() or 1) + 1))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = "-"
# The default format logs the request line with its query string and the Referer, which can
# carry secrets (a token someone put in a query). This one logs the path only (%(U)s: no
# query) and no Referer: method, path, protocol, status, size, duration and user agent.
access_log_format = '%(h)s %(t)s "%(m)s %(U)s %(H)s" %(s)s %(B)s %(M)sms "%(a)s"'
errorlog = "-"
# Workers are recycled now and then so a slow leak cannot grow for ever.
max_requests = 2000
max_requests_jitter = 200


def post_worker_init(worker):  # type: ignore[no-untyped-def]
    # uvicorn's access lines name the full path: keep the path, drop the query string (a token
    # or a stream ticket in a query must never reach a log file; kartothek/access_log.py)
    from kartothek.access_log import install

    install()
