"""Translation files: one resource per translatable content type (key, field, language, text,
state), and the wide slogan layout (one row per slogan and language, its options beside it)
turned into that shape before an import.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from django.db import models
from import_export import fields, resources

from cards.columns import TRANSLATION_COLUMNS
from cards.models import (
    Content,
    Slogan,
    SloganOption,
    Translatable,
    Translation,
    TranslationState,
)
from cards.resource_base import check_columns, check_unique_rows, chunks
from cards.resources import OPTION_COLUMNS

# --- translations ------------------------------------------------------------------------


class TranslationResource(resources.ModelResource):
    """Translations of one content type: one row per (key, field, language).

    Slogans address their answer options as the fields ``option_1`` … ``option_4``.
    """

    content_model: ClassVar[type[Content]]

    key = fields.Field(column_name="key", attribute=None)
    field = fields.Field(column_name="field", attribute=None)
    language = fields.Field(column_name="language", attribute="language")
    text = fields.Field(column_name="text", attribute="text")
    state = fields.Field(column_name="state", attribute="state")

    class Meta:
        model = Translation
        fields = ("key", "field", "language", "text", "state")
        import_id_fields = ("key", "field", "language")
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        check_columns(dataset, *TRANSLATION_COLUMNS)
        check_unique_rows(dataset, ("key", "field", "language"))
        self._load(dataset)

    def _load(self, dataset: Any) -> None:
        """Every card, option and stored translation the file names, in a few queries."""
        model = self.content_model
        keys = sorted({str(row.get("key") or "").strip() for row in dataset.dict})
        self._objects: dict[str, Any] = {}
        for chunk in chunks(keys):
            self._objects.update((o.key, o) for o in model._default_manager.filter(key__in=chunk))
        targets: list[Any] = list(self._objects.values())
        self._options: dict[tuple[int, int], SloganOption] = {}
        if model is Slogan:
            for chunk in chunks([o.pk for o in targets]):
                for option in SloganOption.objects.filter(slogan_id__in=chunk):
                    self._options[(option.slogan_id, option.position)] = option
            targets += list(self._options.values())
        self._stored: dict[tuple[int, int, str, str], Translation] = {}
        by_type: dict[int, list[int]] = {}
        for target in targets:
            by_type.setdefault(_content_type(type(target)).pk, []).append(target.pk)
        for type_id, ids in by_type.items():
            for chunk in chunks(ids):
                for row in Translation.objects.filter(content_type_id=type_id, object_id__in=chunk):
                    self._stored[(type_id, row.object_id, row.field, row.language)] = row

    # Which object and model field a (key, field) pair of a row points at.
    def _target(self, row: dict) -> tuple[Translatable, str]:
        key = str(row.get("key") or "").strip()
        label = str(row.get("field") or "").strip()
        model = self.content_model
        obj = self._objects.get(key)
        if obj is None:
            raise ValidationError(
                {"key": f"There is no {model._meta.verbose_name} with the key “{key}”."}
            )
        if model is Slogan and label in OPTION_COLUMNS:
            option = self._options.get((obj.pk, int(label[-1])))
            if option is None:
                raise ValidationError({"field": f"The slogan “{key}” has no {label}."})
            return option, "text"
        valid = list(model.TRANSLATABLE_FIELDS) + (list(OPTION_COLUMNS) if model is Slogan else [])
        if label not in model.TRANSLATABLE_FIELDS:
            raise ValidationError(
                {"field": f"“{label}” is not a translatable field; use one of: {', '.join(valid)}."}
            )
        return obj, label

    def get_instance(self, instance_loader: Any, row: dict) -> Translation | None:
        try:
            obj, field = self._target(row)
        except ValidationError:
            return None  # init_instance reports it
        language = str(row.get("language") or "").strip()
        stored = self._stored.get((_content_type(type(obj)).pk, obj.pk, field, language))
        if stored is not None:
            stored.content_object = obj  # known already: no query to fetch it again
        return stored

    def init_instance(self, row: dict | None = None) -> Translation:
        obj, field = self._target(row or {})
        return Translation(content_object=obj, field=field)

    def import_instance(self, instance: Translation, row: dict, **kwargs: Any) -> None:
        stored_text, stored_state = instance.text, instance.state
        super().import_instance(instance, row, **kwargs)
        instance.language = (instance.language or "").strip()
        instance.state = (instance.state or "").strip() or TranslationState.TRANSLATED
        if (
            instance.pk
            and stored_state == TranslationState.NEEDS_EDITING
            and instance.text == stored_text
        ):
            # The file holds the same text that was made from the old source: importing it
            # again does not confirm it against the new source.
            instance.state = TranslationState.NEEDS_EDITING

    def get_queryset(self) -> models.QuerySet:
        types = [_content_type(self.content_model)]
        if self.content_model is Slogan:
            types.append(_content_type(SloganOption))
        return (
            Translation.objects.filter(content_type__in=types)
            .prefetch_related("content_object")
            .order_by("content_type_id", "object_id", "field", "language")
        )

    def export(self, queryset: Any = None, **kwargs: Any):  # type: ignore[no-untyped-def]
        rows = list(queryset if queryset is not None else self.get_queryset())
        if self.content_model is Slogan:
            options = [r.content_object for r in rows if isinstance(r.content_object, SloganOption)]
            slogans = Slogan.objects.in_bulk({o.slogan_id for o in options})
            for option in options:
                option.slogan = slogans[option.slogan_id]
        rows.sort(key=lambda r: (self.dehydrate_key(r), self.dehydrate_field(r), r.language))
        return super().export(queryset=rows, **kwargs)

    def dehydrate_key(self, row: Translation) -> str:
        return row.content_object.key

    def dehydrate_field(self, row: Translation) -> str:
        obj = row.content_object
        if isinstance(obj, SloganOption):
            return f"option_{obj.position}"
        return row.field



def _content_type(model: type[models.Model]):  # type: ignore[no-untyped-def]
    from django.contrib.contenttypes.models import ContentType

    return ContentType.objects.get_for_model(model)


def translation_resource_for(model: type[Content]) -> type[TranslationResource]:
    return type(
        f"{model.__name__}TranslationResource",
        (TranslationResource,),
        {"content_model": model, "Meta": TranslationResource.Meta},
    )


# --- slogan translations, one row per (key, language) ------------------------------------

#: The columns of a slogan translation file in its wide form: the slogan and its four
#: options side by side, one row per slogan and language (``state`` applies to the row).
WIDE_SLOGAN_COLUMNS = ("key", "language", "text", *OPTION_COLUMNS)


def is_wide_slogan_translations(headers: Any) -> bool:
    names = {str(h).strip() for h in (headers or [])}
    return set(WIDE_SLOGAN_COLUMNS) <= names <= {*WIDE_SLOGAN_COLUMNS, "state"}


def narrow_slogan_translations(dataset: Any) -> tuple[Any, list[tuple[int, str]]]:
    """The wide form as the long one (a row per text), and for each long row the
    spreadsheet row and column it came from. An empty cell leaves that text alone."""
    import tablib

    check_unique_rows(dataset, ("key", "language"))
    narrow = tablib.Dataset(headers=["key", "field", "language", "text", "state"])
    origin: list[tuple[int, str]] = []
    for number, row in enumerate(dataset.dict, start=2):
        for column in ("text", *OPTION_COLUMNS):
            value = row.get(column)
            if value is None or not str(value).strip():
                continue
            narrow.append((row.get("key"), column, row.get("language"), value,
                           row.get("state") or ""))
            origin.append((number, column))
    return narrow, origin
