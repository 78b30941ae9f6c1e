"""The project package, above every app: settings, URLs, the ASGI/WSGI applications, the
servers' middleware and the SQLite backend."""
