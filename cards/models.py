"""The content of the four games.

Every card has a stable ``key`` (the slug of its German source text when it was created) and
German source text in its own fields; translations into other languages live in
:class:`Translation` rows, one per (object, field, language), so adding a language needs no
migration.
"""

from __future__ import annotations

import hashlib
import io
from typing import ClassVar

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from PIL import Image
from simple_history.models import HistoricalRecords

from cards.concurrency import Versioned
from cards.pictures import (
    PictureError,
    picture_storage,
    read_stored_picture,
    sha256_in_name,
    store_picture,
    validate_picture,
)
from cards.text import KEY_MAX_LENGTH, normalise, validate_clean_text, validate_key


class Game(models.TextChoices):
    SYMBOLS = "symbols", "Sag's mit Symbolen"
    SIGN = "sign", "Sign"
    SLOGAN = "slogan", "Slogan"
    SAUSCHWER = "sauschwer", "Sauschwer"


class TranslationState(models.TextChoices):
    """Weblate's states. A translation that does not exist (or is blank) is *empty*."""

    NEEDS_EDITING = "needs_editing", "Needs editing"
    TRANSLATED = "translated", "Translated"
    APPROVED = "approved", "Approved"


EMPTY = "empty"  # the state of a translation that does not exist


# --- translations -----------------------------------------------------------------------


class Translation(Versioned):
    """One field of one object in one language.

    ``source_text`` is the German text this translation was made from. When the source
    changes, the translation drops to *needs editing* and ``source_text`` keeps the previous
    source, so the translator sees what changed; ``state_before_change`` remembers the state
    it had, so reverting the source restores it.
    """

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveBigIntegerField()
    content_object = GenericForeignKey("content_type", "object_id")
    field = models.CharField(max_length=40)
    language = models.CharField(max_length=10)
    text = models.TextField(blank=True)
    state = models.CharField(
        max_length=20, choices=TranslationState.choices, default=TranslationState.TRANSLATED
    )
    source_text = models.TextField(
        blank=True, help_text="The German source text this translation was made from."
    )
    state_before_change = models.CharField(
        max_length=20, choices=TranslationState.choices, blank=True, editable=False
    )
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords(excluded_fields=["updated_at"])

    class Meta:
        ordering = ["content_type_id", "object_id", "field", "language"]
        constraints = [
            models.UniqueConstraint(
                fields=["content_type", "object_id", "field", "language"],
                name="one_translation_per_field_and_language",
                violation_error_message="This field already has a translation in that language.",
            ),
        ]
        indexes = [models.Index(fields=["content_type", "language", "state"])]
        # Review, as Weblate has it with reviews on: only a reviewer sets *approved*.
        permissions = [("approve_translation", "Can approve translations (review)")]

    def __str__(self) -> str:
        return f"{self.language}: {self.text[:60]}"

    def save(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        # A translation confirmed as translated or approved is made from today's source; one
        # that needs editing keeps the source it was made from, so the change stays visible.
        if self.state != TranslationState.NEEDS_EDITING or not self.source_text:
            self.source_text = self.current_source
            self.state_before_change = ""
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {
                    *kwargs["update_fields"], "source_text", "state_before_change"
                }
        super().save(*args, **kwargs)

    def clean(self) -> None:
        errors: dict[str, str] = {}
        languages = settings.KARTOTHEK_LANGUAGES
        if self.language not in languages[1:]:
            errors["language"] = (
                f"'{self.language}' is not a target language; configured: {', '.join(languages[1:])}."
            )
        if self.text.strip():
            try:
                validate_clean_text(self.text)
            except ValidationError as exc:
                errors["text"] = exc.messages[0]
        elif self.state != TranslationState.NEEDS_EDITING:
            errors["text"] = "An empty translation cannot be translated or approved."
        obj = self.content_object if self.content_type_id else None
        if obj is not None and self.field not in type(obj).TRANSLATABLE_FIELDS:
            errors["field"] = (
                f"{type(obj)._meta.verbose_name} has no translatable field '{self.field}'."
            )
        elif obj is not None and "text" not in errors:
            # A translation is printed where its source is: it gets the source's limit.
            limit = translation_max_length(type(obj), self.field)
            if limit is not None and len(self.text) > limit:
                errors["text"] = (
                    f"This translation is {len(self.text):,} characters long; the "
                    f"{type(obj)._meta.verbose_name}'s {self.field} allows at most {limit}."
                )
        if errors:
            raise ValidationError(errors)

    @property
    def current_source(self) -> str:
        return getattr(self.content_object, self.field, "")

    @property
    def is_outdated(self) -> bool:
        return self.source_text != self.current_source

    @property
    def effective_state(self) -> str:
        if not self.text.strip():
            return EMPTY
        return self.state


def translation_max_length(model: type[models.Model], field: str) -> int | None:
    """The longest translation of a field: the same as its German source's max_length."""
    try:
        return model._meta.get_field(field).max_length  # type: ignore[union-attr]
    except FieldDoesNotExist:  # clean() reports the unknown field itself
        return None


class Translatable(Versioned):
    """An object with German source texts that can be translated."""

    TRANSLATABLE_FIELDS: ClassVar[tuple[str, ...]] = ()
    GAME: ClassVar[str]

    translations = GenericRelation(Translation)

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        if not hasattr(self, "_loaded_sources") and self.pk and not self._state.adding:
            # Built elsewhere than from the database (a restored version): compare with
            # what the database holds now.
            stored = type(self)._default_manager.filter(pk=self.pk).values(
                *self.TRANSLATABLE_FIELDS
            ).first()
            self._loaded_sources = stored or {}
        changed = self.changed_sources()
        super().save(*args, **kwargs)
        if changed:
            from cards.translation import source_changed

            for field, (_old, new) in changed.items():
                source_changed(self, field, new)
        self._loaded_sources = {name: getattr(self, name) for name in self.TRANSLATABLE_FIELDS}

    @classmethod
    def from_db(cls, db, field_names, values):  # type: ignore[no-untyped-def]
        instance = super().from_db(db, field_names, values)
        # Remember the loaded source texts, so a save can tell which ones changed.
        instance._loaded_sources = {
            name: value
            for name, value in zip(field_names, values, strict=True)
            if name in cls.TRANSLATABLE_FIELDS
        }
        return instance

    def changed_sources(self) -> dict[str, tuple[str, str]]:
        """Source fields whose text differs from what was loaded: field -> (old, new)."""
        loaded: dict[str, str] = getattr(self, "_loaded_sources", {})
        return {
            name: (loaded[name], getattr(self, name))
            for name in self.TRANSLATABLE_FIELDS
            if name in loaded and loaded[name] != getattr(self, name)
        }

    def keeps_source(self, field: str) -> bool:
        """Whether this text is deliberately left untranslated (packs carry the German)."""
        return False

    def translation(self, field: str, language: str) -> Translation | None:
        """The translation of a field, from prefetched rows when they are there."""
        for row in self.translations.all():
            if row.field == field and row.language == language:
                return row
        return None


class ContentQuerySet(models.QuerySet):
    def with_translations(self) -> ContentQuerySet:
        return self.prefetch_related("translations")


class ContentManager(models.Manager.from_queryset(ContentQuerySet)):  # type: ignore[misc]
    def get_by_natural_key(self, key: str):  # type: ignore[no-untyped-def]
        return self.get(key=key)


class Content(Translatable):
    """A card (or a piece of a game) with a stable key."""

    TEXT_FIELD: ClassVar[str] = ""  # the field whose normalised text must be unique

    key = models.CharField(
        max_length=KEY_MAX_LENGTH,
        unique=True,
        validators=[validate_key],
        help_text="Stable identifier: the slug of the German text when the card was created. "
        "Imports match on it; never change it.",
    )
    norm = models.CharField(max_length=255, editable=False, db_index=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ContentManager()
    # Every content model gets a history table: who changed what, when (admin and imports).
    history = HistoricalRecords(inherit=True, excluded_fields=["norm", "updated_at"])

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        if self.TEXT_FIELD:
            self.norm = self.norm_of_text()
        super().save(*args, **kwargs)

    def natural_key(self) -> tuple[str]:
        return (self.key,)

    def clean(self) -> None:
        super().clean()
        if self.TEXT_FIELD:
            text = getattr(self, self.TEXT_FIELD) or ""
            twin = self.twin_key()
            if twin is not None:
                raise ValidationError(
                    {
                        self.TEXT_FIELD: f"“{text}” is already in the catalogue as "
                        f"'{twin}' (texts are compared without case, accents or punctuation)."
                    }
                )

    def norm_of_text(self) -> str:
        text = getattr(self, self.TEXT_FIELD) or ""
        cached = getattr(self, "_norm_cache", None)
        if cached is None or cached[0] != text:
            cached = (text, normalise(text)[:255])
            self._norm_cache = cached
        return cached[1]

    def twin_key(self) -> str | None:
        """The key of another card of this type with the same text after normalisation.

        An importer passes ``_text_index`` (normalised text -> key of the table, loaded once)
        so that checking ten thousand rows does not take ten thousand queries.
        """
        norm = self.norm_of_text()
        if not norm:
            return None
        index = getattr(self, "_text_index", None)
        if index is not None:
            key = index.get(norm)
            return key if key is not None and key != self.key else None
        twins = type(self)._default_manager.filter(norm=norm).exclude(pk=self.pk)
        twin = twins.only("key").first()
        return twin.key if twin is not None else None

    def prepare_for_bulk(self) -> None:
        """What save() would do, for rows written by bulk_create / bulk_update."""
        if self.TEXT_FIELD:
            self.norm = self.norm_of_text()
        self.updated_at = timezone.now()


def _text_field(max_length: int = 200, **kwargs) -> models.CharField:  # type: ignore[no-untyped-def]
    return models.CharField(max_length=max_length, validators=[validate_clean_text], **kwargs)


# --- Sag's mit Symbolen -----------------------------------------------------------------


class ConceptCard(Content):
    """A concept card (Begriffskarte) of Sag's mit Symbolen."""

    GAME = Game.SYMBOLS
    TEXT_FIELD = "text"
    TRANSLATABLE_FIELDS = ("text",)

    text = _text_field(120, help_text="The concept in German, as printed on the card.")

    class Meta:
        ordering = ["text"]
        verbose_name = "concept card"

    def __str__(self) -> str:
        return self.text


class SymbolTile(Content):
    """A symbol tile of the board (Symbol), or one of the variant's extra tiles."""

    GAME = Game.SYMBOLS
    TEXT_FIELD = "name"
    TRANSLATABLE_FIELDS = ("name",)

    name = _text_field(80, help_text="What the picture shows, in German.")
    # Stored under the sha256 of its bytes (cards/pictures.py): never overwritten, never shared
    # by two different pictures.
    image = models.ImageField(upload_to="pictures/", storage=picture_storage,
                              validators=[validate_picture], blank=True)
    icon = models.CharField(
        max_length=80,
        blank=True,
        help_text="Tabler icon the picture is drawn from (empty for an uploaded picture).",
    )
    image_source = models.CharField(max_length=200, blank=True)
    image_licence = models.CharField(max_length=80, blank=True)
    image_sha256 = models.CharField(max_length=64, blank=True, editable=False)
    image_width = models.PositiveIntegerField(null=True, blank=True, editable=False)
    image_height = models.PositiveIntegerField(null=True, blank=True, editable=False)
    is_extra = models.BooleanField(
        "extra tile", default=False, help_text="One of the variant's extra symbol tiles."
    )
    position = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1)], help_text="Order on the board (1 = top left)."
    )

    class Meta:
        ordering = ["is_extra", "position"]
        verbose_name = "symbol tile"
        constraints = [
            models.UniqueConstraint(
                fields=["position"],
                name="unique_symbol_position",
                violation_error_message="Another symbol tile already has this position.",
            ),
            models.CheckConstraint(
                condition=Q(position__gte=1),
                name="symbol_position_positive",
                violation_error_message="Positions start at 1.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (extra)" if self.is_extra else self.name

    def save(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        # The picture's fingerprint and size go into content packs; keep them with the row.
        if not self.image:
            self.image_sha256, self.image_width, self.image_height = "", None, None
        elif not self.image._committed:
            # A new picture: the storage files it under the sha256 of these same bytes.
            self.image.seek(0)
            data = self.image.read()
            self.image.seek(0)
            self._set_picture_fingerprint(data)
        else:
            promised = sha256_in_name(self.image.name)
            if promised is None:
                # A file from before content addressing: file it by its bytes now.
                with self.image.storage.open(self.image.name, "rb") as handle:
                    data = handle.read()
                self.image.name = store_picture(data, self.image.storage)
                self._set_picture_fingerprint(data)
            elif promised != self.image_sha256 or self.image_width is None:
                # Pointed at another stored picture: its name says which bytes to expect.
                try:
                    data = read_stored_picture(self.image.name, promised, label=f"symbol tile '{self.key}'",
                                               storage=self.image.storage)
                except PictureError as exc:
                    raise ValidationError({"image": str(exc)}) from None
                self._set_picture_fingerprint(data)
        super().save(*args, **kwargs)

    def _set_picture_fingerprint(self, data: bytes) -> None:
        self.image_sha256 = hashlib.sha256(data).hexdigest()
        with Image.open(io.BytesIO(data)) as picture:
            self.image_width, self.image_height = picture.size

    def clean(self) -> None:
        super().clean()
        if not self.image and not self.icon:
            raise ValidationError("A symbol tile needs a picture: upload one or name a Tabler icon.")


# --- Sign --------------------------------------------------------------------------------


class SignSymbol(Content):
    """One of Sign's symbols; five cards of one symbol in five colours make a quintet."""

    GAME = Game.SIGN
    TEXT_FIELD = "name"
    TRANSLATABLE_FIELDS = ("name",)

    name = _text_field(60)
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

    name = _text_field(40)
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


def edition_label(edition: str) -> str:
    """An edition for people: "en-GB (UK deck)", "en (cards known in the UK and the US)"."""
    language, _, region = edition.partition("-")
    if region:
        return f"{edition} ({MARKET_NAMES.get(region, region)} deck)"
    if language in REGIONAL_MARKETS:
        names = " and the ".join(MARKET_NAMES.get(r, r) for r in REGIONAL_MARKETS[language])
        return f"{edition} (cards known in the {names})"
    return edition


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
    text = _text_field(
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
    text = _text_field(120)
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

    text = _text_field(400)
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


# --- Sauschwer ---------------------------------------------------------------------------


class SauschwerObject(Content):
    """An object card of Sauschwer: its name on the front, its weight on the back."""

    GAME = Game.SAUSCHWER
    TEXT_FIELD = "name"
    TRANSLATABLE_FIELDS = ("name",)

    name = _text_field(120)
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


# The glossary and dismissed translation checks (cards/checks.py) live in their own module.
# Brand owners (cards/brand_checks.py reads them) live in their own module.
from cards.models_brands import BrandOwnership  # noqa: E402, F401
from cards.models_checks import CheckDismissal, GlossaryTerm  # noqa: E402, F401

# Stored translation check findings (cards/findings.py keeps them up to date).
from cards.models_findings import StaleFindings, TranslationCount, TranslationFinding  # noqa: E402, F401
