"""Content of Slogan: the cards, their two slogans with four answer options each, and the
Alfons cards with their effects.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from cards.markets import market_leaves, market_list, markets_or_source, validate_markets
from cards.models.base import Content, Game, Translatable, text_field
from cards.text import normalise


class SloganCard(Content):
    """A slogan card: two slogans on the front, their answer options on the back."""

    GAME = Game.SLOGAN

    class Meta:
        ordering = ["key"]
        verbose_name = "slogan card"

    def __str__(self) -> str:
        return self.key


class Slogan(Content):
    """One of the two slogans on a card, with four answer options of which one is correct."""

    GAME = Game.SLOGAN
    TEXT_FIELD = "text"
    TRANSLATABLE_FIELDS = ("text",)

    card = models.ForeignKey(SloganCard, on_delete=models.CASCADE, related_name="slogans")
    side = models.PositiveSmallIntegerField(
        choices=[(1, "First slogan"), (2, "Second slogan")],
        validators=[MinValueValidator(1), MaxValueValidator(2)],
    )
    text = text_field(
        300, help_text="The slogan as read aloud; write “…” where it names the brand."
    )
    keep_german = models.BooleanField(
        "stays German",
        default=False,
        help_text="Known only in German: packs in other languages carry the German text "
        "(deliberately untranslated).",
    )
    markets = models.CharField(
        max_length=60,
        default="de",
        blank=True,
        validators=[validate_markets],
        help_text="Where players know this slogan, comma-separated: a language (de; en is "
        "the UK and the US), or one market of the English edition (en-GB: UK only, en-US: US "
        "only). A card is printed in a deck only when both its slogans are known there. Left "
        "empty: German only.",
    )
    source = models.CharField(max_length=300, blank=True, help_text="Where the slogan is documented.")

    class Meta:
        ordering = ["card__key", "side"]
        constraints = [
            models.UniqueConstraint(
                fields=["card", "side"],
                name="two_slogans_per_card",
                violation_error_message="This card already has a slogan on that side.",
            ),
            models.CheckConstraint(
                condition=Q(side__in=[1, 2]),
                name="slogan_side_1_or_2",
                violation_error_message="A card has two slogans: side 1 or 2.",
            ),
        ]

    def __str__(self) -> str:
        return self.text

    def save(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.markets = markets_or_source(self.markets)
        super().save(*args, **kwargs)

    def keeps_source(self, field: str) -> bool:
        return field == "text" and self.keep_german

    @property
    def market_codes(self) -> list[str]:
        return market_list(self.markets)

    @property
    def market_languages(self) -> set[str]:
        """The languages in some market of which the slogan is known (en-US -> en)."""
        return {leaf.partition("-")[0] for leaf in market_leaves(self.markets)}

    def clean(self) -> None:
        super().clean()
        self.markets = markets_or_source(self.markets)
        if self.keep_german and self.market_languages - {settings.KARTOTHEK_LANGUAGES[0]}:
            raise ValidationError({
                "keep_german": "A slogan that stays German is known only in German; it cannot "
                f"be in the markets {self.markets} (an edition there would print German)."
            })

    @property
    def correct_option(self) -> SloganOption | None:
        return next((o for o in self.options.all() if o.is_correct), None)


def option_problems(texts: list[str], correct: list[bool]) -> list[str]:
    """What is wrong with a slogan's answer options (empty when nothing is)."""
    problems = []
    if len(texts) != 4:
        problems.append(f"A slogan needs exactly four answer options, not {len(texts)}.")
    norms = [normalise(t) for t in texts]
    if any(not n for n in norms):
        problems.append("An answer option is empty.")
    # (empty options are named above, not as "the same option twice")
    duplicates = sorted({t for t, n in zip(texts, norms, strict=True) if n and norms.count(n) > 1})
    if duplicates:
        problems.append(
            "The answer options must differ; the same option appears twice: "
            + ", ".join(f"“{t}”" for t in duplicates)
            + "."
        )
    n_correct = sum(1 for c in correct if c)
    if n_correct != 1:
        problems.append(f"Exactly one answer option must be correct, not {n_correct}.")
    return problems


class SloganOption(Translatable):
    """One of a slogan's four answer options (a brand, product or company)."""

    GAME = Game.SLOGAN
    TRANSLATABLE_FIELDS = ("text",)

    slogan = models.ForeignKey(Slogan, on_delete=models.CASCADE, related_name="options")
    position = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(4)]
    )
    text = text_field(120)
    is_correct = models.BooleanField("correct", default=False)

    history = HistoricalRecords()

    class Meta:
        ordering = ["slogan_id", "position"]
        verbose_name = "answer option"
        constraints = [
            models.UniqueConstraint(
                fields=["slogan", "position"],
                name="one_option_per_position",
                violation_error_message="This slogan already has an option at that position.",
            ),
            models.UniqueConstraint(
                fields=["slogan"],
                condition=Q(is_correct=True),
                name="at_most_one_correct_option",
                violation_error_message="This slogan already has a correct option.",
            ),
            models.CheckConstraint(
                condition=Q(position__gte=1) & Q(position__lte=4),
                name="option_position_1_to_4",
                violation_error_message="Options are numbered 1 to 4.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.text} ★" if self.is_correct else self.text

    @property
    def key(self) -> str:
        """The address of this option in translation files: the slogan's key."""
        return self.slogan.key


class AlfonsEffect(models.TextChoices):
    MOVE = "move", "move ±n spaces"
    CHIPS = "chips", "±n chips with the bank"
    PAY_EACH = "pay_each", "pay n chips to every other player"
    COLLECT_EACH = "collect_each", "collect n chips from every other player"
    SWAP = "swap", "swap places with a piece"
    OVERTAKE = "overtake", "move to the space in front of the next piece"
    TO_START = "to_start", "back to the start"
    TO_LEVEL = "to_level", "to the first space of career level n"


class SwapTarget(models.TextChoices):
    LEADER = "leader", "the leader"
    LAST = "last", "the last piece"
    NEXT = "next", "the nearest piece"


class AlfonsCard(Content):
    """A Spießer Alfons action card: a text and the effect it has."""

    GAME = Game.SLOGAN
    TEXT_FIELD = "text"
    TRANSLATABLE_FIELDS = ("text",)

    text = text_field(400)
    effect = models.CharField(max_length=20, choices=AlfonsEffect.choices)
    amount = models.IntegerField(
        null=True,
        blank=True,
        help_text="Spaces (move, may be negative), chips (chips, may be negative), chips per "
        "player (pay_each, collect_each) or career level 1–6 (to_level).",
    )
    target = models.CharField(max_length=10, choices=SwapTarget.choices, blank=True)

    class Meta:
        ordering = ["key"]
        verbose_name = "Spießer Alfons card"
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(effect__in=["move", "chips"], amount__isnull=False, target="")
                    & ~Q(amount=0)
                    | Q(effect__in=["pay_each", "collect_each"], amount__gte=1, target="")
                    | Q(effect="to_level", amount__gte=1, amount__lte=6, target="")
                    | Q(effect="swap", amount__isnull=True, target__in=["leader", "last", "next"])
                    | Q(effect__in=["overtake", "to_start"], amount__isnull=True, target="")
                ),
                name="alfons_effect_is_complete",
                violation_error_message="The effect's amount or target does not fit its kind.",
            ),
        ]

    def __str__(self) -> str:
        return self.text

    def clean(self) -> None:
        super().clean()
        if self.effect not in AlfonsEffect.values:
            return  # the field's own choices check reports it
        errors = alfons_effect_problems(self.effect, self.amount, self.target)
        if errors:
            raise ValidationError(errors)

    def validate_constraints(self, exclude=None) -> None:  # type: ignore[no-untyped-def]
        # clean() already explains a bad effect field by field; the database constraint's
        # one-line message would only repeat it.
        if alfons_effect_problems(self.effect, self.amount, self.target):
            exclude = {*(exclude or ()), "effect", "amount", "target"}
        super().validate_constraints(exclude=exclude)

    @property
    def effect_data(self) -> dict[str, object]:
        data: dict[str, object] = {"kind": self.effect}
        if self.amount is not None:
            data["amount"] = self.amount
        if self.target:
            data["target"] = self.target
        return data


def alfons_effect_problems(effect: str, amount: int | None, target: str) -> dict[str, str]:
    """Field -> message for an Alfons effect whose amount or target does not fit its kind."""
    errors: dict[str, str] = {}
    if effect in ("move", "chips"):
        if amount in (None, 0):
            errors["amount"] = f"A '{effect}' effect needs a number other than 0 (negative goes back)."
    elif effect in ("pay_each", "collect_each"):
        if amount is None or amount < 1:
            errors["amount"] = f"A '{effect}' effect needs a number of chips of at least 1."
    elif effect == "to_level":
        if amount is None or not 1 <= amount <= 6:
            errors["amount"] = "A 'to_level' effect needs a career level from 1 to 6."
    elif amount is not None:
        errors["amount"] = f"A '{effect}' effect takes no number; leave it empty."
    if effect == "swap":
        if target not in SwapTarget.values:
            errors["target"] = "A 'swap' effect needs a target: leader, last or next."
    elif target:
        errors["target"] = f"Only a 'swap' effect has a target, not '{effect}'."
    return errors
