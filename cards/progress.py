"""How far each game's translation into each language has come, and what is left to do."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.db.models import Count

from cards.models import (
    EMPTY,
    TRANSLATABLE_MODELS,
    Game,
    Slogan,
    SloganOption,
    Translatable,
    Translation,
    TranslationState,
)


@dataclass
class Progress:
    game: str
    language: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def done(self) -> int:
        return self.counts.get(TranslationState.TRANSLATED, 0) + self.counts.get(
            TranslationState.APPROVED, 0
        )

    @property
    def percent(self) -> int:
        wanted = self.total - self.counts.get("untranslated", 0)
        return round(100 * self.done / wanted) if wanted else 100


def models_of(game: str) -> list[type[Translatable]]:
    return [m for m in TRANSLATABLE_MODELS if m.GAME == game]


def progress(game: str, language: str) -> Progress:
    """Counts of empty, needs editing, translated, approved (and deliberately German) texts."""
    result = Progress(game, language, {EMPTY: 0, "untranslated": 0, **dict.fromkeys(
        TranslationState.values, 0)})
    for model in models_of(game):
        content_type = ContentType.objects.get_for_model(model)
        for name in model.TRANSLATABLE_FIELDS:
            total = model._default_manager.count()
            if model is Slogan and name == "text":
                kept = Slogan.objects.filter(keep_german=True)
                result.counts["untranslated"] += kept.count()
                total -= kept.count()
                rows = Translation.objects.filter(
                    content_type=content_type, field=name, language=language,
                    object_id__in=Slogan.objects.filter(keep_german=False).values("pk"),
                )
            else:
                rows = Translation.objects.filter(
                    content_type=content_type, field=name, language=language
                )
            by_state = rows.exclude(text="").values("state").annotate(n=Count("id"))
            counted = 0
            for row in by_state:
                result.counts[row["state"]] += row["n"]
                counted += row["n"]
            result.counts[EMPTY] += total - counted
    return result


def all_progress(languages: list[str]) -> list[Progress]:
    return [progress(game, language) for game in Game.values for language in languages]


@dataclass
class Unit:
    """One text to translate: an object's field, its source and its translation (if any)."""

    obj: Translatable
    field: str
    translation: Translation | None

    @property
    def source(self) -> str:
        return str(getattr(self.obj, self.field))

    @property
    def state(self) -> str:
        return self.translation.effective_state if self.translation else EMPTY

    @property
    def ident(self) -> str:
        return f"{type(self.obj)._meta.model_name}-{self.obj.pk}-{self.field}"

    @property
    def label(self) -> str:
        if isinstance(self.obj, SloganOption):
            return f"{self.obj.slogan.key} · option {self.obj.position}"
        return f"{self.obj.key}"  # type: ignore[attr-defined]

    @property
    def context(self) -> str:
        """What a translator needs beside the text: the slogan an option answers."""
        if isinstance(self.obj, SloganOption):
            return f"answer to: {self.obj.slogan.text}"
        return ""


def units(game: str, language: str, state: str = "") -> Iterator[Unit]:
    """Every text of a game for a language, optionally only those in one state."""
    for model in models_of(game):
        queryset = model._default_manager.all()
        if model is SloganOption:
            queryset = queryset.select_related("slogan").order_by("slogan__key", "position")
        else:
            queryset = queryset.order_by("key")
        if model is Slogan:
            queryset = queryset.filter(keep_german=False)
        content_type = ContentType.objects.get_for_model(model)
        rows = {
            (t.object_id, t.field): t
            for t in Translation.objects.filter(content_type=content_type, language=language)
        }
        for obj in queryset:
            for name in model.TRANSLATABLE_FIELDS:
                unit = Unit(obj, name, rows.get((obj.pk, name)))
                if not state or unit.state == state:
                    yield unit
