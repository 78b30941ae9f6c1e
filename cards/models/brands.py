"""Who owns a brand, and since when: the table the Slogan option checks read.

One row per brand and ownership period (``fixtures/slogan/brands.csv``:
``brand,group,since,until,source``). A brand that is its own company is its own group.
Imported at the end of ``cards.models`` so Django sees the model as the cards app's.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from cards.text import validate_clean_text

FIRST_YEAR, LAST_YEAR = 1800, 2100


class BrandOwnership(models.Model):
    """A brand belonged to a company group from ``since`` to ``until`` (years; empty: open)."""

    # Read by the file readers as of the content types: no texts to translate, no key.
    TRANSLATABLE_FIELDS: tuple[str, ...] = ()
    TEXT_FIELD = None

    brand = models.CharField(
        max_length=120, validators=[validate_clean_text],
        help_text="As an answer option writes it (Persil, Dresdner Bank, Škoda).")
    group = models.CharField(
        "company group", max_length=120, validators=[validate_clean_text],
        help_text="The group that owned the brand in this period (Henkel); a brand that is its "
                  "own company is its own group.")
    since = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="First year of this ownership; empty: from the start.")
    until = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Last year of this ownership; empty: to this day.")
    source = models.CharField(
        max_length=300, help_text="Where the ownership is documented (an address).")

    class Meta:
        ordering = ["brand", "since"]
        verbose_name = "brand owner"
        verbose_name_plural = "brand owners"
        constraints = [
            models.UniqueConstraint(
                fields=["brand", "since"], name="one_brand_owner_per_start",
                violation_error_message="This brand already has an owner from that year."),
            models.UniqueConstraint(
                fields=["brand"], condition=Q(since__isnull=True), name="one_first_brand_owner",
                violation_error_message="This brand already has an owner from the start."),
            models.CheckConstraint(
                condition=Q(since__isnull=True) | Q(until__isnull=True) | Q(since__lte=models.F("until")),
                name="brand_owner_since_before_until",
                violation_error_message="An ownership cannot end before it starts."),
        ]

    def __str__(self) -> str:
        period = f" ({self.since or '…'}–{self.until or ''})" if self.since or self.until else ""
        return f"{self.brand} → {self.group}{period}"

    def clean(self) -> None:
        problems = {}
        for name in ("since", "until"):
            year = getattr(self, name)
            if year is not None and not FIRST_YEAR <= year <= LAST_YEAR:
                problems[name] = f"“{year}” is not a year between {FIRST_YEAR} and {LAST_YEAR}."
        if not problems and self.since and self.until and self.since > self.until:
            problems["until"] = (f"The ownership ends in {self.until}, before it starts "
                                 f"({self.since}).")
        if not self.source.strip():
            problems["source"] = "Say where the ownership is documented (an address)."
        if problems:
            raise ValidationError(problems)

    def covers(self, year: int | None) -> bool:
        """Whether the brand belonged to the group in a year (None: today)."""
        if year is None:
            return self.until is None
        return (self.since is None or self.since <= year) and (self.until is None or year <= self.until)
