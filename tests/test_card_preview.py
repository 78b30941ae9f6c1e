"""Card previews (exports/preview.py, curation/card_previews.py): one card as it prints, as PNG.

Real parts throughout: the mini catalogue in the test database, the deck renderer, PDFium,
Pillow reading the PNGs back, the admin through Django's test client with CSRF enforced.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.core.cache import cache
from django.db import transaction
from django.template import Context, Template
from django.test import Client
from PIL import Image

from cards.catalogue import import_catalogue
from cards.models import (
    AlfonsCard,
    ConceptCard,
    SauschwerObject,
    SignCard,
    SloganCard,
    SloganOption,
    SymbolTile,
    Translation,
)
from exports import preview
from exports.card_items import item_of
from exports.packs import publish
from exports.preview import PreviewError, card_preview, fit_problem, height_for

pytestmark = pytest.mark.django_db
PASSWORD = "karten-pw-1"
CSRF_TOKEN = "k" * 32
LONG = ("Ein ausgesprochen langer Begriff, der mit jedem weiteren Wort noch ein wenig länger "
        "wird und niemals auf eine einzige Zeile einer Spielkarte passt")
CARD_MODELS = (ConceptCard, SymbolTile, SignCard, SloganCard, AlfonsCard, SauschwerObject)
MINI = Path(__file__).parent / "data" / "mini"


@pytest.fixture(scope="module")
def mini_catalogue(django_db_setup, django_db_blocker):
    """The mini catalogue, loaded once for the module (each test runs in a savepoint inside
    it and is rolled back, as in test_permission_matrix)."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            assert not import_catalogue(MINI).errors
            yield
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def user_in(group: str | None, name: str = "carla", *, staff: bool = True) -> User:
    user = User.objects.create_user(name, "", PASSWORD, is_staff=staff)
    if group:
        user.groups.add(Group.objects.get(name=group))
    return user


def client_of(user: User | None, *, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    if user is not None:
        client.force_login(user)
    if csrf:
        client.cookies["csrftoken"] = CSRF_TOKEN
    return client


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == "PNG"
    return image.size


def colours(data: bytes) -> int:
    return len(Image.open(io.BytesIO(data)).convert("RGB").getcolors(1 << 20) or [])


# --- the preview itself --------------------------------------------------------------------


def test_every_kind_of_card_previews_front_and_back_as_a_png_of_the_asked_size(mini_catalogue):
    for model in CARD_MODELS:
        obj = model.objects.order_by("key").first()
        for language in ("de", "en"):
            item = item_of(obj, language)
            front = card_preview(obj.GAME, item, language, side="front", width_px=180)
            back = card_preview(obj.GAME, item, language, side="back", width_px=180)
            assert png_size(front) == (180, height_for(180)) == png_size(back), model
            assert front != back, model
            assert colours(front) > 20, model  # drawn (text edges, antialiasing), not blank


def test_the_english_preview_prints_the_english_text(mini_catalogue):
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    german = card_preview("sauschwer", item_of(egg, "de"), "de")
    english = card_preview("sauschwer", item_of(egg, "en"), "en")
    assert item_of(egg, "en")["entry"]["name"] != egg.name
    assert german != english


def test_an_unchanged_card_is_drawn_once_and_a_changed_one_again(mini_catalogue, monkeypatch):
    drawn: list[str] = []
    real = preview._render_pdf

    def counting(game, item, language, side, pictures=None):  # the real renderer, counted
        drawn.append(item["entry"]["key"])
        return real(game, item, language, side, pictures)

    monkeypatch.setattr(preview, "_render_pdf", counting)
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    first = card_preview("sauschwer", item_of(egg, "de"), "de")
    again = card_preview("sauschwer", item_of(egg, "de"), "de")
    assert first == again and len(drawn) == 1
    egg.name = "Ein Straußenei"
    changed = card_preview("sauschwer", item_of(egg, "de"), "de")
    assert changed != first and len(drawn) == 2


def test_a_bad_side_or_width_is_refused_with_a_message(mini_catalogue):
    item = item_of(SauschwerObject.objects.first(), "de")
    with pytest.raises(PreviewError, match="front and a back"):
        card_preview("sauschwer", item, "de", side="middle")
    with pytest.raises(PreviewError, match="48–1000 px"):
        card_preview("sauschwer", item, "de", width_px=5000)


def test_a_glyph_no_font_has_is_a_preview_error_naming_it(mini_catalogue):
    item = item_of(ConceptCard.objects.first(), "de")
    item["entry"]["text"] = "Japan 日本"
    with pytest.raises(PreviewError, match="no glyph"):
        card_preview("symbols", item, "de")


# --- does it fit? ---------------------------------------------------------------------------


def test_a_long_text_does_not_fit_and_the_message_says_where_and_by_how_much(mini_catalogue):
    concept = ConceptCard.objects.first()
    message = fit_problem(concept, "text", "en", LONG)
    assert message is not None
    assert "EN text" in message and "6 pt" in message and "upside-down header" in message
    over = int(re.search(r"about (\d+) characters too many", message).group(1))
    assert 0 < over < len(LONG)
    # the part it says fits does fit
    keep = len(LONG) - over
    assert fit_problem(concept, "text", "en", LONG[:keep]) is None


def test_a_short_text_fits(mini_catalogue):
    assert fit_problem(ConceptCard.objects.first(), "text", "en", "Bermuda Triangle") is None
    assert fit_problem(SauschwerObject.objects.first(), "name", "de", "Ein Hühnerei") is None
    assert fit_problem(SauschwerObject.objects.first(), "name", "de", "") is None


def test_fit_problem_knows_slogans_and_their_options(mini_catalogue):
    slogan = SloganCard.objects.first().slogans.first()
    assert fit_problem(slogan, "text", "de", slogan.text) is None
    assert "back" in fit_problem(slogan, "text", "en", LONG)
    option = SloganOption.objects.first()
    assert "answer option" in fit_problem(option, "text", "en", LONG)
    assert fit_problem(option, "text", "en", "Persil") is None


def test_fit_problem_takes_a_pack_form_item_too(mini_catalogue):
    item = item_of(SauschwerObject.objects.first(), "de")
    assert fit_problem(item, "name", "de", "Ein Hühnerei") is None
    assert fit_problem(item, "name", "de", LONG * 4) is not None


# --- the views ----------------------------------------------------------------------------


def saved_url(model, key: str, language: str = "en", query: str = "") -> str:
    return f"/admin/cards/{model._meta.model_name}/preview/{language}/{key}/{query}"


def test_staff_with_view_permission_see_a_saved_card_and_others_do_not(mini_catalogue):
    url = saved_url(SauschwerObject, "ein-huehnerei", query="?side=back&width=120")
    for group in ("Curators", "Translators", "Viewers"):
        response = client_of(user_in(group, f"u-{group}")).get(url)
        assert response.status_code == 200, group
        assert response["Content-Type"] == "image/png"
        assert png_size(response.content) == (120, height_for(120))
    assert client_of(user_in(None, "sam")).get(url).status_code == 403
    nora = client_of(user_in(None, "nora", staff=False)).get(url)
    anonymous = Client().get(url)
    for response in (nora, anonymous):
        assert response.status_code == 302 and "/login/" in response["Location"]


def test_an_unknown_card_or_a_bad_width_is_answered_with_a_message(mini_catalogue):
    client = client_of(user_in("Curators"))
    missing = client.get(saved_url(SauschwerObject, "no-such-thing"))
    assert missing.status_code == 404 and b"no-such-thing" in missing.content
    bad = client.get(saved_url(SauschwerObject, "ein-huehnerei", query="?width=huge"))
    assert bad.status_code == 422 and b"whole number" in bad.content


def test_a_release_preview_shows_the_card_as_it_was_in_that_release(mini_catalogue):
    client = client_of(user_in("Curators"))
    released = publish("sauschwer", "en").release.version
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    before = client.get(saved_url(SauschwerObject, egg.key, query="?side=back")).content
    egg.weight_g = 6000
    egg.save()
    now = client.get(saved_url(SauschwerObject, egg.key, query="?side=back")).content
    then = client.get(saved_url(SauschwerObject, egg.key, query=f"?side=back&release={released}"))
    assert then.status_code == 200
    assert then.content == before != now
    assert preview.preview_url("sauschwer", "en", egg.key, release=released, side="back") == (
        saved_url(SauschwerObject, egg.key, query=f"?side=back&release={released}"))
    gone = client.get(saved_url(SauschwerObject, egg.key, query="?release=99"))
    assert gone.status_code == 422 and b"no release 99" in gone.content.lower()


def form_preview(client: Client, model, data: dict, **extra) -> dict:
    response = client.post(f"/admin/cards/{model._meta.model_name}/preview/",
                            {**data, "csrfmiddlewaretoken": CSRF_TOKEN}, **extra)
    assert response.status_code == 200, response.content[:300]
    return response.json()


def table_state() -> tuple:
    return (list(ConceptCard.objects.order_by("pk").values_list("pk", "key", "text", "version")),
            list(Translation.objects.order_by("pk").values_list("pk", "text", "state", "version")),
            ConceptCard.history.count(), Translation.history.count())


def test_typed_text_is_previewed_with_the_warning_and_nothing_is_saved(mini_catalogue):
    client = client_of(user_in("Curators"), csrf=True)
    concept = ConceptCard.objects.first()
    before = table_state()
    rows = Translation.objects.filter(object_id=concept.pk, content_type__model="conceptcard")
    assert rows.exists()
    answer = form_preview(client, ConceptCard, {
        "_preview_object_id": concept.pk, "text": LONG, "key": concept.key,
        "_save": "Save", "_preview_language": ["de", "en"],
        # the change page's translations inline, as the form sends it
        "cards-translation-content_type-object_id-TOTAL_FORMS": "1",
        "cards-translation-content_type-object_id-0-language": "en",
        "cards-translation-content_type-object_id-0-field": "text",
        "cards-translation-content_type-object_id-0-text": "Typed but not saved",
    })
    assert {(p["language"], p["side"]) for p in answer["previews"]} == {
        ("de", "front"), ("de", "back"), ("en", "front"), ("en", "back")}
    assert [p["language"] for p in answer["problems"]] == ["de"]
    assert "Does not fit" in answer["problems"][0]["message"]
    english = next(p for p in answer["previews"] if p["language"] == "en" and p["side"] == "front")
    assert "Typed but not saved" in english["alt"]
    typed = client.get(english["url"])
    assert typed.status_code == 200 and png_size(typed.content) == (200, height_for(200))
    saved = client.get(saved_url(ConceptCard, concept.key, query="?side=front&width=200"))
    assert typed.content != saved.content
    assert table_state() == before


def test_a_slogan_card_previews_its_typed_slogans_and_options(mini_catalogue):
    client = client_of(user_in("Curators"), csrf=True)
    card = SloganCard.objects.first()
    first, second = card.slogans.order_by("side")
    data = {"_preview_object_id": card.pk, "key": card.key, "_preview_language": "de"}
    for n, slogan in enumerate((first, second)):
        data.update({f"slogans-{n}-side": slogan.side, f"slogans-{n}-text": slogan.text,
                     f"slogans-{n}-key": slogan.key, f"slogans-{n}-correct": "2"})
        for k in range(1, 5):
            data[f"slogans-{n}-option_{k}"] = f"Marke {n}{k}"
    data["slogans-1-option_3"] = LONG
    answer = form_preview(client, SloganCard, data)
    assert len(answer["previews"]) == 2
    assert len(answer["problems"]) == 1
    assert "option 3 of slogan 2" in answer["problems"][0]["message"]
    back = next(p for p in answer["previews"] if p["side"] == "back")
    assert "Marke 12 (correct)" in back["alt"]
    assert first.options.filter(text="Marke 01").count() == 0


def test_a_post_without_a_csrf_token_is_refused(mini_catalogue):
    client = client_of(user_in("Curators"), csrf=True)
    response = client.post("/admin/cards/conceptcard/preview/", {"text": "x"})
    assert response.status_code == 403


def test_a_forged_or_foreign_typed_preview_is_refused(mini_catalogue):
    client = client_of(user_in("Curators"), csrf=True)
    concept = ConceptCard.objects.first()
    answer = form_preview(client, ConceptCard, {"_preview_object_id": concept.pk, "text": "Hallo"})
    url = answer["previews"][0]["url"]
    signed = url.split("?d=", 1)[1]
    forged = signed[:-3] + ("AAA" if not signed.endswith("AAA") else "BBB")
    assert client.get(url.split("?d=")[0] + "?d=" + forged).status_code == 400
    other_game = client.get(f"/admin/cards/sauschwerobject/preview/typed/?d={signed}")
    assert other_game.status_code == 400
    assert client_of(user_in(None, "sam")).get(url).status_code == 403


def test_the_change_page_shows_front_and_back_per_language_with_alt_texts(mini_catalogue):
    client = client_of(user_in("Curators"))
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    html = client.get(f"/admin/cards/sauschwerobject/{egg.pk}/change/").content.decode()
    panel = html[html.index('id="card-preview"'):html.index("</section>", html.index('id="card-preview"'))]
    images = re.findall(r'<img src="([^"]+)"[^>]*alt="([^"]+)"', panel)
    assert [alt for _src, alt in images] == [
        f"{egg} (front, DE)", f"{egg} (back, DE)", f"{egg} (front, EN)", f"{egg} (back, EN)"]
    assert 'aria-live="polite"' in panel
    assert "curation/preview.js" in html and "<script>" not in panel and "style=" not in panel
    for src, _alt in images:
        assert client.get(src.replace("&amp;", "&")).status_code == 200


def test_list_pages_have_a_preview_thumbnail_per_card(mini_catalogue):
    client = client_of(user_in("Curators"))
    for model in CARD_MODELS:
        html = client.get(f"/admin/cards/{model._meta.model_name}/").content.decode()
        assert html.count('class="card-thumb"') == model.objects.count(), model
        assert "card-thumb-large" in html


def test_the_card_pair_shows_a_release_beside_now(mini_catalogue):
    released = publish("sauschwer", "en").release.version
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    SauschwerObject.objects.create(key="ein-neues-ding", name="Ein neues Ding", weight_g=5)
    html = Template('{% include "admin/exports/_card_pair.html" %}').render(Context(
        {"game": "sauschwer", "language": "en", "key": egg.key, "release": released}))
    assert f"release={released}" in html and html.count("<img") == 4
    added = Template('{% include "admin/exports/_card_pair.html" %}').render(Context(
        {"game": "sauschwer", "language": "en", "key": "ein-neues-ding", "release": released}))
    assert "added since" in added and added.count("<img") == 2


def test_the_translation_editor_rows_carry_their_card_preview(mini_catalogue):
    client = client_of(user_in("Curators"))
    html = client.get("/admin/cards/translate/sauschwer/en/").content.decode()
    urls = re.findall(r'data-card-preview="([^"]+)"', html)
    assert urls and all("/preview/en/" in url for url in urls)
    assert client.get(urls[0].replace("&amp;", "&") + "&width=60").status_code == 200


def test_a_sign_colour_or_symbol_previews_a_card_with_the_typed_name(mini_catalogue):
    from cards.models import SignColour, SignSymbol

    client = client_of(user_in("Curators"), csrf=True)
    card = SignCard.objects.select_related("symbol", "colour").order_by("key").first()
    colour_answer = form_preview(client, SignColour, {
        "_preview_object_id": card.colour.pk, "name": "Karminrot", "_preview_language": "de"})
    assert "Karminrot" in colour_answer["previews"][0]["alt"]
    symbol_answer = form_preview(client, SignSymbol, {
        "_preview_object_id": card.symbol.pk, "name": "Schiffsanker", "_preview_language": "de"})
    assert "Schiffsanker" in symbol_answer["previews"][0]["alt"]
    card.colour.refresh_from_db()
    assert card.colour.name != "Karminrot"


def test_a_saved_card_is_asked_for_again_and_answered_304_until_it_changes(mini_catalogue):
    client = client_of(user_in("Curators"))
    url = saved_url(SauschwerObject, "ein-huehnerei", language="de")
    first = client.get(url)
    assert first["Cache-Control"] == "private, no-cache" and first["ETag"]
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and not again.content
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    egg.name = "Ein Straußenei"
    egg.save()
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    assert changed.content != first.content
