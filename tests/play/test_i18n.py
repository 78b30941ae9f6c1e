"""The play pages' German strings: complete, and the committed .mo matches the .po."""

from pathlib import Path

import polib

LOCALE = Path(__file__).resolve().parents[2] / "locale" / "de" / "LC_MESSAGES"


def _messages(entries) -> dict:
    return {(e.msgctxt, e.msgid): (e.msgstr, tuple(sorted(e.msgstr_plural.items())))
            for e in entries if e.msgid}


def test_every_german_play_string_is_translated():
    po = polib.pofile(str(LOCALE / "django.po"))
    assert not po.untranslated_entries()
    assert not po.fuzzy_entries()


def test_the_compiled_german_catalogue_is_up_to_date():
    """Recompile after editing django.po: polib.pofile(po).save_as_mofile(mo)."""
    po = polib.pofile(str(LOCALE / "django.po"))
    mo = polib.mofile(str(LOCALE / "django.mo"))
    assert _messages(mo) == _messages(po.translated_entries())


def test_the_placeholders_survive_translation():
    import re

    for entry in polib.pofile(str(LOCALE / "django.po")):
        wanted = set(re.findall(r"%\(\w+\)s", entry.msgid))
        for text in [entry.msgstr, *entry.msgstr_plural.values()]:
            if text:
                assert set(re.findall(r"%\(\w+\)s", text)) == wanted, entry.msgid
