"""A curator prints a deck from the admin in a real browser (Playwright driving Chromium).

Uses the URL name admin:exports_print (wired in curation/site.py's get_urls).
"""

import io

import pypdf
import pytest
from django.urls import reverse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]



def test_a_curator_picks_options_and_downloads_the_deck(live_server, curator_page):
    page = curator_page
    page.goto(live_server.url + reverse("admin:exports_print", args=["sauschwer"]))
    page.select_option("#id_language", "en")
    page.select_option("#id_release", "draft")
    page.select_option("#id_size", "bridge")
    page.select_option("#id_sides", "duplex-short")
    page.check("#id_cut_lines")
    page.fill("#id_back_offset", "0.5,-0.5")
    with page.expect_download() as download_info:
        page.click("input[name=print]")
    download = download_info.value
    assert download.suggested_filename == "sauschwer-en-draft.pdf"
    with open(download.path(), "rb") as pdf:
        reader = pypdf.PdfReader(io.BytesIO(pdf.read()))
    first = reader.pages[0].extract_text()
    assert "bridge (57 × 89 mm)" in first and "flip on the short edge" in first
    assert "+0.5 mm across, -0.5 mm up" in first
    text = "\n".join(p.extract_text() for p in reader.pages[2:])
    assert "A blue whale" in text


def test_the_print_page_says_what_went_wrong(live_server, curator_page):
    page = curator_page
    page.goto(live_server.url + reverse("admin:exports_print", args=["sauschwer"]))
    page.select_option("#id_release", "latest")
    page.click("input[name=print]")
    problems = page.locator("#print-problems")
    assert "No release of sauschwer (de) has been published yet." in problems.inner_text()
