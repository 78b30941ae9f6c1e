"""The brand owner table the Slogan option checks read, and how an option names its brand.

``fixtures/slogan/brands.csv`` (columns ``brand,group,since,until,source``, one row per brand
and ownership period) is read and written by ``cards.brand_files.BrandOwnershipResource``.
:class:`BrandTable` answers "which groups owned this brand (in a year, or today)".
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from cards.models import BrandOwnership

BRAND_COLUMNS = ("brand", "group", "since", "until", "source")
FILE_STEM = "slogan/brands"

# A leading article is part of how an option is written (der General), not of the brand.
ARTICLE = re.compile(r"^(?:der|die|das|the)\s+", re.IGNORECASE)


def fold(text: str) -> str:
    """A name as it is compared: case, accents, punctuation and spacing ignored."""
    text = unicodedata.normalize("NFKD", text.casefold()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", " ", text).strip()


def brand_name(option: str) -> str:
    """The brand an answer option names: without a gloss in brackets."""
    return re.sub(r"\s*\([^)]*\)\s*$", "", option).strip()


def brand_keys(option: str) -> list[str]:
    """The folded names an option may be listed under (with and without its article)."""
    name = brand_name(option)
    keys = [fold(name)]
    bare = ARTICLE.sub("", name)
    if bare != name:
        keys.append(fold(bare))
    return keys


@dataclass(frozen=True)
class Period:
    group: str
    since: int | None
    until: int | None

    def covers(self, year: int | None) -> bool:
        if year is None:
            return self.until is None
        return (self.since is None or self.since <= year) and (self.until is None or year <= self.until)


class BrandTable:
    """Folded brand name -> its ownership periods."""

    def __init__(self, rows: Iterable[tuple[str, str, int | None, int | None]]) -> None:
        self.periods: dict[str, list[Period]] = defaultdict(list)
        for brand, group, since, until in rows:
            self.periods[fold(brand)].append(Period(fold(group), since, until))

    @classmethod
    def load(cls) -> BrandTable:
        return cls(BrandOwnership.objects.values_list("brand", "group", "since", "until"))

    def _periods(self, option: str) -> list[Period]:
        for key in brand_keys(option):
            if key in self.periods:
                return self.periods[key]
        return []

    def knows(self, option: str) -> bool:
        return bool(self._periods(option))

    def groups(self, option: str, year: int | None = None) -> set[str]:
        """The groups that owned the brand in ``year`` (None: today). A brand always counts
        as part of the group of its own name, so a parent beside its brand is found too."""
        found = {p.group for p in self._periods(option) if p.covers(year)}
        return found | {key for key in brand_keys(option) if key in self.periods}
