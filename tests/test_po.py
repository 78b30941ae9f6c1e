"""gettext PO export and import per game and language."""

import polib
import pytest
from django.contrib.contenttypes.models import ContentType

from cards.models import (
    ConceptCard,
    SauschwerObject,
    SignColour,
    Slogan,
    SloganOption,
    Translation,
    TranslationState,
)
from cards.po import PoProblem, export_po, import_po

pytestmark = pytest.mark.django_db

NEEDS_EDITING = TranslationState.NEEDS_EDITING
TRANSLATED = TranslationState.TRANSLATED
APPROVED = TranslationState.APPROVED


def translation(obj, field="text", language="en"):
    return Translation.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=obj.pk,
        field=field,
        language=language,
    ).first()


def concept(key):
    return ConceptCard.objects.get(key=key)


def entries(text):
    return {e.msgctxt: e for e in polib.pofile(text)}


def edit(text, **changes):
    """The PO text with msgstr (and flags) of some entries changed: ctxt=(msgstr, fuzzy)."""
    po = polib.pofile(text)
    for entry in po:
        change = changes.get(entry.msgctxt.replace(":", "__").replace("-", "_"))
        if change is None:
            continue
        msgstr, fuzzy = change if isinstance(change, tuple) else (change, False)
        entry.msgstr = msgstr
        if fuzzy and "fuzzy" not in entry.flags:
            entry.flags.append("fuzzy")
        if not fuzzy and "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
            entry.previous_msgid = None
    return str(po)


# --- export -----------------------------------------------------------------------------------


def test_the_export_has_one_entry_per_text_with_key_and_field_as_context(mini_catalogue):
    text = export_po("sauschwer", "en")
    found = entries(text)
    assert list(found) == [
        "der-eiffelturm:name",
        "ein-blauwal:name",
        "ein-huehnerei:name",
        "ein-liter-milch:name",
        "ein-smart-fortwo:name",
        "eine-bowlingkugel:name",
    ]
    egg = found["ein-huehnerei:name"]
    assert (egg.msgid, egg.msgstr, egg.tcomment, egg.fuzzy) == (
        "Ein Hühnerei",
        "A hen's egg",
        "Sauschwer object",
        False,
    )


def test_the_header_names_project_language_and_utf8(mini_catalogue):
    po = polib.pofile(export_po("sign", "en"))
    assert po.metadata["Project-Id-Version"] == "Kartothek sign"
    assert po.metadata["Language"] == "en"
    assert po.metadata["Content-Type"] == "text/plain; charset=UTF-8"
    assert not any("Date" in name for name in po.metadata)


def test_the_export_is_deterministic(mini_catalogue):
    assert export_po("slogan", "en") == export_po("slogan", "en")


def test_every_game_exports_its_texts_in_catalogue_order(mini_catalogue):
    symbols = list(entries(export_po("symbols", "en")))
    assert len(symbols) == 9 + 9
    assert symbols[0] == "bauer:text" and symbols[9] == "fabrik:name"
    sign = list(entries(export_po("sign", "en")))
    assert len(sign) == 5 + 5  # the Sign cards themselves have no text
    assert sign[:2] == ["anker:name", "fisch:name"]


def test_slogan_options_are_fields_of_the_slogan_key_and_german_only_texts_are_left_out(mini_catalogue):
    found = entries(export_po("slogan", "en"))
    assert [c for c in found if c.startswith("just-do-it:")] == [
        "just-do-it:text",
        "just-do-it:option_1",
        "just-do-it:option_2",
        "just-do-it:option_3",
        "just-do-it:option_4",
    ]
    assert found["just-do-it:option_4"].msgid == "Nike"
    assert found["just-do-it:option_4"].tcomment == "answer option of a slogan"
    # "Ich bin doch nicht blöd!" stays German: its text is not exported, its options are
    assert "ich-bin-doch-nicht-bloed:text" not in found
    assert "ich-bin-doch-nicht-bloed:option_3" in found
    assert found["kopierer:text"].tcomment == "Spießer Alfons card"
    assert len(found) == 3 + 4 * 4 + 9


def test_a_missing_translation_is_exported_with_an_empty_msgstr(mini_catalogue):
    translation(concept("oma")).delete()
    entry = entries(export_po("symbols", "en"))["oma:text"]
    assert (entry.msgid, entry.msgstr, entry.fuzzy) == ("Oma", "", False)


def test_a_translation_that_needs_editing_is_fuzzy_with_the_previous_source(mini_catalogue):
    oma = concept("oma")
    oma.text = "Omi"
    oma.save()
    text = export_po("symbols", "en")
    entry = entries(text)["oma:text"]
    assert (entry.msgid, entry.msgstr, entry.fuzzy, entry.previous_msgid) == (
        "Omi",
        "Grandmother",
        True,
        "Oma",
    )
    assert '#, fuzzy\n#| msgid "Oma"\nmsgctxt "oma:text"\nmsgid "Omi"\n' in text


def test_a_key_shared_by_two_content_types_of_a_game_is_qualified(mini_catalogue):
    SignColour.objects.create(key="anker", name="Ankerblau", hex="#000080", mark="A", position=6)
    found = entries(export_po("sign", "en"))
    assert "anker:name" not in found
    assert found["sign_symbols/anker:name"].msgid == "Anker"
    assert found["sign_colours/anker:name"].msgid == "Ankerblau"
    assert "fisch:name" in found  # the others keep the short form


@pytest.mark.parametrize(
    ("game", "language", "message"),
    [
        ("poker", "en", "unknown game “poker”; use one of: symbols, sign, slogan, sauschwer"),
        ("sign", "de", "“de” is the source language; translate into: en"),
        ("sign", "fr", "“fr” is not a target language; configured: en"),
    ],
)
def test_an_unknown_game_or_language_is_refused(game, language, message):
    with pytest.raises(PoProblem) as info:
        export_po(game, language)
    assert str(info.value) == message
    with pytest.raises(PoProblem):
        import_po('msgid ""\nmsgstr ""\n', game, language)


# --- the translator's round trip --------------------------------------------------------------


def test_a_translator_round_trip_changes_states_and_a_later_source_change_shows_as_fuzzy(mini_catalogue):
    translation(concept("oma")).delete()
    papst = translation(concept("papst"))
    papst.state = TRANSLATED
    papst.save()

    exported = export_po("symbols", "en")
    assert entries(exported)["oma:text"].msgstr == ""
    edited = edit(exported, oma__text="Granny", papst__text="The Pope")

    report = import_po(edited, "symbols", "en")
    assert (report.updated, report.unchanged, report.conflicts, report.errors) == (2, 16, 0, 0)
    assert report.saved and report.messages == []
    oma, papst = translation(concept("oma")), translation(concept("papst"))
    assert (oma.text, oma.state, oma.source_text) == ("Granny", TRANSLATED, "Oma")
    assert (papst.text, papst.state) == ("The Pope", TRANSLATED)
    assert translation(concept("liebe")).state == APPROVED  # untouched

    # the German source changes afterwards: the translation drops to needs editing …
    card = concept("oma")
    card.text = "Omi"
    card.save()
    assert translation(card).state == NEEDS_EDITING
    # … and the next export marks it fuzzy, with the source it was made from
    again = export_po("symbols", "en")
    assert '#, fuzzy\n#| msgid "Oma"\nmsgctxt "oma:text"\nmsgid "Omi"\nmsgstr "Granny"' in again

    # importing the file unchanged keeps it needing editing …
    report = import_po(again, "symbols", "en")
    assert (report.updated, report.errors) == (0, 0)
    assert translation(card).state == NEEDS_EDITING
    # … and the translator confirms it by removing the fuzzy flag
    report = import_po(edit(again, oma__text="Granny"), "symbols", "en")
    assert report.updated == 1
    row = translation(card)
    assert (row.text, row.state, row.source_text) == ("Granny", TRANSLATED, "Omi")


def test_a_fuzzy_entry_is_saved_as_needs_editing(mini_catalogue):
    translation(concept("oma")).delete()
    text = edit(export_po("symbols", "en"), oma__text=("Granny?", True))
    assert import_po(text, "symbols", "en").updated == 1
    row = translation(concept("oma"))
    assert (row.text, row.state, row.source_text) == ("Granny?", NEEDS_EDITING, "Oma")


def test_an_empty_msgstr_leaves_the_stored_translation_alone(mini_catalogue):
    papst = translation(concept("papst"))
    papst.state = TRANSLATED
    papst.save()
    report = import_po(edit(export_po("symbols", "en"), papst__text=""), "symbols", "en")
    assert (report.updated, report.skipped, report.errors) == (0, 1, 0)
    assert translation(concept("papst")).text == "Pope"


def test_a_slogan_option_is_imported_as_the_option_translation(mini_catalogue):
    nike = SloganOption.objects.get(slogan__key="just-do-it", position=4)
    row = translation(nike)
    row.state = TRANSLATED
    row.save()
    report = import_po(edit(export_po("slogan", "en"), just_do_it__option_4="Nike Inc."), "slogan", "en")
    assert (report.updated, report.errors) == (1, 0)
    assert translation(nike).text == "Nike Inc."


def test_an_entry_for_a_text_that_stays_german_is_ignored(mini_catalogue):
    po = polib.pofile(export_po("slogan", "en"))
    po.append(polib.POEntry(msgctxt="ich-bin-doch-nicht-bloed:text", msgid="Ich bin doch nicht blöd!",
                            msgstr="I'm not stupid!"))
    report = import_po(str(po), "slogan", "en")
    assert (report.updated, report.skipped, report.errors) == (0, 1, 0)
    assert report.messages == [
        "note: ich-bin-doch-nicht-bloed:text: this text stays German; the entry was ignored"
    ]
    assert translation(Slogan.objects.get(key="ich-bin-doch-nicht-bloed")) is None


# --- approved translations and older files --------------------------------------------------------


def test_an_approved_translation_is_never_overwritten_but_the_rest_is_saved(mini_catalogue):
    translation(concept("oma")).delete()
    text = edit(export_po("symbols", "en"), liebe__text="Affection", oma__text="Granny")
    report = import_po(text, "symbols", "en")
    assert (report.updated, report.conflicts, report.errors) == (1, 1, 0)
    assert report.messages == [
        "conflict: liebe:text: the approved translation “Love” was kept; the file has “Affection”"
    ]
    assert report.saved
    liebe = translation(concept("liebe"))
    assert (liebe.text, liebe.state) == ("Love", APPROVED)
    assert translation(concept("oma")).text == "Granny"


def test_an_approved_translation_with_the_same_text_stays_approved(mini_catalogue):
    text = edit(export_po("symbols", "en"), liebe__text=("Love", True))
    report = import_po(text, "symbols", "en")
    assert (report.updated, report.unchanged, report.conflicts) == (0, 18, 0)
    assert translation(concept("liebe")).state == APPROVED


def test_an_entry_made_from_an_older_source_is_imported_as_needs_editing_and_reported(mini_catalogue):
    translation(concept("oma")).delete()
    exported = export_po("symbols", "en")
    card = concept("oma")
    card.text = "Omi"
    card.save()

    report = import_po(edit(exported, oma__text="Granny"), "symbols", "en")
    assert (report.updated, report.errors) == (1, 0)
    assert report.messages == [
        "note: oma:text: the German text changed since the file was made (“Oma”, now “Omi”): "
        "the translation needs editing"
    ]
    row = translation(card)
    assert (row.text, row.state, row.source_text) == ("Granny", NEEDS_EDITING, "Oma")
    entry = entries(export_po("symbols", "en"))["oma:text"]
    assert (entry.fuzzy, entry.previous_msgid, entry.msgid) == (True, "Oma", "Omi")


def test_an_older_entry_does_not_replace_a_translation_of_the_current_source(mini_catalogue):
    papst = translation(concept("papst"))
    papst.state = TRANSLATED
    papst.save()
    exported = export_po("symbols", "en")
    card = concept("papst")
    card.text = "Der Papst"
    card.save()
    row = translation(card)
    row.text, row.state = "The Pope", TRANSLATED  # re-translated after the source change
    row.save()

    report = import_po(edit(exported, papst__text="Pontiff"), "symbols", "en")
    assert (report.updated, report.conflicts, report.errors) == (0, 1, 0)
    assert "conflict: papst:text: the file was made from an older German text" in report.messages[0]
    assert translation(card).text == "The Pope"


# --- errors: nothing is saved -------------------------------------------------------------------


def import_with_error(extra_entry, language_header="en", project="Kartothek symbols"):
    """Edit one entry validly, add a faulty one; return (report, whether the edit was saved)."""
    row = translation(concept("oma"))
    if row is not None:
        row.delete()
    po = polib.pofile(edit(export_po("symbols", "en"), oma__text="Granny"))
    po.metadata["Language"] = language_header
    po.metadata["Project-Id-Version"] = project
    if extra_entry is not None:
        po.append(extra_entry)
    report = import_po(str(po), "symbols", "en")
    return report, translation(concept("oma")) is not None


def test_an_unknown_msgctxt_is_an_error_and_nothing_is_saved(mini_catalogue):
    report, saved = import_with_error(polib.POEntry(msgctxt="opa:text", msgid="Opa", msgstr="Grandpa"))
    assert (report.errors, report.updated, report.saved, saved) == (1, 1, False, False)
    assert report.messages == ["error: opa:text: unknown msgctxt: no text of this game has the key “opa”"]
    assert report.summary().endswith("; nothing was saved.")


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ("oma:name", "unknown msgctxt: “oma” has no translatable field “name” (fields: text)"),
        ("Oma", "unknown msgctxt: not a Kartothek msgctxt (expected “key:field”, like “oma:text”)"),
        ("sign_symbols/oma:text", "unknown msgctxt: no text of this game has the key “oma”"),
    ],
)
def test_a_msgctxt_that_addresses_nothing_is_named(mini_catalogue, context, message):
    report, _saved = import_with_error(polib.POEntry(msgctxt=context, msgid="Oma", msgstr="x"))
    assert report.messages == [f"error: {context}: {message}"]


def test_an_entry_without_msgctxt_is_an_error(mini_catalogue):
    report, saved = import_with_error(polib.POEntry(msgid="Opa", msgstr="Grandpa"))
    assert report.messages == ["error: msgid “Opa”: the entry has no msgctxt (“key:field”)"]
    assert not saved


def test_a_text_the_translation_rules_reject_is_an_error(mini_catalogue):
    translation(concept("oma")).delete()
    translation(concept("papst")).delete()
    text = edit(export_po("symbols", "en"), oma__text="Granny", papst__text=" Pope ")
    report = import_po(text, "symbols", "en")
    assert (report.errors, report.saved) == (1, False)
    assert translation(concept("oma")) is None
    assert report.messages == ["error: papst:text: Remove the spaces at the start or end of this text."]


def test_the_same_text_twice_is_an_error(mini_catalogue):
    report, saved = import_with_error(polib.POEntry(msgctxt="oma:text", msgid="Oma", msgstr="Gran"))
    assert report.messages == ["error: oma:text: this text appears twice in the file"]
    assert not saved


def test_a_file_for_another_language_is_an_error(mini_catalogue):
    report, saved = import_with_error(None, language_header="fr_FR")
    assert report.messages == ["error: the file is for the language “fr_FR”, not “en”"]
    assert not saved
    report, saved = import_with_error(None, language_header="en_GB")
    assert report.errors == 0 and saved


def test_a_file_of_another_game_is_an_error(mini_catalogue):
    report, saved = import_with_error(None, project="Kartothek sign")
    assert report.messages == [
        "error: this file is for Sign, you uploaded it on the row of Sag's mit Symbolen: upload "
        "it on the row of Sign (en)"
    ]
    assert not saved


def test_an_ambiguous_short_context_is_an_error_and_the_qualified_one_works(mini_catalogue):
    SignColour.objects.create(key="anker", name="Ankerblau", hex="#000080", mark="A", position=6)
    colour = SignColour.objects.get(key="anker")
    short = polib.POEntry(msgctxt="anker:name", msgid="Ankerblau", msgstr="Anchor blue")
    report = import_po(str(_po_with(short)), "sign", "en")
    assert report.messages == [
        "error: anker:name: unknown msgctxt: more than one text has this key and field; write it as "
        "“sign_symbols/anker:name” or “sign_colours/anker:name”"
    ]
    qualified = polib.POEntry(msgctxt="sign_colours/anker:name", msgid="Ankerblau", msgstr="Anchor blue")
    report = import_po(str(_po_with(qualified)), "sign", "en")
    assert (report.updated, report.errors) == (1, 0)
    assert translation(colour, "name").text == "Anchor blue"


def _po_with(*items):
    po = polib.POFile()
    po.metadata = {"Language": "en", "Content-Type": "text/plain; charset=UTF-8"}
    for item in items:
        po.append(item)
    return po


NOT_PO = "error: the file cannot be read as a PO file (Syntax error in po file (line 1))"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("this is not a PO file\n", NOT_PO),
        ('msgid ""\nmsgstr ""\n"Language: en\\n"\n', "error: the file holds no entries"),
        ("", "error: the file holds no entries"),
        ("/etc/passwd", NOT_PO),  # a path is text to read, never a file to open
    ],
)
def test_a_file_that_is_not_a_po_file_is_an_error(mini_catalogue, text, message):
    report = import_po(text, "symbols", "en")
    assert report.messages == [message]
    assert not report.saved


def test_a_dry_run_reports_and_saves_nothing(mini_catalogue):
    translation(concept("oma")).delete()
    report = import_po(edit(export_po("symbols", "en"), oma__text="Granny"), "symbols", "en", dry_run=True)
    assert (report.updated, report.saved, report.dry_run) == (1, False, True)
    assert report.summary() == (
        "1 updated, 17 unchanged, 0 left alone, 0 conflicts, 0 errors (dry run: nothing was saved)."
    )
    assert translation(concept("oma")) is None


# --- commands ------------------------------------------------------------------------------------


def test_export_po_writes_a_file_or_standard_output(mini_catalogue, run_command, tmp_path):
    out = tmp_path / "sauschwer-en.po"
    status, stdout, _ = run_command("export_po", "sauschwer", "en", "--out", str(out))
    assert status == 0 and "Wrote" in stdout
    assert out.read_text(encoding="utf-8") == export_po("sauschwer", "en")
    status, stdout, _ = run_command("export_po", "sauschwer", "en")
    assert status == 0 and stdout == export_po("sauschwer", "en")
    status, _, stderr = run_command("export_po", "poker", "en")
    assert status == 1 and "unknown game" in stderr


def test_import_po_saves_and_exits_1_on_errors(mini_catalogue, run_command, tmp_path):
    egg = SauschwerObject.objects.get(key="ein-huehnerei")
    row = translation(egg, "name")
    row.state = TRANSLATED
    row.save()
    path = tmp_path / "sauschwer-en.po"
    path.write_text(edit(export_po("sauschwer", "en"), ein_huehnerei__name="An egg"), encoding="utf-8")

    status, stdout, _ = run_command("import_po", str(path), "sauschwer", "en", "--dry-run")
    assert status == 0 and "1 updated" in stdout and "dry run" in stdout
    assert translation(egg, "name").text == "A hen's egg"

    status, stdout, _ = run_command("import_po", str(path), "sauschwer", "en")
    assert status == 0 and "1 updated" in stdout
    assert translation(egg, "name").text == "An egg"

    path.write_text(path.read_text(encoding="utf-8").replace("ein-huehnerei:name", "ein-ei:name"))
    status, _, stderr = run_command("import_po", str(path), "sauschwer", "en")
    assert status == 1
    assert "error: ein-ei:name: unknown msgctxt" in stderr and "nothing was saved" in stderr

    path.write_bytes("msgid \"\"\nmsgstr \"Grüße\"\n".encode("latin-1"))
    status, _, stderr = run_command("import_po", str(path), "sauschwer", "en")
    assert status == 1 and "not UTF-8" in stderr
