"""The content model's foundation: the four games, translations and their states, and the
base classes of every content type (``Translatable``, ``Content``): keys, versions, history,
the source texts that translations follow.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models
from django.utils import timezone
from simple_history.models import HistoricalRecords

from cards.concurrency import Versioned
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


def source_changed(obj: Translatable, field: str, new_source: str) -> None:
    """Drop the translations of a changed source text to *needs editing*.

    A translation keeps the source it was made from in ``source_text``; when the source is
    changed back to exactly that text, the translation gets back the state it had.
    """
    rows = Translation.objects.filter(
        content_type=ContentType.objects.get_for_model(type(obj)),
        object_id=obj.pk,
        field=field,
    )
    for row in rows:
        if follow_source(row, new_source):
            row.save(update_fields=["state", "state_before_change", "updated_at"])


def follow_source(row: Translation, new_source: str) -> bool:
    """Move a translation's state after its source changed to new_source; True if it moved."""
    if row.source_text == new_source:
        if row.state == TranslationState.NEEDS_EDITING and row.state_before_change:
            row.state, row.state_before_change = row.state_before_change, ""
            return True
        return False
    if row.state != TranslationState.NEEDS_EDITING:
        row.state_before_change, row.state = row.state, TranslationState.NEEDS_EDITING
        return True
    return False


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


def text_field(max_length: int = 200, **kwargs) -> models.CharField:  # type: ignore[no-untyped-def]
    return models.CharField(max_length=max_length, validators=[validate_clean_text], **kwargs)
