"""The English catalogue is in American spelling (fixtures/FORMAT.md), the rulebook's own."""

import csv
import re
from pathlib import Path

import pytest

ENGLISH = Path(__file__).resolve().parent.parent / "fixtures" / "translations" / "en"
# Slogans are quoted as the brands wrote them, in their own market's spelling: not checked.
CHECKED = ["concepts.csv", "symbol_tiles.csv", "sign_symbols.csv", "sign_colours.csv",
           "objects.csv", "alfons_cards.csv"]

# Common British spellings, each as a whole word (with its usual endings).
BRITISH = re.compile(
    r"\b("
    r"(col|fav|hon|neighb|behavi|lab|flav|harb|hum|rum|vap|arb|savi)our(s|ed|ing|ite|ites|ful|able)?"
    r"|litres?|metres?|centi?metres?|kilometres?|centres?|theatres?|fibres?|calibres?|sombre"
    r"|tyres?|grey|greys|aluminium|kerbs?|cheques?|programmes?|catalogues?|jewellery|pyjamas"
    r"|travell(ed|ing|er|ers)|cancell(ed|ing)|model(l)(ed|ing)|defence|offence|licence|practise"
    r"|(organ|real|recogn|apolog|minim|maxim|special|emphas|sympath|summar|priorit|categor)is(e|ed|es|ing|ation)"
    r"|analys(e|ed|es|ing)|paralys(e|ed)|storeys?|ploughs?|moulds?|draughts?|manoeuvres?|aeroplanes?"
    r"|mum|mums|whilst|enrol|fulfil|instal|sceptic(al)?|paediatric|anaesthetic|oestrogen|gaol"
    r")\b",
    re.IGNORECASE,
)


def british_words(text: str) -> list[str]:
    return [match.group(0) for match in BRITISH.finditer(text)]


def english_rows() -> list[tuple[str, str, str]]:
    rows = []
    for name in CHECKED:
        with (ENGLISH / name).open(encoding="utf-8") as f:
            rows += [(name, r["key"], r["text"]) for r in csv.DictReader(f)]
    return rows


def test_every_checked_english_text_uses_american_spelling():
    offenders = [(name, key, text, british_words(text)) for name, key, text in english_rows()
                 if british_words(text)]
    assert offenders == []


@pytest.mark.parametrize("text, words", [
    ("A litre of aluminium", ["litre", "aluminium"]),
    ("The canteen miscalculated in your favour.", ["favour"]),
    ("You broke the boss's favourite mug.", ["favourite"]),
    ("A car tyre at the kerb", ["tyre", "kerb"]),
    ("Grey theatre masks", ["Grey", "theatre"]),
    ("They organised a programme", ["organised", "programme"]),
    ("A colourful coat", ["colourful"]),
])
def test_the_check_catches_british_spellings(text, words):
    assert british_words(text) == words


@pytest.mark.parametrize("text", [
    "A liter of aluminum", "You broke the boss's favorite mug.", "A gray color", "A car tire",
    "Movie theater", "Meter", "Harbor", "A colorful coat", "A curb weight",
])
def test_the_check_leaves_american_spellings_alone(text):
    assert british_words(text) == []
