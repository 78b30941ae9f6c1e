"""``check --deploy`` refuses secrets copied from deploy/production.env.example.

The example file is public (it is in the repository), so any secret value in it — today's
placeholders or the values earlier versions shipped — is known to everyone. A deployment
that kept one is an error (``kartothek.E001``), not a warning: the signing key would let
anyone sign packs clients accept, the SECRET_KEY would let anyone forge sessions.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import dj_database_url
from django.conf import settings
from django.core import checks

EXAMPLE = Path(__file__).resolve().parent.parent / "deploy" / "production.env.example"
# Variables whose value is a secret: by name, plus the password inside DATABASE_URL.
SECRET_NAME = re.compile(r"SECRET|PASSWORD|TOKEN|SIGNING_KEY|ACCESS_KEY")
# Values earlier versions of the example file shipped (valid ones: they load without error).
PUBLISHED_BEFORE = {
    "SECRET_KEY": {"CHANGE-ME-to-a-long-random-string-of-at-least-fifty-characters-0123456789"},
    "KARTOTHEK_SIGNING_KEY": {"Q0hBTkdFLU1FLWdlbmVyYXRlLXlvdXItb3duLWtleSE="},
    "database password": {"CHANGE-ME"},
}


def example_values(path: Path = EXAMPLE) -> dict[str, str]:
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def _known(example: dict[str, str]) -> dict[str, set[str]]:
    known = {name: set(values) for name, values in PUBLISHED_BEFORE.items()}
    for name, value in example.items():
        if SECRET_NAME.search(name) and value:
            known.setdefault(name, set()).add(value)
    if example.get("DATABASE_URL"):
        password = dj_database_url.parse(example["DATABASE_URL"]).get("PASSWORD")
        if password:
            known["database password"].add(password)
    return known


def _in_use() -> dict[str, str]:
    names = {name for name in example_values() if SECRET_NAME.search(name)} | {
        "SECRET_KEY", "KARTOTHEK_SIGNING_KEY", "KARTOTHEK_PREVIOUS_SIGNING_KEYS",
        "KARTOTHEK_S3_ACCESS_KEY_ID", "KARTOTHEK_S3_SECRET_ACCESS_KEY"}
    values = {name: os.environ.get(name, "") or str(getattr(settings, name, "") or "")
              for name in names}
    values["SECRET_KEY"] = settings.SECRET_KEY
    values["database password"] = str(settings.DATABASES["default"].get("PASSWORD") or "")
    return values


@checks.register(checks.Tags.security, deploy=True)
def check_no_example_secrets(app_configs, **kwargs):  # type: ignore[no-untyped-def]
    known = _known(example_values())
    errors = []
    for name, value in sorted(_in_use().items()):
        value = value.strip()
        if value and (value in known.get(name, ()) or value.lower().startswith("change-me")):
            errors.append(checks.Error(
                f"{name} is the value from deploy/production.env.example: it is public, so it "
                "is no secret.",
                hint="Make a value of your own (the comment above it in the example file says "
                     "how) and keep it out of the repository.",
                id="kartothek.E001"))
    return errors
