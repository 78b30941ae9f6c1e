"""The curators' screens' own static files (styles, scripts, the favicon) lie in the top app's
folder, curation/static/curation/, and every one a template or an admin page names is there: a
file moved without its references (or a reference left behind) fails here, where the CSP browser
test would not notice (a missing stylesheet breaks no rule of the policy)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.staticfiles import finders

from cards.models import ConceptCard, SignCard

ROOT = Path(__file__).resolve().parent.parent
OWN = ROOT / "curation" / "static" / "curation"
NAMED = re.compile(r"""\{%\s*static\s+['"]([^'"]+)['"]\s*%\}""")
SERVED = re.compile(r"""(?:href|src)="/static/([^"?#]+)""")


def found_in_the_project(name: str) -> Path | None:
    """Where the static finders find ``name`` among the project's apps (None: not in the
    project, e.g. Django's own admin files; a missing file fails the caller's assert first)."""
    path = finders.find(name)
    assert path, f"no static file {name}"
    path = Path(path).resolve()
    return path if ROOT in path.parents and ".venv" not in path.parts else None


def test_every_static_file_a_template_names_is_found_and_the_admins_own_are_in_curation():
    named = {name for template in ROOT.glob("templates/**/*.html")
             for name in NAMED.findall(template.read_text())}
    assert "curation/kartothek.css" in named and "curation/publish.css" in named
    for name in sorted(named):
        path = found_in_the_project(name)
        if path is not None and not name.startswith("play/"):
            assert path.parent == OWN, f"{name} lies in {path.parent}, not in the curators' app"


def test_the_old_homes_under_cards_and_exports_hold_no_static_files():
    assert not list((ROOT / "cards").glob("static/**/*.*"))
    assert not list((ROOT / "exports").glob("static/**/*.*"))


@pytest.mark.django_db
def test_every_static_file_the_curators_pages_load_is_served_from_curation(client, mini_catalogue):
    user = User.objects.create_user(username="carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    card = ConceptCard.objects.order_by("pk").first()
    sign = SignCard.objects.order_by("pk").first()
    assert card is not None and sign is not None
    pages = ["/admin/", "/admin/cards/conceptcard/", f"/admin/cards/conceptcard/{card.pk}/change/",
             "/admin/cards/conceptcard/add/", f"/admin/cards/conceptcard/{card.pk}/history/",
             f"/admin/cards/signcard/{sign.pk}/change/", "/admin/cards/conceptcard/import/",
             "/admin/cards/progress/", "/admin/cards/translate/symbols/en/",
             "/admin/exports/publish/", "/admin/exports/publish/sauschwer/de/",
             "/admin/exports/release/"]
    own: set[str] = set()
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        for name in SERVED.findall(response.content.decode()):
            path = found_in_the_project(name)
            if path is not None:
                assert path.parent == OWN, f"{url} loads {name} from {path.parent}"
                own.add(name)
    # between them the pages load every one of the curators' files
    assert own == {"curation/kartothek.css", "curation/favicon.svg", "curation/curator.css",
                   "curation/key-from-text.js", "curation/preview.css", "curation/preview.js",
                   "curation/checks.css", "curation/translate.js", "curation/publish.css"}
    assert client.get("/favicon.ico").url.endswith("/static/curation/favicon.svg")
