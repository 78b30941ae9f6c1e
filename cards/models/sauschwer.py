"""Content of Sauschwer: the objects players guess the weight of.
"""

from __future__ import annotations

from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q

from cards.models.base import Content, Game, text_field
from cards.text import validate_clean_text

# --- Sauschwer ---------------------------------------------------------------------------


class SauschwerObject(Content):
    """An object card of Sauschwer: its name on the front, its weight on the back."""

    GAME = Game.SAUSCHWER
    TEXT_FIELD = "name"
    TRANSLATABLE_FIELDS = ("name",)

    name = text_field(120)
    weight_g = models.PositiveBigIntegerField(
        "weight (g)",
        validators=[MinValueValidator(1, "The weight must be a whole number of grams above 0.")],
        help_text="Whole grams.",
    )
    source = models.CharField(
        max_length=300, validators=[validate_clean_text], help_text="Where the weight comes from."
    )

    class Meta:
        ordering = ["weight_g", "key"]
        verbose_name = "Sauschwer object"
        constraints = [
            models.CheckConstraint(
                condition=Q(weight_g__gte=1),
                name="weight_above_zero",
                violation_error_message="The weight must be a whole number of grams above 0.",
            ),
        ]

    def __str__(self) -> str:
        return self.name
