"""What the translation checks keep: the glossary and the dismissed findings.

Imported at the end of ``cards.models`` so Django sees these models as the cards app's.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models

from cards.models.base import Game
from cards.text import REASON_MAX_CHARS, validate_clean_text, validate_reason_length


class GlossaryTerm(models.Model):
    """A game's own word and how it must be translated into one language.

    ``translation`` equal to ``term`` means the word stays as it is (a name such as
    *Spießer Alfons* or *Helmut*).
    """

    language = models.CharField(max_length=10, help_text="The target language, e.g. en.")
    term = models.CharField(
        "German term", max_length=120, validators=[validate_clean_text],
        help_text="As it stands in the German texts (its endings are found too: Chef, Chefs).",
    )
    translation = models.CharField(
        "required translation", max_length=120, validators=[validate_clean_text],
        help_text="What a translation of a text with this term must say (plural -s is found too).",
    )
    note = models.TextField(blank=True, max_length=REASON_MAX_CHARS,
                            validators=[validate_reason_length],
                            help_text="Why, or where the word comes from.")
    game = models.CharField(
        max_length=20, choices=Game.choices, blank=True,
        help_text="Only the texts of this game; empty: every game.",
    )

    class Meta:
        ordering = ["language", "term"]
        verbose_name = "glossary term"
        constraints = [
            models.UniqueConstraint(
                fields=["language", "term", "game"], name="one_glossary_entry_per_term",
                violation_error_message="This term already has a glossary entry for that "
                                        "language and game.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.term} → {self.translation} ({self.language})"

    def clean(self) -> None:
        targets = list(settings.KARTOTHEK_LANGUAGES[1:])
        if self.language not in targets:
            raise ValidationError({"language": f"“{self.language}” is not a target language; "
                                               f"configured: {', '.join(targets)}."})


class CheckDismissal(models.Model):
    """A curator's decision that one check's finding on one text is fine, and why.

    The dismissal holds for the texts it was made on (the translation and its German
    source as they were); when either changes, the finding is open again. The row stays
    as the record of who decided what and when.
    """

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE)
    object_id = models.PositiveBigIntegerField()
    content_object = GenericForeignKey("content_type", "object_id")
    field = models.CharField(max_length=40)
    language = models.CharField(max_length=10)
    check_name = models.CharField("check", max_length=40)
    reason = models.TextField(max_length=REASON_MAX_CHARS, validators=[validate_reason_length],
                              help_text="Why the finding is fine for this text.")
    text = models.TextField(blank=True, editable=False,
                            help_text="The translation as it was when the finding was dismissed.")
    source = models.TextField(blank=True, editable=False,
                              help_text="The German source as it was when the finding was dismissed.")
    dismissed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                     editable=False, related_name="+")
    dismissed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-dismissed_at", "-pk"]
        verbose_name = "dismissed check"
        indexes = [models.Index(fields=["content_type", "object_id", "language"])]

    def __str__(self) -> str:
        return f"{self.check_name} on {self.field} ({self.language})"

    def clean(self) -> None:
        if not self.reason.strip():
            raise ValidationError({"reason": "Say why the finding is fine for this text."})

    def holds_for(self, source: str, text: str) -> bool:
        """Whether the dismissal still covers the text as it is now."""
        return self.source == source and self.text == text
