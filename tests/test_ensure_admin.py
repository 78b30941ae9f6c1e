"""`make run`'s login message names the admin where it is really served (KARTOTHEK_ADMIN_PATH)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib import admin
from django.core.management import call_command
from django.urls import path

# A URLconf with the admin somewhere else, as KARTOTHEK_ADMIN_PATH=verwaltung/ mounts it.
urlpatterns = [path("verwaltung/", admin.site.urls)]


@pytest.mark.django_db
@pytest.mark.urls(__name__)
def test_the_login_message_names_the_configured_admin_path(tmp_path, settings):
    settings.VAR_DIR = tmp_path
    out = StringIO()
    call_command("ensure_admin", base_url="http://127.0.0.1:8123/", stdout=out)
    assert "Log in at http://127.0.0.1:8123/verwaltung/ as 'admin'" in out.getvalue()
    assert "/admin/" not in out.getvalue()
    assert (tmp_path / "admin-password.txt").read_text().startswith("admin\n")
