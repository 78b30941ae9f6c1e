"""Print numbers must be finite and in range: the print form's offset, every deck option, card sizes."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import User

from exports.pdf.options import DeckOptions, OptionError, parse_offset
from tests.test_catalogue import snapshot

# --- print options ----------------------------------------------------------------------------


@pytest.mark.parametrize("offset", ["nan,nan", "nan", "inf,0", "0,-inf", "1e309,1", "-21,0",
                                    "0,1e20", "NaN,1", "infinity,2"])
def test_a_print_offset_that_is_not_a_finite_number_in_range_is_a_form_error(
        mini_catalogue, offset):
    from django.contrib.auth.models import Group

    from tests.test_pdf_admin import FORM, request_as

    user = User.objects.create_user(username="petra", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    from curation.print_pages import print_view

    before = snapshot()
    response = print_view(admin.site, request_as(user, {**FORM, "back_offset": offset}), "sauschwer")
    assert response.status_code == 200
    html = response.render().content.decode()
    assert "offset" in html and "errorlist" in html
    assert snapshot() == before


@pytest.mark.parametrize("field", ["bleed", "safe", "gap", "crop_length", "margin", "min_font_size",
                                   "crop_offset"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_every_numeric_deck_option_must_be_finite(field, value):
    with pytest.raises(OptionError, match="must be"):
        DeckOptions(**{field: value})


def test_a_card_size_and_offset_must_be_finite():
    for size in [(float("nan"), 88.0), (63.0, float("inf"))]:
        with pytest.raises(OptionError):
            DeckOptions(size=size)
    with pytest.raises(OptionError):
        DeckOptions(back_offset=(float("nan"), 0.0))
    with pytest.raises(OptionError):
        parse_offset("nan,nan")
    assert parse_offset("1.5,-0.5") == (1.5, -0.5)
