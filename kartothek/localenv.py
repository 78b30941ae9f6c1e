"""`make run`'s local settings file (.env beside manage.py, git-ignored).

Written once, only when absent: DEBUG=1, a freshly generated SECRET_KEY and the marker that
the file is for local development. Settings read it (common.env.load_env_file), environment
variables win over it, and with DEBUG off its key is refused, so a production start
(`make serve`) never runs on it silently.

    python -m kartothek.localenv [PATH]
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

from common.env import LOCAL_DEV_MARKER


def write_local_env(path: Path) -> bool:
    """Write the local settings file at ``path`` unless it exists; True when written."""
    if path.exists():
        return False
    text = (
        "# Written by `make run` for local development on this machine only (git-ignored).\n"
        "# Environment variables win over these values. With DEBUG off (make serve, production)\n"
        "# Kartothek refuses this file's SECRET_KEY: set a real one in the environment there.\n"
        f"{LOCAL_DEV_MARKER}=1\n"
        "DEBUG=1\n"
        f"SECRET_KEY={secrets.token_urlsafe(50)}\n"
    )
    with open(path, "x", encoding="utf-8") as file:
        file.write(text)
    path.chmod(0o600)
    return True


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / ".env"
    if write_local_env(path):
        print(f"Wrote {path} (local development settings: DEBUG=1 and a new SECRET_KEY).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
