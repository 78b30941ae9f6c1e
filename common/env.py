"""Small typed readers for settings that come from the environment.

Each reader fails loudly on a value it cannot understand, so a typo in a deployment is a
start-up error rather than a silently wrong setting.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no or on/off.")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r} must be at least {minimum}.")
    return value


def env_header(name: str) -> tuple[str, str] | None:
    """A request header and the value that marks it, written as ``Header-Name: value``.

    Returned in Django's META form (``HTTP_HEADER_NAME``, value) for SECURE_PROXY_SSL_HEADER.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    header, sep, value = raw.partition(":")
    header, value = header.strip(), value.strip()
    if not sep or not header or not value or not all(c.isalnum() or c == "-" for c in header):
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not 'Header-Name: value' (e.g. 'X-Forwarded-Proto: https')."
        )
    return "HTTP_" + header.upper().replace("-", "_"), value


def env_path(name: str, default: str) -> str:
    """A URL path prefix such as ``admin/``: no leading slash, one trailing slash."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    value = raw.strip().strip("/")
    allowed = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_/.")
    if not value or not set(value) <= allowed or ".." in value or "//" in value:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a URL path such as 'admin/' (letters, digits, - _ . and /)."
        )
    return value + "/"


def env_origins(name: str) -> list[str]:
    """Web origins such as ``https://game.example`` or ``http://127.0.0.1:8123``, comma-separated:
    scheme http or https and a host (a port if needed), nothing after it. A browser sends the
    origin in exactly that form, so ``https://game.example/`` or a path would never match: it
    is refused here rather than silently allowing nothing."""
    from urllib.parse import urlsplit

    origins = env_list(name, [])
    for origin in origins:
        try:
            parts = urlsplit(origin)
            port_ok = parts.port is None or 0 < parts.port < 65536
        except ValueError:
            parts, port_ok = None, False
        if parts is None or not port_ok or parts.scheme not in ("http", "https") \
                or not parts.hostname or origin != f"{parts.scheme}://{parts.netloc}" \
                or "@" in parts.netloc or origin == "*":
            raise ImproperlyConfigured(
                f"{name}: {origin!r} is not a web origin; write scheme and host (and a port if "
                "needed) without a path or trailing slash, e.g. https://game.example or "
                "http://127.0.0.1:8123, comma-separated.")
    return origins


# The marker `make run` writes into its local settings file (kartothek/localenv.py): its
# SECRET_KEY is for development on this machine only, and settings refuse it with DEBUG off.
LOCAL_DEV_MARKER = "KARTOTHEK_LOCAL_DEVELOPMENT"


def load_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read ``NAME=value`` lines from a local settings file into the environment.

    A variable already in the environment wins over the file. Blank lines and ``#`` comments
    are skipped; a value may be quoted with ' or ". Returns every pair the file holds (so the
    caller can tell which values came from it). A missing file is no error: an empty dict.
    """
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except FileNotFoundError:
        return {}
    pairs: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("export "):
            text = text[len("export "):].lstrip()
        name, sep, value = text.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name.isidentifier():
            raise ImproperlyConfigured(f"{path}, line {number}: not NAME=value: {line!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        pairs[name] = value
        os.environ.setdefault(name, value)
    return pairs
