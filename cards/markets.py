"""Markets and editions: where players know a slogan, and what a deck is printed for.

For most languages the market is the language (de); the English edition is sold in two
markets whose players know different slogans (en-GB, en-US). An *edition* is a language (every
market of it) or a language in one market ("en-GB").
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError

# --- Slogan ------------------------------------------------------------------------------


# A market is where players know a slogan. For most languages the market is the language
# (de); the English edition is sold in two markets whose players know different slogans, so
# a slogan can be known in the UK only (en-GB), the US only (en-US) or both (en). The codes
# are BCP 47 tags, as "en-GB" is everywhere else; an "edition" is what a deck is printed
# for: a language (every market of it) or a language in one market ("en-GB").
REGIONAL_MARKETS: dict[str, tuple[str, ...]] = {"en": ("GB", "US")}
MARKET_NAMES = {"GB": "UK", "US": "US"}
MARKET_ALIASES = {"UK": "GB"}  # what a publisher types for the United Kingdom


def _token(part: str) -> str:
    language, _, region = part.strip().replace("_", "-").partition("-")
    return language.lower() + (f"-{region.upper()}" if region else "")


def market_leaves(value: str | list[str] | None) -> set[str]:
    """The single markets a ``markets`` value covers: "de,en" -> {de, en-GB, en-US}."""
    parts = value if isinstance(value, list) else (value or "").split(",")
    leaves: set[str] = set()
    for part in parts:
        if not part.strip():
            continue
        token = _token(part)
        regions = REGIONAL_MARKETS.get(token)
        if regions:
            leaves.update(f"{token}-{r}" for r in regions)
        else:
            leaves.add(token)
    return leaves


def market_list(value: str | list[str] | None) -> list[str]:
    """The market codes of a ``markets`` value, one way: sorted, no repeats, and a language
    named whole when all its markets are ("en-US, EN-gb, de" -> ["de", "en"])."""
    leaves = market_leaves(value)
    codes = set(leaves)
    for language, regions in REGIONAL_MARKETS.items():
        whole = {f"{language}-{r}" for r in regions}
        if whole <= leaves:
            codes = (codes - whole) | {language}
    return sorted(codes)


def market_codes_allowed() -> list[str]:
    """Every code a ``markets`` value may hold: each configured language, and its markets."""
    codes = []
    for language in settings.KARTOTHEK_LANGUAGES:
        codes.append(language)
        codes.extend(f"{language}-{r}" for r in REGIONAL_MARKETS.get(language, ()))
    return codes


def describe_market(code: str) -> str:
    """A market code for people: "en-GB (UK only)", "en (UK and US)", "de"."""
    language, _, region = code.partition("-")
    if region:
        return f"{code} ({MARKET_NAMES.get(region, region)} only)"
    if language in REGIONAL_MARKETS:
        return f"{code} ({' and '.join(MARKET_NAMES.get(r, r) for r in REGIONAL_MARKETS[language])})"
    return code


def _allowed_described() -> str:
    return ", ".join(describe_market(code) for code in market_codes_allowed())


def validate_markets(value: str) -> None:
    tokens = {_token(part) for part in (value or "").split(",") if part.strip()}
    if not tokens:
        raise ValidationError("Name at least one market: %(codes)s.",
                              params={"codes": _allowed_described()})
    unknown = sorted(tokens - set(market_codes_allowed()))
    if unknown:
        raise ValidationError(
            "Unknown market %(unknown)s; the markets are: %(codes)s.",
            params={"unknown": ", ".join(unknown), "codes": _allowed_described()},
        )


def markets_or_source(value: str | None) -> str:
    # An empty cell (a new row in an old spreadsheet, an admin form without the field) means
    # what every slogan meant before markets existed: known in the source language's market.
    return ",".join(market_list(value)) or settings.KARTOTHEK_LANGUAGES[0]


def cards_in_market(rows: list[tuple[str, str]]) -> dict[str, set[str]]:
    """card key -> the single markets (de, en-GB, en-US) shared by all its slogans, from
    (card key, markets) rows. :func:`in_edition` says whether that puts it in a deck."""
    shared: dict[str, set[str]] = {}
    for card, markets in rows:
        leaves = market_leaves(markets)
        shared[card] = shared[card] & leaves if card in shared else leaves
    return shared


def normal_market(language: str, market: str | None) -> str | None:
    """A market option ("gb", "UK", "US") as its code ("GB"), checked against the language;
    None for none. Raises ValueError with the choices when the language has no such market."""
    if market is None or not str(market).strip():
        return None
    code = str(market).strip().upper()
    code = MARKET_ALIASES.get(code, code)
    regions = REGIONAL_MARKETS.get(language, ())
    if not regions:
        raise ValueError(f"The '{language}' edition has one market; there is no market "
                         f"'{market}' to choose.")
    if code not in regions:
        choices = ", ".join(f"{r} ({MARKET_NAMES.get(r, r)})" for r in regions)
        raise ValueError(f"There is no market '{market}' for '{language}'; the markets are: "
                         f"{choices}.")
    return code


def split_edition(edition: str) -> tuple[str, str | None]:
    """"en-GB" -> ("en", "GB"); "en" -> ("en", None). Raises ValueError for a market the
    language does not have."""
    language, _, region = edition.partition("-")
    return language, normal_market(language, region) if region else None


def edition_of(language: str, market: str | None) -> str:
    code = normal_market(language, market)
    return f"{language}-{code}" if code else language


def editions_of(language: str) -> list[str]:
    """The decks a language can be printed for: the whole language, then each market."""
    return [language, *(f"{language}-{r}" for r in REGIONAL_MARKETS.get(language, ()))]


def in_edition(shared: set[str], edition: str) -> bool:
    """Whether a card whose slogans share the markets ``shared`` is in the deck of an edition.

    A market's deck ("en-GB") holds the cards known there; a language's deck ("en") holds the
    cards known in every market of it (what any English-speaking table can play)."""
    return market_leaves(edition) <= shared


#: Languages by name, for the choices where a code alone says too little.
LANGUAGE_NAMES = {"de": "German", "en": "English", "fr": "French", "it": "Italian",
                  "es": "Spanish", "nl": "Dutch", "pl": "Polish"}


def edition_label(edition: str, *, markets: bool = True) -> str:
    """An edition for people: "en-GB (UK deck)", "en (cards known in the UK and the US)"; for
    a game without markets (``markets=False``: every game but Slogan) the language by name,
    "en (English)"."""
    language, _, region = edition.partition("-")
    if not markets:
        return f"{edition} ({LANGUAGE_NAMES[language]})" if language in LANGUAGE_NAMES else edition
    if region:
        return f"{edition} ({MARKET_NAMES.get(region, region)} deck)"
    if language in REGIONAL_MARKETS:
        names = " and the ".join(MARKET_NAMES.get(r, r) for r in REGIONAL_MARKETS[language])
        return f"{edition} (cards known in the {names})"
    return edition
