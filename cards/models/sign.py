"""Content of Sign: the symbols, their colours and the cards that show them.
"""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models

from cards.models.base import Content, Game, text_field
from cards.text import validate_clean_text

# --- Sign --------------------------------------------------------------------------------


class SignSymbol(Content):
    """One of Sign's symbols; five cards of one symbol in five colours make a quintet."""

    GAME = Game.SIGN
    TEXT_FIELD = "name"
    TRANSLATABLE_FIELDS = ("name",)

    name = text_field(60)
    icon = models.CharField(max_length=80, blank=True, help_text="Tabler icon that draws the shape.")
    position = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["position", "key"]
        verbose_name = "Sign symbol"

    def __str__(self) -> str:
        return self.name


class SignColour(Content):
    """A colour of the Sign deck, with a mark that carries it for colour-blind players."""

    GAME = Game.SIGN
    TEXT_FIELD = "name"
    TRANSLATABLE_FIELDS = ("name",)

    name = text_field(40)
    hex = models.CharField(
        "colour",
        max_length=7,
        validators=[RegexValidator(r"^#[0-9A-Fa-f]{6}\Z", "Give the colour as #RRGGBB.")],
    )
    mark = models.CharField(
        max_length=4,
        validators=[validate_clean_text],
        help_text="A short mark printed beside the colour, so the colour can be read without "
        "seeing it (a letter, digit or sign).",
    )
    position = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["position", "key"]
        verbose_name = "Sign colour"
        constraints = [
            models.UniqueConstraint(
                fields=["mark"],
                name="unique_sign_colour_mark",
                violation_error_message="Another colour already uses this mark.",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class SignCard(Content):
    """A card of the Sign deck: one symbol in one colour."""

    GAME = Game.SIGN

    symbol = models.ForeignKey(SignSymbol, on_delete=models.PROTECT, related_name="cards")
    colour = models.ForeignKey(SignColour, on_delete=models.PROTECT, related_name="cards")

    class Meta:
        ordering = ["symbol__position", "colour__position"]
        verbose_name = "Sign card"
        constraints = [
            models.UniqueConstraint(
                fields=["symbol", "colour"],
                name="one_sign_card_per_symbol_and_colour",
                violation_error_message="The deck already has this symbol in this colour.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.symbol} · {self.colour}"
