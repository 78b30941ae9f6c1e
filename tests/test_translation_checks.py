"""Translation checks (cards/checks.py): each check, the glossary, dismissals, and where the
findings show: the editor, the progress page, PO files, ``validate_content --translations``."""

from __future__ import annotations

import polib
import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cards.checks import (
    REGISTRY,
    CheckSpec,
    TextUnit,
    catalogue_findings,
    compile_glossary,
    fit_check,
    run_checks,
)
from cards.models import (
    CheckDismissal,
    ConceptCard,
    GlossaryTerm,
    SauschwerObject,
    Slogan,
    SloganOption,
    Translation,
    TranslationState,
)
from cards.po import export_po, import_po


def unit(source: str, text: str, **kwargs) -> TextUnit:  # type: ignore[no-untyped-def]
    return TextUnit(kwargs.pop("obj", None), "text", "en", source, text, **kwargs)


def slugs(found) -> set[str]:  # type: ignore[no-untyped-def]
    return {finding.check for finding in found}


def only(check: str, source: str, text: str, **kwargs) -> str | None:  # type: ignore[no-untyped-def]
    return REGISTRY[check].function(unit(source, text, **kwargs))


# --- each check: a hit and a miss -----------------------------------------------------------


def test_placeholder_missing_in_the_translation_is_found():
    message = only("placeholder", "Mach mal Pause – trink …", "Take a break, drink Coke.")
    assert message is not None and "has none" in message


def test_placeholder_written_as_three_dots_is_named():
    message = only("placeholder", "Mach mal Pause – trink …", "Take a break, drink ...")
    assert message is not None and "three dots" in message


def test_placeholder_only_in_the_translation_is_found():
    assert "the German none" in only("placeholder", "Nichts ist unmöglich.", "… is possible.")


def test_placeholder_kept_is_no_finding():
    assert only("placeholder", "Mach mal Pause – trink …", "Have a break, have a …") is None


def test_ending_punctuation_that_differs_is_found_and_named():
    message = only("ending-punctuation", "Nichts ist unmöglich!", "Nothing is impossible.")
    assert message == "The German ends with “!”, the translation with a full stop “.”."


def test_ending_punctuation_ignores_closing_quotes_and_counts_three_dots_as_an_ellipsis():
    assert only("ending-punctuation", "„Alles klar.“", "“All clear.”") is None
    assert only("ending-punctuation", "Und dann …", "And then...") is None


def test_spaces_at_the_ends_are_found():
    assert only("spaces-at-ends", "Oma", " Grandma ") == (
        "The translation starts and ends with a space; remove it.")
    assert only("spaces-at-ends", "Oma", "Grandma") is None


def test_doubled_spaces_are_found_unless_the_german_has_them_too():
    assert "2 spaces in a row" in only("double-space", "Ein Ei", "A  hen's egg")
    assert only("double-space", "Ein  Ei", "A  hen's egg") is None
    assert only("double-space", "Ein Ei", "A hen's egg") is None


def test_unchanged_text_is_found_unless_it_stays_german():
    assert only("unchanged", "Gemütlichkeit", "Gemütlichkeit") is not None
    assert only("unchanged", "Gemütlichkeit", "Gemütlichkeit", keeps_source=True) is None
    assert only("unchanged", "Gemütlichkeit", "Coziness") is None


@pytest.mark.django_db
def test_unchanged_brand_names_of_answer_options_are_no_finding(mini_catalogue):
    option = SloganOption.objects.select_related("slogan").first()
    assert REGISTRY["unchanged"].function(
        TextUnit(option, "text", "en", option.text, option.text)) is None


def test_a_length_far_from_the_source_says_both_numbers():
    message = only("length", "Ein Ei", "A freshly laid organic hen's egg of size M")
    assert message is not None and "has 42 characters, the German 6" in message
    assert only("length", "Oma", "Grandma") is None  # over twice as long, but 4 characters apart
    assert only("length", "Ein großes Ei", "A large egg") is None


def test_a_translation_much_shorter_than_the_source_is_found():
    message = only("length", "Umweltverschmutzung durch Plastikmüll", "Pollution")
    assert message is not None and "much shorter" in message


GLOSSARY = compile_glossary([
    ("Chef", "boss", "", "slogan"), ("Feld", "space", "", "slogan"),
    ("Spießer Alfons", "Spießer Alfons", "the cards' name", "slogan"),
])["slogan"]


def test_glossary_finds_a_term_translated_otherwise():
    message = only("glossary", "Der Chef lobt dich.", "The manager praises you.", glossary=GLOSSARY)
    assert message == "The glossary says: “Chef” is “boss”. The translation does not use it."


def test_glossary_tolerates_german_endings_and_english_plurals_and_case():
    assert only("glossary", "Gehe 3 Felder vor.", "Move forward 3 spaces.", glossary=GLOSSARY) is None
    assert only("glossary", "Die Tasse des Chefs.", "The BOSS's mug.", glossary=GLOSSARY) is None
    message = only("glossary", "Gehe 3 Felder vor.", "Move forward 3 fields.", glossary=GLOSSARY)
    assert message is not None and "“Feld” is “space”" in message


def test_glossary_matches_whole_words_only():
    # "Chefkoch" is not "Chef" (a compound gets its own entry); "Feldhase" is not "Feld".
    assert only("glossary", "Der Chefkoch im Feldhasen", "The head cook", glossary=GLOSSARY) is None


def test_glossary_note_is_part_of_the_message():
    message = only("glossary", "Zieh eine Spießer-Alfons-Karte", "x", glossary=GLOSSARY)
    assert message is None  # hyphenated compound: not the term
    message = only("glossary", "Spießer Alfons hilft.", "Alfons helps.", glossary=GLOSSARY)
    assert message is not None and "(the cards' name)" in message


def test_an_empty_translation_has_no_findings():
    assert run_checks(unit("Mach mal Pause – trink …", "")) == []


def test_every_registered_check_runs_on_real_texts():
    # The registry as the project fills it, no stand-ins: each check finds its own problem.
    expected = {"placeholder", "ending-punctuation", "spaces-at-ends", "double-space",
                "unchanged", "length", "glossary"}
    assert expected <= set(REGISTRY)
    bad = unit("Der Chef trinkt …!", " The  manager drinks a very large and very hot coffee. ",
               glossary=GLOSSARY)
    assert slugs(run_checks(bad)) >= expected - {"unchanged"}
    assert slugs(run_checks(unit("Chef", "Chef"))) >= {"unchanged"}
    good = unit("Der Chef trinkt …!", "The boss drinks …!", glossary=GLOSSARY)
    assert run_checks(good) == []


@pytest.mark.django_db
def test_a_translation_too_long_for_its_card_is_found_by_the_registered_checks(mini_catalogue):
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    assert "does-not-fit" in REGISTRY
    too_long = TextUnit(egg, "name", "en", egg.name, "An egg " * 60)
    found = [f for f in run_checks(too_long) if f.check == "does-not-fit"]
    assert len(found) == 1 and "name" in found[0].message
    assert not [f for f in run_checks(TextUnit(egg, "name", "en", egg.name, "An egg"))
                if f.check == "does-not-fit"]


def test_does_not_fit_is_one_registration_of_the_previews_measure():
    import exports.preview as preview

    check = fit_check(preview.fit_problem)
    spec = CheckSpec("does-not-fit", "does not fit on the card", check)
    # A text that stays German is not measured as a translation.
    assert run_checks(unit("Oma", "Grandma", keeps_source=True), [spec]) == []


@pytest.mark.django_db
def test_does_not_fit_adapter_passes_the_object_field_language_and_text(mini_catalogue):
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    seen = []

    def measure(obj, field, language, text):  # type: ignore[no-untyped-def]
        seen.append((obj, field, language, text))
        return "too long" if len(text) > 20 else None

    spec = CheckSpec("does-not-fit", "does not fit", fit_check(measure))
    long_one = TextUnit(egg, "name", "en", egg.name, "A hen's egg of the largest size there is")
    assert [f.message for f in run_checks(long_one, [spec])] == ["too long"]
    assert seen == [(egg, "name", "en", long_one.text)]
    assert run_checks(TextUnit(egg, "name", "en", egg.name, "An egg"), [spec]) == []


# --- the seeded glossary and the starter catalogue -------------------------------------------


@pytest.mark.django_db
def test_the_english_glossary_holds_the_games_own_words():
    # The data migration's rows, seeded again here: a transactional test run earlier flushes
    # the tables (the rows a migration wrote do not come back after a flush).
    import importlib

    from django.apps import apps

    seed = importlib.import_module("cards.migrations.0009_glossary_english_terms")
    seed.add_terms(apps, None)
    terms = dict(GlossaryTerm.objects.filter(language="en").values_list("term", "translation"))
    assert terms["Spießer Alfons"] == "Spießer Alfons"
    assert terms["Schweinebacke"] == "pig-cheek"
    assert terms["Chef"] == "boss"


@pytest.mark.django_db
def test_the_approved_alfons_cards_follow_the_seeded_glossary(mini_catalogue):
    import importlib

    from django.apps import apps

    importlib.import_module("cards.migrations.0009_glossary_english_terms").add_terms(apps, None)
    assert GlossaryTerm.objects.filter(language="en", game="slogan").count() >= 10
    found = [f for checked in catalogue_findings("slogan", "en") for f in checked.findings
             if f.check == "glossary"]
    assert found == []


# --- dismissals ----------------------------------------------------------------------------------


def _unchanged_concept() -> tuple[ConceptCard, Translation]:
    goethe = ConceptCard.objects.get(key="goethe")
    return goethe, Translation.objects.get(object_id=goethe.pk, language="en", field="text",
                                           content_type=ContentType.objects.get_for_model(goethe))


def _findings_of(key: str, game: str = "symbols") -> set[str]:
    return {f.check for checked in catalogue_findings(game, "en")
            if checked.label == key for f in checked.findings}


@pytest.mark.django_db
def test_a_dismissal_holds_until_the_translation_changes(mini_catalogue):
    goethe, row = _unchanged_concept()
    assert _findings_of("goethe:text") == {"unchanged"}
    CheckDismissal.objects.create(content_object=goethe, field="text", language="en",
                                  check_name="unchanged", reason="A name.", text=row.text,
                                  source=goethe.text)
    assert _findings_of("goethe:text") == set()
    row.text = "Goethe"  # the same text saved again: still dismissed
    row.save()
    assert _findings_of("goethe:text") == set()
    goethe.text = "Goethe (Dichter)"
    goethe.save()
    row.refresh_from_db()
    row.text, row.state = "Goethe (Dichter)", TranslationState.TRANSLATED
    row.save()
    assert _findings_of("goethe:text") == {"unchanged"}  # re-opened: the texts changed
    assert CheckDismissal.objects.filter(object_id=goethe.pk).count() == 1  # the record is kept


def _user(role: str) -> User:
    user = User.objects.create_user(role.lower(), password="pw-12345", is_staff=True)
    user.groups.add(Group.objects.get(name=role))
    return user


def _dismiss_url() -> str:
    return reverse("admin:cards_dismiss", args=["symbols", "en"])


DISMISS_TABLE = [("Translators", False), ("Viewers", False), ("Curators", True)]


@pytest.mark.django_db
def test_only_curators_may_dismiss_a_check(mini_catalogue):
    for role, allowed in DISMISS_TABLE:  # one catalogue for the table: refused roles first
        _dismiss_as(role, allowed)


def _dismiss_as(role: str, allowed: bool) -> None:
    goethe, _row = _unchanged_concept()
    client = Client()
    client.force_login(_user(role))
    ident = f"conceptcard-{goethe.pk}-text"
    page = client.get(_dismiss_url(), {"unit": ident, "check": "unchanged"})
    assert page.status_code == (200 if allowed else 403), role
    response = client.post(_dismiss_url(), {"unit": ident, "check": "unchanged",
                                            "reason": "Goethe is Goethe everywhere."})
    assert response.status_code == (302 if allowed else 403)
    dismissals = CheckDismissal.objects.filter(object_id=goethe.pk, check_name="unchanged")
    assert dismissals.count() == (1 if allowed else 0)
    if allowed:
        made = dismissals.get()
        assert (made.dismissed_by.username, made.reason, made.text) == (
            "curators", "Goethe is Goethe everywhere.", "Goethe")
        editor = client.get(reverse("admin:cards_translate", args=["symbols", "en"]),
                            {"q": "Goethe"}).content.decode()
        assert "finding-unchanged" not in editor and "Dismissed “unchanged from the German”" in editor


@pytest.mark.django_db
def test_a_dismissal_needs_a_reason_and_an_open_finding(mini_catalogue):
    goethe, _row = _unchanged_concept()
    client = Client()
    client.force_login(_user("Curators"))
    ident = f"conceptcard-{goethe.pk}-text"
    response = client.post(_dismiss_url(), {"unit": ident, "check": "unchanged", "reason": "  "})
    assert response.status_code == 200 and "Say why" in response.content.decode()
    response = client.post(_dismiss_url(), {"unit": ident, "check": "placeholder", "reason": "x"},
                           follow=True)
    assert "Nothing to dismiss" in response.content.decode()
    response = client.post(_dismiss_url(), {"unit": "conceptcard-999999-text", "check": "unchanged",
                                            "reason": "x"})
    assert response.status_code == 404
    response = client.post(_dismiss_url(), {"unit": ident, "check": "unchanged", "reason": "x",
                                            "next": "https://evil.example/"})
    assert response["Location"] == reverse("admin:cards_translate", args=["symbols", "en"])
    assert CheckDismissal.objects.count() == 1


# --- the editor ----------------------------------------------------------------------------------


def _client(role: str) -> Client:
    client = Client()
    client.force_login(_user(role))
    return client


def _editor(game: str = "slogan") -> str:
    return reverse("admin:cards_translate", args=[game, "en"])


def _placeholder_problem() -> tuple[Slogan, Translation]:
    slogan = Slogan.objects.exclude(text__contains="…").first()
    slogan.text = slogan.text.rstrip(".!") + " mit …"
    slogan.save()
    row = slogan.translation("text", "en") or Translation.objects.get(
        object_id=slogan.pk, field="text", language="en",
        content_type=ContentType.objects.get_for_model(slogan))
    row.refresh_from_db()
    return slogan, row


@pytest.mark.django_db
def test_the_editor_shows_the_checks_beside_each_text(mini_catalogue):
    slogan, _row = _placeholder_problem()
    page = _client("Translators").get(_editor(), {"q": slogan.text}).content.decode()
    assert "placeholder …" in page and "where the brand goes" in page
    assert "dismiss…" not in page  # translators cannot dismiss
    curator_page = _client("Curators").get(_editor(), {"q": slogan.text}).content.decode()
    assert "dismiss…" in curator_page


@pytest.mark.django_db
def test_the_editor_searches_source_and_translation(mini_catalogue):
    client = _client("Translators")
    by_source = client.get(_editor("symbols"), {"q": "liebe"}).content.decode()
    assert "goethe" not in by_source and "Love" in by_source and "(1 text)" in by_source
    by_translation = client.get(_editor("symbols"), {"q": "ITALY"}).content.decode()
    assert "Italien" in by_translation and "(1 text)" in by_translation
    assert "No text matches" in client.get(_editor("symbols"), {"q": "zzz-nothing"}).content.decode()


def _page_form(client: Client, url: str, params: dict) -> dict[str, str]:  # type: ignore[type-arg]
    from tests.permission_matrix.forms import FormReader

    reader = FormReader()
    reader.feed(client.get(url, params).content.decode())
    form = max(reader.forms, key=len)
    return {name: value for name, value in form}


@pytest.mark.django_db
def test_approve_this_page_approves_every_translated_text_on_it_and_keeps_history(mini_catalogue):
    client = _client("Curators")
    Translation.objects.filter(language="en").update(state=TranslationState.TRANSLATED)
    data = _page_form(client, _editor("sign"), {})
    before = Translation.history.count()
    response = client.post(_editor("sign"), {**data, "approve_page": "Approve this page"})
    assert response.status_code == 302
    on_page = [name[len("text-"):] for name in data if name.startswith("text-") and data[name]]
    assert on_page
    states = set(Translation.objects.filter(language="en", content_type__model__in=[
        "signsymbol", "signcolour"]).exclude(text="").values_list("state", flat=True))
    assert states == {TranslationState.APPROVED}
    assert Translation.history.count() == before + len(on_page)


@pytest.mark.django_db
def test_approve_this_page_does_not_overwrite_a_change_made_meanwhile(mini_catalogue):
    client = _client("Curators")
    Translation.objects.filter(text="Italy").update(state=TranslationState.TRANSLATED)
    data = _page_form(client, _editor("symbols"), {"q": "Italy"})
    italy = Translation.objects.get(text="Italy")
    italy.text, italy.state = "Italia", TranslationState.TRANSLATED
    italy.save()  # someone else, after the page was rendered
    response = client.post(_editor("symbols") + "?q=Italy", {**data, "approve_page": "1"})
    assert response.status_code == 200 and "changed by someone else" in response.content.decode()
    italy.refresh_from_db()
    assert (italy.text, italy.state) == ("Italia", TranslationState.TRANSLATED)


@pytest.mark.django_db
def test_viewers_cannot_use_the_editor(mini_catalogue):
    client = _client("Viewers")
    assert client.get(_editor()).status_code == 403
    assert client.post(_editor(), {"approve_page": "1"}).status_code == 403


def _grow_sauschwer(n: int, start: int = 0) -> None:
    SauschwerObject.objects.bulk_create([
        SauschwerObject(key=f"ding-{i}", name=f"Ding {i}", norm=f"ding {i}", weight_g=i + 1,
                        source="gewogen") for i in range(start, start + n)])


def _editor_queries(client: Client, params: dict) -> int:  # type: ignore[type-arg]
    url = _editor("sauschwer")
    client.get(url, params)  # warm the per-process caches (content types)
    with CaptureQueriesContext(connection) as context:
        response = client.get(url, params)
    assert response.status_code == 200
    return len(context.captured_queries)


EDITOR_VIEWS = [{}, {"state": "empty"}, {"state": "approved"}, {"q": "ding 1"}, {"page": "3"}]


@pytest.mark.django_db
def test_the_editor_runs_the_same_queries_for_few_and_many_objects(mini_catalogue):
    client = _client("Translators")
    _grow_sauschwer(60)
    few = [_editor_queries(client, params) for params in EDITOR_VIEWS]
    _grow_sauschwer(600, start=60)
    assert [_editor_queries(client, params) for params in EDITOR_VIEWS] == few


# --- the Translations list's bulk approve -------------------------------------------------------


# Approving is review: the Curators' (tests/test_translation_review.py), not the Translators'.
APPROVE_TABLE = [("Viewers", False), ("Translators", False), ("Curators", True)]


@pytest.mark.django_db
def test_bulk_approve_in_the_translations_list(mini_catalogue):
    for role, allowed in APPROVE_TABLE:  # one catalogue for the table; each role starts afresh
        _bulk_approve_as(role, allowed)


def _bulk_approve_as(role: str, allowed: bool) -> None:
    # An emptied translation (its text removed, so it needs editing): never approved.
    concept = ConceptCard.objects.get(key="liebe")
    empty = Translation.objects.get(object_id=concept.pk, language="en", field="text",
                                    content_type=ContentType.objects.get_for_model(concept))
    Translation.objects.filter(pk=empty.pk).update(text="", state=TranslationState.NEEDS_EDITING)
    # texts no check questions (one that a check questions waits for its own approval)
    rows = list(Translation.objects.filter(language="en", content_type__model="sauschwerobject")
                .order_by("pk")[:3])
    Translation.objects.filter(pk__in=[r.pk for r in rows]).update(state=TranslationState.TRANSLATED)
    before = {r.pk: r.version for r in Translation.objects.filter(pk__in=[r.pk for r in rows])}
    response = _client(role).post(reverse("admin:cards_translation_changelist"), {
        "action": "approve_selected", "_selected_action": [r.pk for r in rows] + [empty.pk],
        "index": "0"}, follow=allowed)
    stored = Translation.objects.filter(pk__in=[r.pk for r in rows])
    if not allowed:
        assert response.status_code == 403, role
        assert set(stored.values_list("state", flat=True)) == {TranslationState.TRANSLATED}
        return
    assert "Approved 3 translations" in response.content.decode(), role
    assert set(stored.values_list("state", flat=True)) == {TranslationState.APPROVED}
    assert all(row.version == before[row.pk] + 1 for row in stored)
    assert Translation.objects.get(pk=empty.pk).state == TranslationState.NEEDS_EDITING
    assert all(row.history.first().state == TranslationState.APPROVED for row in stored)


# --- the progress page, PO files, validate_content ------------------------------------------------


@pytest.mark.django_db
def test_the_progress_page_counts_open_findings(mini_catalogue):
    _placeholder_problem()
    page = _client("Viewers").get(reverse("admin:cards_progress")).content.decode()
    assert "1 placeholder …" in page


@pytest.mark.django_db
def test_po_export_flags_a_finding_and_import_round_trips_the_file(mini_catalogue):
    slogan, _row = _placeholder_problem()
    text = export_po("slogan", "en")
    entry = next(e for e in polib.pofile(text) if e.msgctxt == f"{slogan.key}:text")
    assert "kartothek-check-placeholder" in entry.flags
    assert "check placeholder: The German has “…” where the brand goes" in entry.tcomment
    assert "fuzzy" in entry.flags  # its source changed: needs editing, as before
    report = import_po(text, "slogan", "en")
    assert (report.errors, report.updated, report.conflicts) == (0, 0, 0), report.messages
    assert export_po("slogan", "en") == text


@pytest.mark.django_db
def test_po_export_leaves_a_dismissed_finding_out(mini_catalogue):
    goethe, row = _unchanged_concept()
    assert "kartothek-check-unchanged" in export_po("symbols", "en")
    CheckDismissal.objects.create(content_object=goethe, field="text", language="en",
                                  check_name="unchanged", reason="A name.", text=row.text,
                                  source=goethe.text)
    entry = next(e for e in polib.pofile(export_po("symbols", "en")) if e.msgctxt == "goethe:text")
    assert not [flag for flag in entry.flags if flag.startswith("kartothek-check-")]


@pytest.mark.django_db
def test_validate_content_translations_exits_1_on_an_open_finding_and_0_when_dismissed(
        mini_catalogue, run_command):
    status, out, err = run_command("validate_content", "--translations")
    assert status == 1
    assert "symbols goethe:text [en] unchanged: The translation is the German text unchanged." in out
    assert "translation check findings not dismissed" in err
    for checked in [c for game in ("symbols", "sign", "slogan", "sauschwer")
                    for c in catalogue_findings(game, "en")]:
        for finding in checked.findings:
            source = str(getattr(checked.obj, checked.field))
            CheckDismissal.objects.create(
                content_object=checked.obj, field=checked.field, language="en",
                check_name=finding.check, reason="Checked.", source=source,
                text=checked.obj.translation(checked.field, "en").text)
    status, out, _err = run_command("validate_content", "--translations")
    assert status == 0, out
    assert "no translation check finds anything" in out


@pytest.mark.django_db
def test_validate_content_without_translations_ignores_the_checks(mini_catalogue, run_command):
    status, out, _err = run_command("validate_content")
    assert status == 0 and "unchanged" not in out
    status, _out, err = run_command("validate_content", "--translations", "--language", "xx")
    assert status == 2 and "not a target language" in err


def test_of_two_terms_at_one_place_the_longer_one_is_the_word():
    glossary = compile_glossary([("Karriere", "career", "", "slogan"),
                                 ("Karriere-Knick", "career setback", "", "slogan")])["slogan"]
    # "Karriere-Knick" is the setback, not "Karriere" followed by something else.
    assert only("glossary", "Ein Karriere-Knick!", "A career setback!", glossary=glossary) is None
    message = only("glossary", "Ein Karriere-Knick!", "A career dip!", glossary=glossary)
    assert message is not None and "“Karriere-Knick” is “career setback”" in message
    assert "“Karriere” is" not in message
