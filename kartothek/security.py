"""Old path of common/security.py, kept while games/ratelimit.py still imports it from here."""

from common.security import client_ip

__all__ = ["client_ip"]
