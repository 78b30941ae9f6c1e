"""The error every pack and release problem raises (:class:`PackError`): its message is for
the curator or the client that asked, never a traceback.
"""

from __future__ import annotations


class PackError(Exception):
    """A pack cannot be built, read or published; the message says why."""
