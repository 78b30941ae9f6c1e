"""The client's errors: everything it cannot do or does not believe is a ``KartothekError``."""

from __future__ import annotations


class KartothekError(Exception):
    """The server could not be read, or what it sent does not check out."""


class VerificationError(KartothekError):
    """A pack's sha256 or signature does not match: it is not kept."""
