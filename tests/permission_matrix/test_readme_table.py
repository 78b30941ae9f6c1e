"""The README's roles table, the matrix's table and the permissions the groups hold agree."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType

from cards.models import Translation
from exports.models import Release, WebhookDelivery, WebhookEndpoint
from games.models import Room
from tests.permission_matrix.rows import (
    CHECKS,
    CONTENT,
    README,
    README_TABLE,
    ROLES,
    ROWS,
    STAFF,
    role_permissions,
)

# --- the README, the table and the groups agree ------------------------------------------


def readme_roles_table() -> dict[str, set[str]]:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("**Roles.**"):]
    table: list[list[str]] = []
    for line in section.splitlines():
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif table:
            break  # the end of the first table after "Roles"
    header, _rule, *rows = table
    assert header[1:] == list(ROLES), header
    result: dict[str, set[str]] = {role: set() for role in ROLES}
    for row in rows:
        assert set(row[1:]) <= {"yes", "no"}, row
        for role, cell in zip(ROLES, row[1:], strict=True):
            if cell == "yes":
                result[role].add(row[0])
    return result


def test_the_readme_roles_table_is_the_matrix_of_this_test():
    assert readme_roles_table() == README_TABLE
    assert set().union(*README_TABLE.values()) == set(ROWS)


@pytest.mark.django_db
def test_the_groups_hold_exactly_the_permissions_of_the_readme_table():
    relevant = [*CONTENT, Translation, *CHECKS, Release, Room, User, Group, WebhookEndpoint,
                WebhookDelivery]
    types = ContentType.objects.get_for_models(*relevant).values()
    for role in ("Curators", "Translators", "Viewers"):
        held = {f"{p.content_type.app_label}.{p.codename}" for p in
                Permission.objects.filter(group__name=role, content_type__in=types)}
        assert held == role_permissions(role) - {STAFF}, role
