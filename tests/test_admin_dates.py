"""Issue 37, item 11: English admin dates read "4 Dec 2026, 15:44" (not "Dec. 4, 2026,
3:44 p.m."), and a message ending in a date gets one full stop, not two."""

import datetime as dt

import pytest
from django.utils import formats, translation

MOMENT = dt.datetime(2026, 12, 4, 15, 44)


def test_english_dates_have_a_24_hour_clock_and_no_dots():
    with translation.override("en"):
        assert formats.date_format(MOMENT, "DATETIME_FORMAT") == "4 Dec 2026, 15:44"
        assert formats.date_format(MOMENT, "SHORT_DATETIME_FORMAT") == "2026-12-04 15:44"
        assert formats.date_format(MOMENT.date(), "DATE_FORMAT") == "4 Dec 2026"


def test_german_dates_stay_germanys():
    with translation.override("de"):
        assert formats.date_format(MOMENT, "SHORT_DATETIME_FORMAT") == "04.12.2026 15:44"


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_admins_date_inputs_still_read_what_they_show(language):
    with translation.override(language):
        shown = formats.date_format(MOMENT.date(), "SHORT_DATE_FORMAT")
        parsed = [fmt for fmt in formats.get_format("DATE_INPUT_FORMATS")
                  if _parses(shown, fmt)]
        assert parsed, (language, shown)


def _parses(text: str, fmt: str) -> bool:
    try:
        dt.datetime.strptime(text, fmt)
    except ValueError:
        return False
    return True


def test_a_message_ending_in_a_date_has_one_full_stop():
    from django.utils import timezone

    from curation.curator_words import local_date

    with translation.override("en"):
        message = f"Restored as it was on {local_date(timezone.make_aware(MOMENT))}."
    assert not message.endswith("..") and message.endswith("15:44.")
