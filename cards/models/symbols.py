"""Content of Sag's mit Symbolen: the concept cards and the symbol tiles with their pictures.
"""

from __future__ import annotations

import hashlib
import io

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q
from PIL import Image

from cards.models.base import Content, Game, text_field
from cards.pictures import (
    PictureError,
    picture_storage,
    read_stored_picture,
    sha256_in_name,
    store_picture,
    validate_picture,
)

# --- Sag's mit Symbolen -----------------------------------------------------------------


class ConceptCard(Content):
    """A concept card (Begriffskarte) of Sag's mit Symbolen."""

    GAME = Game.SYMBOLS
    TEXT_FIELD = "text"
    TRANSLATABLE_FIELDS = ("text",)

    text = text_field(120, help_text="The concept in German, as printed on the card.")

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

    name = text_field(80, help_text="What the picture shows, in German.")
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

    def show_picture(self, data: bytes | None) -> None:
        """Carry the fingerprint of a picture chosen on the form (None: cleared) but not
        saved, so that a preview of this unsaved tile draws it; the picture field is left
        as it is, and nothing is stored."""
        if data is None:
            self.image_sha256, self.image_width, self.image_height = "", None, None
        else:
            self._set_picture_fingerprint(data)

    def _set_picture_fingerprint(self, data: bytes) -> None:
        self.image_sha256 = hashlib.sha256(data).hexdigest()
        with Image.open(io.BytesIO(data)) as picture:
            self.image_width, self.image_height = picture.size

    def clean(self) -> None:
        super().clean()
        if not self.image and not self.icon:
            raise ValidationError("A symbol tile needs a picture: upload one or name a Tabler icon.")
