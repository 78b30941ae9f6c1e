"""The WSGI application, for servers that speak WSGI (``make serve`` uses ASGI: kartothek/asgi.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
application = get_wsgi_application()
