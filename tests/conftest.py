from pathlib import Path

import pytest
from django.core.management import call_command

from cards.catalogue import import_catalogue

ROOT = Path(__file__).resolve().parent.parent
MINI = Path(__file__).parent / "data" / "mini"
STARTER = ROOT / "fixtures"


@pytest.fixture(autouse=True)
def _fresh_api_caches():
    """Test databases reuse release numbers for other content: forget what the API cached."""
    from exports import api
    from kartothek import not_modified

    for name in ("_release_sha", "_release_bytes", "_embedded_bytes"):
        getattr(api, name).cache_clear()
    not_modified.forget()


@pytest.fixture
def mini_catalogue(db):
    """The smallest catalogue that obeys every rule (tests/data/mini), loaded."""
    report = import_catalogue(MINI)
    assert not report.errors, report.errors
    return report


@pytest.fixture
def curator_client(mini_catalogue):
    """A test client logged in as a member of the Curators group (the mini catalogue loaded)."""
    from django.contrib.auth.models import Group, User
    from django.test import Client

    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def run_command():
    """Run a management command; returns (exit status, stdout, stderr)."""
    import io

    from django.core.management.base import CommandError

    def run(*args):
        out, err = io.StringIO(), io.StringIO()
        try:
            call_command(*args, stdout=out, stderr=err)
        except CommandError as exc:
            return exc.returncode, out.getvalue(), err.getvalue() + str(exc)
        except SystemExit as exc:
            return exc.code, out.getvalue(), err.getvalue()
        return 0, out.getvalue(), err.getvalue()

    return run


@pytest.fixture
def curator_page(live_server, page):
    """A browser page logged in to the admin as a curator, with the mini catalogue loaded.

    For browser tests (``transactional_db``: the live server runs in another thread)."""
    from django.contrib.auth.models import Group, User

    assert not import_catalogue(MINI).errors
    user = User.objects.create_user(username="carla", password="karten-pw-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "carla")
    page.fill("#id_password", "karten-pw-1")
    page.click("input[type=submit]")
    page.wait_for_selector("text=Sag's mit Symbolen")
    return page


def log_in_as(page, base_url: str, group: str, username: str, password: str, *, wait_for: str):  # type: ignore[no-untyped-def]
    """A staff user of ``group`` made in the database, then logged in through the login page."""
    from django.contrib.auth.models import Group, User

    user = User.objects.create_user(username=username, password=password, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    page.goto(f"{base_url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("input[type=submit]")
    page.wait_for_selector(wait_for)
    return page
