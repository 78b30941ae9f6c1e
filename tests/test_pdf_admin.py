"""Printing from the admin: the print page and the "Print selected cards" action.

The views are called directly (the URL admin:exports_print is wired in curation/site.py);
tests/test_browser_print.py drives the same page in a browser through that URL.
"""

from __future__ import annotations

import io

import pypdf
import pytest
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory

from cards.models import SauschwerObject, SignSymbol
from curation.print_pages import print_selected_action, print_view

pytestmark = pytest.mark.django_db

FORM = {"language": "en", "release": "draft", "size": "poker", "paper": "a4",
        "sides": "duplex-long", "crop_marks": "on", "bleed": "3", "gap": "0",
        "back_offset": "0,0", "min_font_size": "6", "profile": "", "print": "Download PDF"}


@pytest.fixture
def curator(db):
    user = User.objects.create_user(username="carla", password="karten-pw-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    return user


def request_as(user, data=None):
    factory = RequestFactory()
    request = factory.post("/admin/", data) if data is not None else factory.get("/admin/")
    request.user = user
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


def pdf_text(response):
    reader = pypdf.PdfReader(io.BytesIO(response.content))
    return reader, "\n".join(page.extract_text() for page in reader.pages)


def test_the_print_page_offers_languages_releases_and_options(mini_catalogue, curator):
    response = print_view(admin.site, request_as(curator), "sauschwer")
    html = response.render().content.decode()
    for expected in ('name="language"', 'value="draft"', 'name="sides"', 'name="crop_marks"',
                     'name="back_offset"', "Download PDF"):
        assert expected in html


def test_a_curator_downloads_the_draft_as_pdf(mini_catalogue, curator):
    response = print_view(admin.site, request_as(curator, FORM), "sauschwer")
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="sauschwer-en-draft.pdf"'
    _reader, text = pdf_text(response)
    assert "A blue whale" in text and "150 t" in text and "duplex, flip on the long edge" in text


def test_problems_come_back_on_the_page_instead_of_a_pdf(mini_catalogue, curator):
    response = print_view(admin.site, request_as(curator, {**FORM, "release": "latest"}), "sauschwer")
    html = response.render().content.decode()
    assert "No release of sauschwer (en) has been published yet." in html
    response = print_view(admin.site, request_as(curator, {**FORM, "size": "custom",
                                                           "custom_size": "huge"}), "sauschwer")
    assert "Unknown card size" in response.render().content.decode()


def test_the_print_page_needs_permission_to_see_the_cards(mini_catalogue):
    outsider = User.objects.create_user(username="otto", password="x-pw-12345", is_staff=True)
    with pytest.raises(PermissionDenied):
        print_view(admin.site, request_as(outsider), "sauschwer")


def test_print_selected_asks_for_options_then_prints_only_those_cards(mini_catalogue, curator):
    model_admin = admin.site._registry[SauschwerObject]
    chosen = SauschwerObject.objects.filter(key__in=["ein-blauwal", "der-eiffelturm"])
    asked = request_as(curator, {"action": "print_selected_action"})
    page = print_selected_action(model_admin, asked, chosen)
    html = page.render().content.decode()
    assert "Print 2 selected" in html and 'name="_selected_action"' in html
    response = print_selected_action(model_admin, request_as(curator, FORM), chosen)
    assert response["Content-Type"] == "application/pdf"
    _reader, text = pdf_text(response)
    assert "A blue whale" in text and "The Eiffel Tower" in text and "hen's egg" not in text
    assert "2 objects" in text


def test_print_selected_symbols_prints_their_sign_cards(mini_catalogue, curator):
    model_admin = admin.site._registry[SignSymbol]
    response = print_selected_action(model_admin, request_as(curator, {**FORM, "sides": "fronts"}),
                                     SignSymbol.objects.filter(key="mond"))
    reader, text = pdf_text(response)
    assert "5 sign cards" in text and len(reader.pages) == 2


def test_the_print_form_speaks_of_markets_only_for_slogan():
    """Issue 37, item 11: the Sign print form offered "en (cards known in the UK and the US)"."""
    from curation.print_pages import PrintForm

    for game in ("sign", "symbols", "sauschwer"):
        labels = [label for _code, label in PrintForm(game=game).fields["language"].choices]
        assert labels == ["de (German)", "en (English)"], game
    slogan = dict(PrintForm(game="slogan").fields["language"].choices)
    assert slogan["en-GB"] == "en-GB (UK deck)"
