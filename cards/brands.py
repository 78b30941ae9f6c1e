"""Brand owners as a spreadsheet, and the owner table the Slogan option checks read.

``fixtures/slogan/brands.csv`` (columns ``brand,group,since,until,source``, one row per brand
and ownership period) is read and written by :class:`BrandOwnershipResource`, in the admin
(Import / Export on *Brand owners*) and by ``import_catalogue`` / ``export_catalogue``.
:class:`BrandTable` answers "which groups owned this brand (in a year, or today)".
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from import_export import fields, resources, widgets

from cards.models import BrandOwnership
from cards.resources import check_columns, check_unique_rows

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


class YearWidget(widgets.IntegerWidget):
    """A year, or empty; "1998.0" from a spreadsheet number cell reads as 1998."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> int | None:
        if value is None or str(value).strip() == "":
            return None
        text = str(value).strip()
        if re.fullmatch(r"\d{4}(?:\.0+)?", text):
            return int(float(text))
        raise ValueError(f"“{text}” is not a year (write four digits, e.g. 1998, or leave it empty).")


class BrandOwnershipResource(resources.ModelResource):
    """Rows are matched on brand and ``since``; an unchanged row is reported as skipped."""

    since = fields.Field(attribute="since", column_name="since", widget=YearWidget())
    until = fields.Field(attribute="until", column_name="until", widget=YearWidget())

    class Meta:
        model = BrandOwnership
        fields = BRAND_COLUMNS
        export_order = BRAND_COLUMNS
        import_id_fields = ("brand", "since")
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True

    def __init__(self, **kwargs: Any) -> None:
        kwargs.pop("preview", None)
        kwargs.pop("change_reason", None)
        super().__init__(**kwargs)

    def get_queryset(self) -> Any:
        return BrandOwnership.objects.order_by("brand", "since", "pk")

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        check_columns(dataset, BRAND_COLUMNS, ())
        check_unique_rows(dataset, ("brand", "since"))

    def export(self, *args: Any, **kwargs: Any) -> Any:
        dataset = super().export(*args, **kwargs)
        dataset.title = "brand_owners"
        return dataset


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
