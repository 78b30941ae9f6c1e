"""Issue 37, item 11: the page behind the "Cards" breadcrumb is titled "Cards", not by its
first section ("Sag's mit Symbolen administration")."""

import re

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("app_label,title", [("cards", "Cards"), ("exports", "Packs and print"),
                                             ("games", "Play mode")])
def test_an_apps_page_is_titled_by_the_app(client, app_label, title):
    client.force_login(User.objects.create_superuser("sue", "", "pw-karten-1"))
    page = client.get(f"/admin/{app_label}/").content.decode()
    assert re.search(r"<title>(.*?)</title>", page).group(1).startswith(f"{title} |")
    assert "administration" not in re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)


def test_a_slogan_saved_in_the_admin_needs_its_source(mini_catalogue, client):
    """Issue 37, item 11: a slogan's source was optional in the admin."""
    from cards.models import Slogan
    from tests.permission_matrix.forms import FormReader

    client.force_login(User.objects.create_superuser("sue", "", "pw-karten-1"))
    slogan = Slogan.objects.get(key="just-do-it")
    url = f"/admin/cards/slogan/{slogan.pk}/change/"
    reader = FormReader()
    reader.feed(client.get(url).content.decode())
    data: dict = {}
    for name, value in max(reader.forms, key=len):
        data.setdefault(name, []).append(value)
    data["source"] = [""]
    response = client.post(url, data)
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    slogan.refresh_from_db()
    assert slogan.source == "Nike, seit 1988"


def test_brand_owners_are_found_by_search_and_a_groups_link_not_by_a_list_of_every_group(
        mini_catalogue, client):
    """Issue 37, item 11: the brand-owner filter listed ~1,200 groups."""
    from cards.models import BrandOwnership

    client.force_login(User.objects.create_superuser("sue", "", "pw-karten-1"))
    url = "/admin/cards/brandownership/"
    page = client.get(url).content.decode()
    sidebar = page[page.index('id="changelist-filter"'):]
    assert "?group=" not in sidebar and "Current (no end year)" in sidebar
    assert "Search brands and company groups" in page
    row = BrandOwnership.objects.order_by("brand").first()
    found = client.get(url, {"q": row.group}).content.decode()
    assert row.brand in found
    only = client.get(url, {"group": row.group}).content.decode()
    shown = re.findall(r'<th class="field-brand"><a[^>]*>([^<]*)', only)
    assert sorted(shown) == sorted(BrandOwnership.objects.filter(group=row.group)
                                   .values_list("brand", flat=True))
    assert f'href="?group={row.group}"' in page.replace("/admin/cards/brandownership/", "")
