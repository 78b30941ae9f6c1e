"""Published content packs (releases) and the pictures they point at.

A release is immutable: once written, its bytes never change. The model refuses every
update path (save of an existing row, queryset update and delete, deleting a row); the
admin shows releases read-only; and a database trigger (migration 0002) refuses an UPDATE
issued by anything else.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from cards.models import Game


class ReleaseIsImmutable(Exception):
    """A release's bytes never change once it is published."""


class ReleaseQuerySet(models.QuerySet):
    def update(self, **kwargs):  # type: ignore[no-untyped-def]
        raise ReleaseIsImmutable("Releases cannot be changed; publish a new release instead.")

    def delete(self):  # type: ignore[no-untyped-def]
        raise ReleaseIsImmutable("Releases cannot be deleted; clients may hold them.")

    def latest_of(self, game: str, language: str) -> Release | None:
        return self.filter(game=game, language=language).order_by("-version").first()


class Release(models.Model):
    """Version N of the content pack of one game in one language."""

    game = models.CharField(max_length=20, choices=Game.choices)
    language = models.CharField(max_length=10)
    version = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64, help_text="sha256 of the release file's bytes")
    body_sha256 = models.CharField(max_length=64, help_text="sha256 of the pack's body")
    size = models.PositiveIntegerField()
    data = models.BinaryField()
    data_gzip = models.BinaryField()
    published_at = models.DateTimeField(auto_now_add=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = ReleaseQuerySet.as_manager()

    class Meta:
        ordering = ["game", "language", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "language", "version"], name="one_release_per_version"
            ),
        ]
        indexes = [models.Index(fields=["game", "language", "-version"])]

    def __str__(self) -> str:
        return f"{self.get_game_display()} ({self.language}) v{self.version}"

    def save(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        if not self._state.adding:
            raise ReleaseIsImmutable("Releases cannot be changed; publish a new release instead.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise ReleaseIsImmutable("Releases cannot be deleted; clients may hold them.")

    @property
    def filename(self) -> str:
        return f"{self.version}.json"


class PackPicture(models.Model):
    """A picture a pack points at, stored under its sha256 so every release keeps working."""

    sha256 = models.CharField(max_length=64, primary_key=True)
    media_type = models.CharField(max_length=40)
    data = models.BinaryField()

    def __str__(self) -> str:
        return self.sha256


class ReleaseSignature(models.Model):
    """The Ed25519 signature of a release's exact bytes (exports/signing.py).

    A row of its own rather than a column of Release: releases are refused every UPDATE
    (migration 0002), yet a release published before a key existed must be signable later
    (``manage.py sign_releases``). Written once; never changed or deleted, like the release.
    """

    # CASCADE, not PROTECT: a release is never deleted (Release.delete and its queryset refuse),
    # and PROTECT would only make Django's deletion collector stumble over the signature.
    release = models.OneToOneField(Release, on_delete=models.CASCADE, primary_key=True,
                                   related_name="signature")
    key_id = models.CharField(max_length=16, help_text="first 16 hex digits of the sha256 "
                                                      "of the raw public key")
    signature = models.CharField(max_length=100, help_text="base64 of the 64-byte signature")
    signed_at = models.DateTimeField(auto_now_add=True)

    objects = ReleaseQuerySet.as_manager()

    def __str__(self) -> str:
        return f"signature of release {self.release_id} by key {self.key_id}"

    def save(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        if not self._state.adding:
            raise ReleaseIsImmutable("A release's signature never changes.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise ReleaseIsImmutable("A release's signature cannot be deleted.")
