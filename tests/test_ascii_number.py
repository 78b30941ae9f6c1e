"""Numbers from requests, files and headers are ASCII digits: "²" or "١" pass ``str.isdigit()``
but ``int()`` refuses them (a 500 on the event stream's Last-Event-ID, found by the fuzz test)."""

import pytest

from cards.text import ascii_number


@pytest.mark.parametrize("text", ["0", "7", "123456789012345678"])
def test_ascii_digits_are_a_number(text):
    assert ascii_number(text)


@pytest.mark.parametrize("text", ["", "²", "١٢", "𝟗", "1.5", "-1", " 3", "1e3", "1234567890123456789"])
def test_other_digits_signs_spaces_and_overlong_numbers_are_not(text):
    assert not ascii_number(text)


def test_the_digit_limit_is_the_callers():
    assert ascii_number("1234567890", 10) and not ascii_number("1234567890", 9)


@pytest.mark.parametrize("text", ["²", "-1", "1e3", "9" * 5000, "1234567890", "", None, " ", "0x1"])
def test_a_request_number_that_is_no_bounded_whole_number_is_none(text):
    from cards.text import whole_number

    assert whole_number(text) is None


def test_a_request_number_within_its_digits_is_read():
    from cards.text import whole_number

    assert whole_number(" 42 ") == 42 and whole_number(7) == 7 and whole_number("0") == 0
    assert whole_number("1234567890", 10) == 1234567890
