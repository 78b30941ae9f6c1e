"""Published content packs (releases) and the pictures they point at.

A release is immutable: once written, its bytes never change. The model refuses every
update path (save of an existing row, queryset update and delete, deleting a row); the
admin shows releases read-only; and a database trigger (migration 0002) refuses an UPDATE
issued by anything else. The bytes themselves are a file in ``STORAGES["releases"]`` named
by their sha256 (exports/release_files.py), checked against it whenever they are read.
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models

from cards.models import Game
from cards.text import REASON_MAX_CHARS, validate_reason_length


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
    published_at = models.DateTimeField(auto_now_add=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The release notes, written once with the release and as immutable as its bytes.
    note = models.TextField(blank=True, default="", max_length=REASON_MAX_CHARS,
                            validators=[validate_reason_length], help_text="the curator's note")
    changes = models.JSONField(
        null=True, blank=True,
        help_text="what changed since the previous release (exports/changes.py); empty for "
                  "releases published before releases kept their changes")

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
        if self._bytes is None:
            raise ValueError("A new release needs its bytes: Release(..., data=bytes).")
        from exports.release_files import store_release

        # The file before the row: once the row is visible its file is there. A row that is
        # then rolled back leaves a file nobody names, harmless and reused by the same bytes.
        digest = store_release(self._bytes)
        if self.sha256 and self.sha256 != digest:
            raise ValueError(f"The release's sha256 {self.sha256} is not that of its bytes.")
        self.sha256, self.size = digest, len(self._bytes)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise ReleaseIsImmutable("Releases cannot be deleted; clients may hold them.")

    _bytes: bytes | None = None  # read (and checked) once per instance

    @property
    def data(self) -> bytes:
        """The release's bytes, read from the release storage and checked against sha256
        (raises exports.release_files.ReleaseFileError when missing or changed)."""
        if self._bytes is None:
            from exports.release_files import read_release

            self._bytes = read_release(self.sha256, label=str(self))
        return self._bytes

    @data.setter
    def data(self, value: bytes) -> None:
        if not self._state.adding:
            raise ReleaseIsImmutable("A release's bytes never change; publish a new release.")
        self._bytes = bytes(value)  # written to the release storage by save()

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


def decks_storage() -> Storage:
    # a callable: the storage is looked up when used, so settings (and tests) may change it
    return storages["decks"]


class RenderJob(models.Model):
    """A deck rendered in the background worker (exports/jobs.py), kept for download."""

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for the worker"
        RUNNING = "running", "rendering"
        DONE = "done", "ready"
        FAILED = "failed", "failed"

    game = models.CharField(max_length=20, choices=Game.choices)
    language = models.CharField(max_length=10)
    release = models.CharField(max_length=20, help_text="draft, latest or a release number")
    options = models.JSONField(help_text="the deck options (exports.pdf.options.DeckOptions)")
    kind = models.CharField(max_length=3, choices=[("pdf", "PDF"), ("zip", "zip of PNGs")])
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0, help_text="pages or PNGs made so far")
    total = models.PositiveIntegerField(default=0)
    cards = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    warnings = models.PositiveIntegerField(default=0)
    file = models.FileField(storage=decks_storage, upload_to="decks/", blank=True, max_length=200)
    filename = models.CharField(max_length=200, blank=True, help_text="the download's name")
    task_id = models.CharField(max_length=64, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-requested_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_game_display()} ({self.language}) {self.kind} #{self.pk}"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


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


class WebhookEndpoint(models.Model):
    """A URL that hears of every release of the games and languages it names
    (exports/webhooks.py: signed per the Standard Webhooks spec, retried with backoff)."""

    name = models.CharField(max_length=100, help_text="who listens, e.g. “Partner app (staging)”")
    url = models.URLField(max_length=500, help_text="https://… — receives a POST for each release")
    games = models.JSONField(default=list, blank=True, help_text="none chosen: every game")
    languages = models.JSONField(default=list, blank=True, help_text="none chosen: every language")
    # Reversible on purpose: HMAC needs the key itself. Shown once when made, masked after.
    secret = models.CharField(max_length=100, editable=False)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = "webhook endpoint"

    def __str__(self) -> str:
        return self.name

    def matches(self, game: str, language: str) -> bool:
        # an endpoint for "en" hears of every English release, the markets' too (en-GB)
        return (self.active and (not self.games or game in self.games)
                and (not self.languages or language in self.languages
                     or language.partition("-")[0] in self.languages))


class WebhookDelivery(models.Model):
    """One attempt to deliver one release's message to one endpoint.

    A message keeps its ``message_id`` (the ``webhook-id`` header) and body over its retries,
    so a receiver can drop a repeat; each attempt is a row of its own, so the admin shows
    every try with its answer."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting"
        SENDING = "sending", "sending"
        DELIVERED = "delivered", "delivered"
        FAILED = "failed", "failed"

    # SET_NULL: deleting an endpoint keeps the record of what was sent to it
    endpoint = models.ForeignKey(WebhookEndpoint, null=True, on_delete=models.SET_NULL,
                                 related_name="deliveries")
    url = models.URLField(max_length=500, help_text="where it was sent")
    # CASCADE only for the collector's sake: a release is never deleted (see ReleaseSignature).
    release = models.ForeignKey(Release, on_delete=models.CASCADE, related_name="+")
    message_id = models.CharField(max_length=40)
    attempt = models.PositiveSmallIntegerField(default=1)
    manual = models.BooleanField(default=False, help_text="sent again from the admin (no "
                                                          "automatic retries after it)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    http_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    response_excerpt = models.CharField(max_length=300, blank=True,
                                        help_text="the first bytes of the answer, no more")
    payload = models.TextField(blank=True, help_text="the exact body sent")
    created_at = models.DateTimeField(auto_now_add=True)
    scheduled_for = models.DateTimeField(help_text="when this attempt is due")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True,
                                           help_text="a failed attempt: when the retry is due")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "webhook deliveries"
        indexes = [models.Index(fields=["message_id", "attempt"])]

    def __str__(self) -> str:
        return f"{self.message_id} attempt {self.attempt} to {self.endpoint}"
