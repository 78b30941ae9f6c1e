"""The translation checks' findings and the texts' counts per state, stored, and the changes
they have not followed yet.

Imported at the end of ``cards.models`` so Django sees these models as the cards app's.
:mod:`cards.findings` keeps them up to date; the checks themselves stay in
:mod:`cards.checks` (what a finding is is decided there alone).
"""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.db import models

from cards.models.base import Game


class TranslationFinding(models.Model):
    """One open (not dismissed) finding of one check on one translated text, as
    ``cards.checks.catalogue_findings`` finds it. Read by the progress page's counts."""

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveBigIntegerField()
    field = models.CharField(max_length=40)
    language = models.CharField(max_length=10)
    game = models.CharField(max_length=20, choices=Game.choices)
    check_name = models.CharField("check", max_length=40)
    message = models.TextField()

    class Meta:
        verbose_name = "translation finding"
        default_permissions = ()  # derived from the texts: nobody edits it (no admin page)
        constraints = [
            models.UniqueConstraint(
                fields=["content_type", "object_id", "field", "language", "check_name"],
                name="one_stored_finding_per_check_and_text",
            ),
        ]
        indexes = [models.Index(fields=["game", "language", "check_name"])]

    def __str__(self) -> str:
        return f"{self.check_name} on {self.field} ({self.language})"


class StaleFindings(models.Model):
    """A change the stored findings do not show yet, written in the same transaction as
    the change itself: an object's texts (``content_type`` and ``object_id``), or every
    text of a language (``language``; of one game when ``game`` is set: a glossary entry)."""

    content_type = models.ForeignKey(ContentType, null=True, blank=True, on_delete=models.CASCADE)
    object_id = models.PositiveBigIntegerField(null=True, blank=True)
    language = models.CharField(max_length=10, blank=True)
    game = models.CharField(max_length=20, blank=True)

    class Meta:
        verbose_name = "stale findings mark"
        default_permissions = ()

    def __str__(self) -> str:
        if self.content_type_id:
            return f"object {self.content_type_id}/{self.object_id}"
        return f"language {self.language} {self.game or 'every game'}"


class TranslationCount(models.Model):
    """How many filled texts (not empty) of one field of one kind are in a state for a
    language, as ``cards.progress.count_by_state`` counts them; read by the progress page
    instead of counting every translation on each load. Kept with the findings."""

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    field = models.CharField(max_length=40)
    language = models.CharField(max_length=10)
    state = models.CharField(max_length=20)
    texts = models.PositiveIntegerField()

    class Meta:
        verbose_name = "translation count"
        default_permissions = ()  # derived from the texts: nobody edits it (no admin page)
        constraints = [
            models.UniqueConstraint(fields=["content_type", "field", "language", "state"],
                                    name="one_stored_count_per_state"),
        ]

    def __str__(self) -> str:
        return f"{self.field} ({self.language}) {self.state}: {self.texts}"
