"""Formula escaping of exported cells (CSV injection) and its exact inverse."""

import datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from cards.formulas import (
    FORMULA_TRIGGERS,
    escape_cell,
    escape_formula,
    unescape_cell,
    unescape_formula,
)


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        ("=SUM(A1:A3)", "'=SUM(A1:A3)"),
        ("+49 30 1234", "'+49 30 1234"),
        ("-3 Felder zurück", "'-3 Felder zurück"),
        ("@cmd", "'@cmd"),
        ("\tTab first", "'\tTab first"),
        ("\rCarriage return first", "'\rCarriage return first"),
        ('=HYPERLINK("http://evil","klick")', '\'=HYPERLINK("http://evil","klick")'),
        ("-", "'-"),
        ("=", "'="),
    ],
)
def test_a_text_starting_with_a_formula_character_gets_a_quote(text, cell):
    assert escape_formula(text) == cell
    assert unescape_formula(cell) == text


@pytest.mark.parametrize("text", ["'quoted", "'", "''", "'=already"])
def test_a_text_starting_with_a_quote_gets_a_second_quote_and_comes_back(text):
    assert escape_formula(text) == "'" + text
    assert unescape_formula(escape_formula(text)) == text


@pytest.mark.parametrize("text", ["Oma", "", "Quadratisch. Praktisch. Gut.", "a=b", "1+1", " =x", "€5"])
def test_an_ordinary_text_is_left_alone(text):
    assert escape_formula(text) == text
    assert unescape_formula(text) == text


@pytest.mark.parametrize("number", ["-3", "+4", "-1.5", "-1,5", "42", "-0"])
def test_a_plain_number_stays_a_number(number):
    assert escape_formula(number) == number
    assert unescape_formula(number) == number


@pytest.mark.parametrize("text", ["-3+2", "-1 cmd", "+49 30", "-3e5", "--3"])
def test_a_sign_followed_by_more_than_a_number_is_escaped(text):
    assert escape_formula(text) == "'" + text


@pytest.mark.parametrize("cell", ["'Oma", "'3", "'", " '=x"])
def test_unescape_keeps_a_quote_that_escaping_would_not_have_written(cell):
    assert unescape_formula(cell) == cell


def test_cells_that_are_not_text_pass_through():
    day = datetime.date(2025, 1, 1)
    for value in (None, 3, -3, 1.5, True, day):
        assert escape_cell(value) is value
        assert unescape_cell(value) is value
    assert escape_cell("=1") == "'=1"
    assert unescape_cell("'=1") == "=1"


_texts = st.text() | st.builds(
    lambda head, tail: head + tail,
    st.sampled_from([*FORMULA_TRIGGERS, "'", "''", "'=", "-1", "+1"]),
    st.text(),
)


@given(_texts)
@example("'")
@example("''-3")
@example("'-3")
def test_unescape_gives_back_exactly_what_was_escaped(text):
    assert unescape_formula(escape_formula(text)) == text


@given(_texts)
def test_an_escaped_cell_never_starts_a_formula(text):
    cell = escape_formula(text)
    if cell.startswith(FORMULA_TRIGGERS):
        # only a plain number may start with a sign, and it is a value, not a formula
        assert cell == text
        assert cell[0] in "+-"
        assert cell[1:].replace(".", "").replace(",", "").isdigit()


@given(_texts)
def test_escaping_twice_round_trips_twice(text):
    assert unescape_formula(unescape_formula(escape_formula(escape_formula(text)))) == text
