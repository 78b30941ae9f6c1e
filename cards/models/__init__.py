"""The content model: every table of the cards app, gathered here as Django expects of an
app's models module.

- base.py: the games, translations and their states, the base classes of all content;
- symbols.py, sign.py, slogan.py, sauschwer.py: each game's content types;
- brands.py: brand owners of slogans; translation_checks.py: the glossary and dismissed
  checks; stored_findings.py: the translation check findings kept up to date.

Markets and editions (where a slogan is known, what a deck is printed for) are rules without
tables, in cards/markets.py; their names are handed on here too, as the code always read them.
"""

from __future__ import annotations

# isort: off
# The models register in the order the one models.py defined them (base, the four games, brands,
# then the checks' tables): a flushed test database makes its content types again in this order,
# and translations are ordered by content type, so the order stays as it was.
from cards.models.base import (  # noqa: F401
    EMPTY,
    Content,
    ContentManager,
    ContentQuerySet,
    Game,
    Translatable,
    Translation,
    TranslationState,
    translation_max_length,
)
from cards.models.symbols import ConceptCard, SymbolTile
from cards.models.sign import SignCard, SignColour, SignSymbol
from cards.models.slogan import (  # noqa: F401
    AlfonsCard,
    AlfonsEffect,
    Slogan,
    SloganCard,
    SloganOption,
    SwapTarget,
    alfons_effect_problems,
    option_problems,
)
from cards.models.sauschwer import SauschwerObject
from cards.models.brands import BrandOwnership  # noqa: F401
from cards.models.translation_checks import CheckDismissal, GlossaryTerm  # noqa: F401
from cards.models.stored_findings import StaleFindings, TranslationCount, TranslationFinding  # noqa: F401
# isort: on
from cards.markets import (  # noqa: F401
    MARKET_ALIASES,
    MARKET_NAMES,
    REGIONAL_MARKETS,
    cards_in_market,
    describe_market,
    edition_label,
    edition_of,
    editions_of,
    in_edition,
    market_codes_allowed,
    market_leaves,
    market_list,
    markets_or_source,
    normal_market,
    split_edition,
    validate_markets,
)

#: Every content model, in the order a catalogue is loaded (referenced rows first).
CONTENT_MODELS: tuple[type[Content], ...] = (
    ConceptCard,
    SymbolTile,
    SignSymbol,
    SignColour,
    SignCard,
    SloganCard,
    Slogan,
    AlfonsCard,
    SauschwerObject,
)
TRANSLATABLE_MODELS: tuple[type[Translatable], ...] = (
    *(m for m in CONTENT_MODELS if m.TRANSLATABLE_FIELDS),
    SloganOption,
)


def models_of(game: str) -> list[type[Translatable]]:
    """The translatable content types of one game."""
    return [m for m in TRANSLATABLE_MODELS if m.GAME == game]
