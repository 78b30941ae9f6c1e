"""Brand owners (issue 26): kept in the fixtures, edited by Curators in the admin, imported and
exported like the other content; a slogan card's page lists what gives its answers away, and
a Curator dismisses a finding there with a reason."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cards.brand_files import BrandOwnershipResource
from cards.catalogue import export_catalogue, import_catalogue
from cards.formats import describe_errors, load_table
from cards.models import BrandOwnership, CheckDismissal, SloganCard, SloganOption

pytestmark = pytest.mark.django_db
CSV_FORMAT = "0"  # position of CSV in cards.formats.FORMATS
HEADER = "brand,group,since,until,source\n"


def owners():
    return sorted(BrandOwnership.objects.values_list("brand", "group", "since", "until", "source"))


def login(client, group):
    user = User.objects.create_user(group.lower(), password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client.force_login(user)
    return user


def import_text(text):
    dataset = load_table(text.encode(), "brands.csv")
    return BrandOwnershipResource().import_data(dataset, dry_run=False, use_transactions=True,
                                                rollback_on_validation_errors=True)


def test_the_catalogue_loads_each_ownership_period_and_a_second_load_changes_nothing(mini_catalogue):
    assert ("Reebok", "Adidas", 2006, 2021,
            "https://www.cityam.com/adidas-sells-reebok-to-authentic-brands-for-e2-1bn/") in owners()
    assert BrandOwnership.objects.filter(brand="Reebok").count() == 3
    from tests.conftest import MINI

    report = import_catalogue(MINI)
    brands = next(f for f in report.files if f.path == "slogan/brands.csv")
    assert (brands.new, brands.updated, brands.unchanged) == (0, 0, 18)


def test_export_catalogue_writes_the_brands_and_the_dismissals_back_out(mini_catalogue, tmp_path):
    export_catalogue(tmp_path)
    written = (tmp_path / "slogan" / "brands.csv").read_text(encoding="utf-8")
    assert written.startswith(HEADER)
    assert "Reebok,Authentic Brands Group,2022,," in written
    assert (tmp_path / "slogan" / "option_dismissals.csv").read_text(encoding="utf-8").startswith(
        "key,field,check,source,text,reason\n")
    before = owners()
    BrandOwnership.objects.all().delete()
    assert not import_catalogue(tmp_path).errors
    assert owners() == before


def test_a_bad_year_or_a_missing_source_is_refused_by_row_and_nothing_is_stored(mini_catalogue):
    before = owners()
    result = import_text(HEADER + "Saturn,Ceconomy,neunzehn,,https://example.org/s\n"
                         + "Euronics,Euronics,,,\n" + "Conrad,Conrad,2010,2001,https://example.org/c\n")
    assert result.has_validation_errors() or result.has_errors()
    messages = describe_errors(result)
    assert any(m.startswith("row 2") and "“neunzehn” is not a year" in m for m in messages), messages
    assert "row 3, column `source`: Say where the ownership is documented (an address)." in messages
    assert "row 4, column `until`: The ownership ends in 2001, before it starts (2010)." in messages
    assert owners() == before


def test_a_file_without_the_five_columns_is_refused(mini_catalogue):
    result = import_text("brand,group,source\nSaturn,Ceconomy,https://example.org/s\n")
    assert result.has_errors()
    assert "missing columns: `since`, `until`" in str(result.base_errors[0].error)


def test_curators_import_brand_owners_in_the_admin_and_translators_may_not(mini_catalogue, client):
    upload = HEADER + "Saturn,Ceconomy,,,https://example.org/saturn\n"
    login(client, "Translators")
    url = reverse("admin:cards_brandownership_import")
    refused = client.post(url, {"format": CSV_FORMAT, "resource": "0",
                                "import_file": SimpleUploadedFile("b.csv", upload.encode())})
    assert refused.status_code == 403
    assert client.get(reverse("admin:cards_brandownership_changelist")).status_code == 200  # reads
    client.logout()
    login(client, "Curators")
    preview = client.post(url, {"format": CSV_FORMAT, "resource": "0",
                                "import_file": SimpleUploadedFile("b.csv", upload.encode())})
    assert preview.status_code == 200
    assert "process_import" in preview.content.decode()
    assert not BrandOwnership.objects.filter(brand="Saturn").exists()  # nothing before confirming


# --- the slogan card's page -------------------------------------------------------------------


def card_page(client, card):
    return client.get(reverse("admin:cards_slogancard_change", args=[card.pk])).content.decode()


def give_away(card_key="karte-001"):
    """Make option 1 of the card's second slogan Saturn, Media Markt's sister brand."""
    BrandOwnership.objects.create(brand="Saturn", group="Ceconomy", source="https://example.org/s")
    option = SloganOption.objects.get(slogan__key="ich-bin-doch-nicht-bloed", position=1)
    option.text = "Saturn"
    option.save()
    return SloganCard.objects.get(key=card_key)


def test_the_card_page_says_there_is_nothing_to_find_on_a_sound_card(mini_catalogue, client):
    login(client, "Curators")
    html = card_page(client, SloganCard.objects.get(key="karte-001"))
    assert "Answer checks" in html and "No option gives an answer away" in html


def test_a_curator_sees_the_finding_and_dismisses_it_with_a_reason(mini_catalogue, client):
    card = give_away()
    login(client, "Curators")
    html = card_page(client, card)
    assert "Open: Option from the answer&#x27;s company group" in html
    assert "“Saturn” and the answer “Media Markt” belong to the same group today" in html
    url = reverse("admin:cards_slogancard_dismiss_option", args=[card.pk])
    ident = "ich-bin-doch-nicht-bloed|option_1|same-group"
    assert f"?finding={ident.replace('|', '%7C')}" in html
    page = client.get(url, {"finding": ident})
    assert "Why is this fine for this card?" in page.content.decode()
    empty = client.post(url, {"finding": ident, "reason": "  "})
    assert "Say why the finding is fine" in empty.content.decode()
    assert not CheckDismissal.objects.filter(check_name="same-group").exists()
    done = client.post(url, {"finding": ident, "reason": "Saturn is a test brand here."})
    assert done.status_code == 302
    dismissal = CheckDismissal.objects.get(check_name="same-group")
    assert (dismissal.field, dismissal.text, dismissal.language) == ("option_1", "Saturn", "de")
    html = card_page(client, card)
    assert "Dismissed: Option from the answer&#x27;s company group" in html
    assert "Saturn is a test brand here." in html


def test_a_translator_sees_the_finding_but_may_not_dismiss_it(mini_catalogue, client):
    card = give_away()
    login(client, "Translators")
    html = card_page(client, card)
    assert "Open: Option from the answer&#x27;s company group" in html
    assert "dismiss-option-check" not in html
    url = reverse("admin:cards_slogancard_dismiss_option", args=[card.pk])
    response = client.post(url, {"finding": "ich-bin-doch-nicht-bloed|option_1|same-group",
                                 "reason": "I would like to."})
    assert response.status_code == 403
    assert not CheckDismissal.objects.filter(check_name="same-group").exists()


def test_the_brand_owner_list_exports_a_spreadsheet_with_the_five_columns(mini_catalogue, client):
    login(client, "Viewers")
    response = client.post(reverse("admin:cards_brandownership_export"),
                           {"format": CSV_FORMAT, "resource": "0",
                            **{f"brandownershipresource_{c}": "on" for c in
                               ("brand", "group", "since", "until", "source")}})
    assert response.status_code == 200
    text = b"".join(response.streaming_content if response.streaming else [response.content])
    assert io.StringIO(text.decode("utf-8-sig")).readline().strip() == HEADER.strip()


def test_import_content_reads_a_brands_file_by_its_columns(mini_catalogue, run_command, tmp_path):
    path = tmp_path / "brands_new_cards.csv"
    path.write_text(HEADER + "Saturn,Ceconomy,,,https://example.org/saturn\n", encoding="utf-8")
    status, out, err = run_command("import_content", str(path))
    assert status == 0, err
    assert "1 new" in out
    assert BrandOwnership.objects.get(brand="Saturn").group == "Ceconomy"
    status, out, _err = run_command("import_content", str(path))
    assert status == 0 and "0 new, 0 updated, 1 unchanged" in out
