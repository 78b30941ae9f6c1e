"""Every free-text reason or note a person writes is bounded (issue 38, finding 11): 2,000
characters (``cards.text.REASON_MAX_CHARS``) are kept, 2,001 are refused with a message that
says so, through each way in (the admin's pages and forms, the file imports, the model), and
nothing of a refused text is stored."""

from __future__ import annotations

import pytest
import tablib
from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.urls import reverse

from cards.dismissal_files import import_dismissals
from cards.models import BrandOwnership, CheckDismissal, GlossaryTerm, Slogan, SloganCard, SloganOption
from cards.option_findings import DISMISSAL_COLUMNS, dismiss, import_option_dismissals, open_findings
from cards.text import REASON_MAX_CHARS
from exports.models import Release
from exports.packs import PackError, publish

pytestmark = pytest.mark.django_db

FITS = "x" * REASON_MAX_CHARS
TOO_LONG = "x" * (REASON_MAX_CHARS + 1)
SAID = "2,001 characters long; at most 2,000 are kept"


def _curator(client):
    user = User.objects.create_user("carla", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return user


def _give_away() -> SloganCard:
    """Option 1 of the card's second slogan made Saturn, Media Markt's sister brand."""
    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/s")
    option = SloganOption.objects.get(slogan__key="ich-bin-doch-nicht-bloed", position=1)
    option.text = "Saturn"
    option.save()
    return SloganCard.objects.get(key="karte-001")


def test_an_answer_check_dismissal_reason_over_2000_characters_is_refused(mini_catalogue, client):
    card = _give_away()
    _curator(client)
    url = reverse("admin:cards_slogancard_dismiss_option", args=[card.pk])
    ident = "ich-bin-doch-nicht-bloed|option_1|same-group"
    refused = client.post(url, {"finding": ident, "reason": TOO_LONG})
    assert refused.status_code == 200 and SAID in refused.content.decode()
    assert not CheckDismissal.objects.filter(check_name="same-group").exists()
    done = client.post(url, {"finding": ident, "reason": FITS})
    assert done.status_code == 302
    assert CheckDismissal.objects.get(check_name="same-group").reason == FITS


def test_dismiss_itself_refuses_a_reason_over_the_limit(mini_catalogue):
    _give_away()
    finding = next(f for _c, f in open_findings() if f.check == "same-group")
    slogan = Slogan.objects.get(key=finding.slogan)
    with pytest.raises(ValueError, match=SAID):
        dismiss(slogan, finding, TOO_LONG)
    assert not CheckDismissal.objects.exists()


def test_a_dismissal_reason_edited_in_the_admin_is_bounded(mini_catalogue, admin_client):
    _give_away()
    finding = next(f for _c, f in open_findings() if f.check == "same-group")
    dismissal = dismiss(Slogan.objects.get(key=finding.slogan), finding, "Short.")
    url = reverse("admin:cards_checkdismissal_change", args=[dismissal.pk])
    refused = admin_client.post(url, {"reason": TOO_LONG})
    assert refused.status_code == 200
    assert "Ensure this value has at most 2000 characters (it has 2001)." in refused.content.decode()
    dismissal.refresh_from_db()
    assert dismissal.reason == "Short."
    assert 'maxlength="2000"' in admin_client.get(url).content.decode()
    assert admin_client.post(url, {"reason": FITS}).status_code == 302
    dismissal.refresh_from_db()
    assert dismissal.reason == FITS


def test_a_glossary_note_is_bounded_in_the_admin(db, admin_client):
    url = reverse("admin:cards_glossaryterm_add")
    term = {"language": "en", "term": "Prüfwort", "translation": "test word", "game": ""}
    refused = admin_client.post(url, {**term, "note": TOO_LONG})
    assert refused.status_code == 200 and "at most 2000 characters (it has 2001)" in refused.content.decode()
    assert not GlossaryTerm.objects.filter(term="Prüfwort").exists()
    assert admin_client.post(url, {**term, "note": FITS}).status_code == 302
    assert GlossaryTerm.objects.get(term="Prüfwort").note == FITS


def test_the_models_validate_every_bounded_text(db):
    for obj, field in [(GlossaryTerm(language="en", term="Chef", translation="boss"), "note"),
                       (CheckDismissal(reason="fine"), "reason"), (Release(), "note")]:
        setattr(obj, field, TOO_LONG)
        with pytest.raises(ValidationError) as refused:
            obj.clean_fields()
        assert "at most 2,000 are kept" in str(refused.value.message_dict[field])
        meta = type(obj)._meta.get_field(field)
        assert meta.max_length == REASON_MAX_CHARS  # the admin's form says so too


def test_a_release_note_over_the_limit_publishes_nothing(mini_catalogue):
    with pytest.raises(PackError, match="at most 2,000"):
        publish("sauschwer", "de", note=TOO_LONG)
    assert not Release.objects.exists()
    assert publish("sauschwer", "de", note=FITS).release.note == FITS


def test_a_dismissal_file_row_with_a_reason_over_the_limit_is_a_row_error(mini_catalogue):
    _give_away()
    finding = next(f for _c, f in open_findings() if f.check == "same-group")
    row = ["ich-bin-doch-nicht-bloed", finding.field, finding.check, Slogan.objects.get(
        key="ich-bin-doch-nicht-bloed").text, finding.option]
    dataset = tablib.Dataset(headers=list(DISMISSAL_COLUMNS))
    dataset.append([*row, TOO_LONG])
    assert import_option_dismissals(dataset)[3] == [
        "row 2, column `reason`: The reason is 2,001 characters long; at most 2,000 are kept."]
    assert not CheckDismissal.objects.exists()
    dataset = tablib.Dataset(headers=list(DISMISSAL_COLUMNS))
    dataset.append([*row, FITS])
    assert import_option_dismissals(dataset)[:3] == (1, 0, 0)
    # the translations' dismissal files say the same
    from cards.dismissal_files import COLUMNS

    translations = tablib.Dataset(headers=list(COLUMNS))
    translations.append(["objekte", "ein-huehnerei", "name", "unchanged", "x", "x", TOO_LONG])
    errors = import_dismissals(translations, "en", {})[3]
    assert errors == ["row 2, column `reason`: The reason is 2,001 characters long; at most "
                      "2,000 are kept."]
