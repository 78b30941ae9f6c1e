"""Checks that no answer option of a slogan card gives the answer away.

Each check reads one card as plain data (:class:`CardSides`) and the brand owner table
(:class:`cards.brands.BrandTable`) and returns :class:`OptionFinding` s:

- ``brand-unknown``: an option or answer whose brand has no owner in the table;
- ``same-group``: an option owned by the answer's company group, today or in the slogan's
  year (when its source names one);
- ``name-in-text``: an option's name, or a distinctive word of it, stands in the slogan text;
- ``answer-on-other-side``: one side's answer is among the other side's options (the duel
  reads both sides aloud);
- ``article``: the article before the blank rules an option out (German: an option's own
  article, written with it, must fit; English: *a* / *an* must fit its first letter).

:mod:`cards.option_findings` runs them over the stored catalogue and leaves out what a
curator dismissed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cards.brands import ARTICLE, BrandTable, brand_keys, brand_name, fold

CHECKS: dict[str, str] = {
    "brand-unknown": "Brand without an owner group",
    "same-group": "Option from the answer's company group",
    "name-in-text": "Name in the slogan text",
    "answer-on-other-side": "Answer offered on the other side",
    "article": "Article rules an option out",
}

# Words of a brand name that are ordinary words of the slogans' languages, not the brand
# itself ("Bank" in "Deutsche Bank" may stand in "Die Bank an Ihrer Seite").
GENERIC_WORDS = frozenset({
    "bank", "deutsche", "deutscher", "the", "und", "der", "die", "das", "for", "you", "life",
    "of", "and", "milch", "us", "new", "york", "times", "air", "lines", "airlines", "best",
    "company", "group", "club", "original", "red", "blue", "green", "gold", "king", "post",
    "daily", "one", "star", "first", "national", "general", "american", "british", "city",
})

# The article before the blank -> the genders (of the option's own nominative article) it
# takes: m, f, n, or p (plural, "die").
GERMAN_ARTICLES: dict[str, set[str]] = {
    "der": {"m", "f", "p"}, "die": {"f", "p"}, "das": {"n"}, "den": {"m", "p"},
    "dem": {"m", "n"}, "des": {"m", "n"}, "ein": {"m", "n"}, "eine": {"f"}, "einen": {"m"},
    "einem": {"m", "n"}, "einer": {"f"}, "eines": {"m", "n"}, "im": {"m", "n"},
    "am": {"m", "n"}, "vom": {"m", "n"}, "zum": {"m", "n"}, "beim": {"m", "n"},
    "zur": {"f"}, "ins": {"n"},
}
OWN_ARTICLE = {"der": "m", "die": "f", "das": "n"}
BLANK = "…"
YEAR = re.compile(r"\b(19[0-9]{2}|20[0-2][0-9])(?:er)?\b")


@dataclass
class Side:
    key: str
    text: str  # the slogan as the German edition prints it
    options: list[str]  # in position order
    correct: int  # 1..4
    english: str = ""  # the English text (an English-language slogan: the same as text)
    year: int | None = None  # when the slogan ran, where its source says

    @property
    def answer(self) -> str:
        return self.options[self.correct - 1]


@dataclass(frozen=True)
class OptionFinding:
    slogan: str  # the slogan's key
    field: str  # "option_1" … "option_4", or "text"
    check: str
    message: str
    option: str = ""  # the option's text the finding is about

    @property
    def title(self) -> str:
        return CHECKS[self.check]


@dataclass
class CardSides:
    key: str
    sides: dict[int, Side] = field(default_factory=dict)


def year_of(source: str) -> int | None:
    """The year a slogan's source names (the first one; "2000er" reads as 2000), or None."""
    match = YEAR.search(source or "")
    return int(match.group(1)) if match else None


def distinctive_words(name: str) -> list[str]:
    return [w for w in fold(ARTICLE.sub("", brand_name(name))).split()
            if len(w) >= 3 and w not in GENERIC_WORDS]


# Spellings of one sound folded together, so "Joghurt" meets "Yogurette" and "Kaffee"
# "Caffè": the German umlauts and ß as written out, then ph/gh/th/ck/c/y.
SPELLINGS = (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss"), ("ph", "f"), ("gh", "g"),
             ("th", "t"), ("ck", "k"), ("c", "k"), ("y", "j"))
STEM = 5  # letters of a shared stem that count as the name (schuh, jogur, doubl)
SHORT_STEM = 4  # a name's whole word of four letters starting a word of the text (drug / drugs)


def spelling(word: str) -> str:
    """A folded word with spelling variants merged (see SPELLINGS)."""
    word = word.casefold()
    for a, b in SPELLINGS[:4]:
        word = word.replace(a, b)
    word = fold(word).replace(" ", "")
    for a, b in SPELLINGS[4:]:
        word = word.replace(a, b)
    return word


def _same_word(word: str, candidate: str) -> bool:
    """The same word, one of its forms (walker / walking, haribos / haribo), or a word that
    shares the name's stem across compounds and spellings: the first five letters of one
    inside the other (Schuhe / Schuhinstitut, joghurt / Yogurette, double / Doublemint), or
    the name's whole word of four letters beginning the text's word (Drug-Free / drugs)."""
    if word == candidate:
        return True
    shared = len(_common_prefix(word, candidate))
    if len(word) >= 5 and len(candidate) >= 5 and shared >= max(4, len(word) - 2):
        return True
    a, b = spelling(word), spelling(candidate)
    if min(len(a), len(b)) < SHORT_STEM:
        return False
    if len(a) >= STEM and len(b) >= STEM and (a[:STEM] in b or b[:STEM] in a):
        return True
    return len(a) == SHORT_STEM and b.startswith(a)  # not "walk" for Walker: too short to tell


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def words_in_text(text: str, name: str) -> list[str]:
    """The distinctive words of ``name`` that stand (in some form) in ``text``."""
    words = [w for w in fold(text).split() if w not in GENERIC_WORDS]
    return [w for w in distinctive_words(name) if any(_same_word(w, t) for t in words)]


def check_brand_unknown(side: Side, table: BrandTable) -> list[OptionFinding]:
    return [
        OptionFinding(side.key, f"option_{n}", "brand-unknown",
                      f"“{brand_name(o)}” has no owner group in the brand table: add a row "
                      "(Brand owners) with its group, since when, and a source.", o)
        for n, o in enumerate(side.options, start=1) if not table.knows(o)
    ]


def check_same_group(side: Side, table: BrandTable) -> list[OptionFinding]:
    found = []
    answer = side.answer
    years: list[int | None] = [None] + ([side.year] if side.year else [])
    for n, option in enumerate(side.options, start=1):
        if n == side.correct or set(brand_keys(option)) & set(brand_keys(answer)):
            continue  # the answer twice is the unit check's "the same option appears twice"
        for year in years:
            shared = table.groups(answer, year) & table.groups(option, year)
            if shared:
                when = "today" if year is None else f"in {year}"
                found.append(OptionFinding(
                    side.key, f"option_{n}", "same-group",
                    f"“{brand_name(option)}” and the answer “{brand_name(answer)}” belong to the "
                    f"same group {when} ({', '.join(sorted(shared))}): a player who knows it can "
                    "argue for both; use a competitor of another group.", option))
                break
    return found


def check_name_in_text(side: Side) -> list[OptionFinding]:
    found = []
    texts = [side.text] + ([side.english] if side.english and side.english != side.text else [])
    for n, option in enumerate(side.options, start=1):
        words = sorted({w for t in texts for w in words_in_text(t, option)})
        if words:
            role = "the answer" if n == side.correct else "an option"
            found.append(OptionFinding(
                side.key, f"option_{n}", "name-in-text",
                f"the slogan text names {role}, “{brand_name(option)}” "
                f"({', '.join(words)}): write “…” there or choose another option.", option))
    return found


def check_answer_on_other_side(card: CardSides) -> list[OptionFinding]:
    found = []
    for side_number, side in card.sides.items():
        for other_number, other in card.sides.items():
            if other_number == side_number:
                continue
            answers = set(brand_keys(other.answer))
            for n, option in enumerate(side.options, start=1):
                if answers & set(brand_keys(option)):
                    found.append(OptionFinding(
                        side.key, f"option_{n}", "answer-on-other-side",
                        f"“{brand_name(option)}” is the answer of the card's other slogan "
                        f"(“{other.text}”): the duel reads both sides, so it gives that answer "
                        "away; choose another option.", option))
    return found


def _word_before_blank(text: str) -> str | None:
    match = re.search(r"(\w+)\s+" + BLANK, text)
    return match.group(1).casefold() if match else None


def check_article(side: Side) -> list[OptionFinding]:
    found = []
    word = _word_before_blank(side.text)
    if word in GERMAN_ARTICLES:
        fits = GERMAN_ARTICLES[word]
        for n, option in enumerate(side.options, start=1):
            own = ARTICLE.match(option)
            gender = OWN_ARTICLE.get(own.group(0).strip().casefold()) if own else None
            if gender is None:
                found.append(OptionFinding(
                    side.key, f"option_{n}", "article",
                    f"the slogan has “{word} …”, but “{option}” carries no article, so no one "
                    "can see whether it fits: write it with its article (der, die, das) or "
                    "dismiss with the reason every option fits.", option))
            elif gender not in fits:
                found.append(OptionFinding(
                    side.key, f"option_{n}", "article",
                    f"“{word} …” rules out “{option}” (its article does not fit): a player can "
                    "strike it by grammar alone; use a competitor that fits.", option))
    english = _word_before_blank(side.english) if side.english else None
    if english in ("a", "an"):  # only in the English text: German "an …" is a preposition
        for n, option in enumerate(side.options, start=1):
            starts_with_vowel = fold(option)[:1] in tuple("aeiou")
            if (english == "an") != starts_with_vowel:
                found.append(OptionFinding(
                    side.key, f"option_{n}", "article",
                    f"“{english} …” does not fit “{option}”: a player can strike it by "
                    "grammar alone; use a competitor that fits (or dismiss: the letter is not "
                    "the sound, as in “an hour”).", option))
    return found


def card_findings(card: CardSides, table: BrandTable) -> list[OptionFinding]:
    """Every finding on one card, in side and option order."""
    found: list[OptionFinding] = []
    for side in card.sides.values():
        found += check_brand_unknown(side, table)
        found += check_same_group(side, table)
        found += check_name_in_text(side)
        found += check_article(side)
    found += check_answer_on_other_side(card)
    order = {s.key: n for n, s in card.sides.items()}
    return sorted(found, key=lambda f: (order.get(f.slogan, 0), f.field, f.check))
