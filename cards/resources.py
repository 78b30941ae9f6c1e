"""django-import-export resources: one per content type, matched on the stable ``key``.

The admin, ``import_catalogue`` / ``export_catalogue`` and the fixtures all go through these
classes, so a rule checked here (or in the models they clean) holds for every path in.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, ClassVar

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import models
from import_export import fields, instance_loaders, resources, widgets
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from cards.concurrency import bump_versions
from cards.files import COLUMNS, TRANSLATION_COLUMNS, normalise_type_name
from cards.findings import mark_objects
from cards.import_diff import ReadableDiff
from cards.models import (
    AlfonsCard,
    ConceptCard,
    Content,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SloganCard,
    SloganOption,
    SymbolTile,
    Translatable,
    Translation,
    TranslationState,
    markets_or_source,
    option_problems,
)
from cards.pictures import icon_credit, render_icon, validate_picture
from cards.text import validate_key
from cards.translation import sources_changed_in_bulk
from cards.weights import parse_weight, show_weight


class KeyLoader(instance_loaders.BaseInstanceLoader):
    """Loads the stored cards of every key in the file up front, in a few queries."""

    def __init__(self, resource: Any, dataset: Any = None) -> None:
        super().__init__(resource, dataset)
        keys = sorted({str(row.get("key") or "").strip() for row in (dataset.dict if dataset else [])})
        queryset = resource.get_queryset()
        self.by_key: dict[str, Any] = {}
        for chunk in _chunks(keys):
            self.by_key.update((obj.key, obj) for obj in queryset.filter(key__in=chunk))

    def get_instance(self, row: dict) -> Any:
        return self.by_key.get(str(row.get("key") or "").strip())


class KeyedResource(resources.ModelResource):
    """Rows are matched on ``key``; an unchanged row is reported as skipped, not saved.

    Rows are checked one by one (every field, every rule of the model) but written in
    batches: ``bulk_create_with_history`` / ``bulk_update_with_history`` write the rows and
    their history, and translations of changed source texts drop to *needs editing* in one
    pass. Uniqueness is checked against an index of the table loaded once, not a query per
    row. Resources whose rows write more than their own table (slogans with their options,
    tiles with their pictures) save row by row instead (``use_bulk = False``).
    """

    class Meta:
        abstract = True
        import_id_fields = ("key",)
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True
        use_transactions = True
        use_bulk = True
        batch_size = 500
        instance_loader_class = KeyLoader
        exclude = ("id", "norm", "created_at", "updated_at")

    def __init__(self, *, preview: bool = True, change_reason: str = "spreadsheet import",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.change_reason = change_reason  # shown in each card's history
        if not preview:
            # Commands show no per-row diff: do not build one (no copy of every stored row);
            # skip_row compares the imported fields with a snapshot instead.
            self._meta = copy.copy(self._meta)
            self._meta.skip_html_diff = True
            self._meta.skip_diff = self._meta.use_bulk
        self._text_index: dict[str, str] | None = None

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().order_by("key")

    def get_diff_class(self) -> type:
        return ReadableDiff  # old → new per cell, not a character-wise strike-through

    def export(self, *args: Any, **kwargs: Any) -> Any:
        dataset = super().export(*args, **kwargs)
        # A workbook's sheet names its content type, so importing it needs no --type.
        dataset.title = normalise_type_name(str(self._meta.model._meta.verbose_name_plural))
        return dataset

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        check_columns(dataset, *COLUMNS[self._meta.model])
        check_unique_rows(dataset, ("key",))

    def before_save_instance(self, instance: Any, row: Any, **kwargs: Any) -> None:
        super().before_save_instance(instance, row, **kwargs)
        instance._change_reason = self.change_reason

    # --- unchanged rows without a diff --------------------------------------------------

    def _values(self, instance: Any) -> tuple:
        if not hasattr(self, "_value_attributes"):
            self._value_attributes = tuple(
                field.attribute for field in self.get_import_fields() if field.attribute
            )
        return tuple(getattr(instance, name, None) for name in self._value_attributes)

    def after_init_instance(self, instance: Any, new: bool, row: Any, **kwargs: Any) -> None:
        if self._meta.skip_diff and not new:
            instance._import_snapshot = self._values(instance)

    def skip_row(self, instance, original, row, import_validation_errors=None):  # type: ignore[no-untyped-def]
        snapshot = getattr(instance, "_import_snapshot", None)
        if self._meta.skip_diff and self._meta.skip_unchanged and not import_validation_errors:
            return snapshot is not None and snapshot == self._values(instance)
        return super().skip_row(instance, original, row, import_validation_errors)

    # --- validation without a query per row ------------------------------------------

    def text_index(self) -> dict[str, str]:
        """Normalised text -> key of every stored card of this type (loaded once)."""
        if self._text_index is None:
            model = self._meta.model
            self._text_index = (
                dict(model._default_manager.values_list("norm", "key")) if model.TEXT_FIELD else {}
            )
        return self._text_index

    def validate_instance(self, instance, import_validation_errors=None, validate_unique=True):  # type: ignore[no-untyped-def]
        if not self._meta.use_bulk:
            return super().validate_instance(instance, import_validation_errors, validate_unique)
        errors = dict(import_validation_errors or {})
        instance._text_index = self.text_index()
        try:
            # The key's uniqueness is the file's (checked in before_import) and the loader's
            # (a stored key is an update); the database constraints are mirrored by field
            # validators and clean(). Fields the file does not set need no check.
            instance.full_clean(exclude={*errors, *self._unimported_fields()},
                                validate_unique=False, validate_constraints=False)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        finally:
            del instance._text_index
        if errors:
            raise ValidationError(errors)
        if instance.TEXT_FIELD:
            self.text_index()[instance.norm_of_text()] = instance.key

    def _unimported_fields(self) -> set[str]:
        if not hasattr(self, "_unimported"):
            imported = {f.attribute for f in self.get_import_fields() if f.attribute}
            self._unimported = {
                f.name for f in self._meta.model._meta.concrete_fields if f.name not in imported
            }
        return self._unimported

    # --- batched writes with history -------------------------------------------------

    def bulk_create(self, using_transactions, dry_run, raise_errors, batch_size=None, result=None):  # type: ignore[no-untyped-def]
        if self.create_instances and (using_transactions or not dry_run):
            try:
                for obj in self.create_instances:
                    obj.prepare_for_bulk()
                created = bulk_create_with_history(self.create_instances, self._meta.model,
                                                   batch_size=batch_size,
                                                   default_change_reason=self.change_reason)
                # bulk_create sends no post_save: the stored check findings learn it here
                mark_objects(self._meta.model, [obj.pk for obj in created])
            except Exception as exc:  # reported as the file's error; the import rolls back
                self.handle_import_error(result, exc, raise_errors)
            finally:
                self.create_instances.clear()

    def bulk_update(self, using_transactions, dry_run, raise_errors, batch_size=None, result=None):  # type: ignore[no-untyped-def]
        if self.update_instances and (using_transactions or not dry_run):
            try:
                changes = [(obj, obj.changed_sources()) for obj in self.update_instances]
                for obj in self.update_instances:
                    obj.prepare_for_bulk()
                bump_versions(self._meta.model, self.update_instances)
                fields = [
                    f.attribute for f in self.get_import_fields()
                    if f.attribute and f.attribute != "key"
                ] + ["norm", "updated_at"]
                bulk_update_with_history(self.update_instances, self._meta.model, fields,
                                         batch_size=batch_size,
                                         default_change_reason=self.change_reason)
                sources_changed_in_bulk([(obj, c) for obj, c in changes if c])
                mark_objects(self._meta.model, [obj.pk for obj in self.update_instances])
            except Exception as exc:  # reported as the file's error; the import rolls back
                self.handle_import_error(result, exc, raise_errors)
            finally:
                self.update_instances.clear()


class FileRejected(ValueError):
    """The file as a whole cannot be imported (its columns or duplicate rows)."""


def check_columns(dataset: Any, required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    headers = [str(h).strip() for h in (dataset.headers or [])]
    missing = [c for c in required if c not in headers]
    unknown = [h for h in headers if h not in required and h not in optional]
    problems = []
    if missing:
        problems.append("missing columns: " + ", ".join(f"`{c}`" for c in missing))
    if unknown:
        problems.append("unknown columns: " + ", ".join(f"`{c}`" for c in unknown))
    if problems:
        expected = ", ".join(required + optional)
        raise FileRejected(f"The file has {'; '.join(problems)} (expected: {expected}).")


def check_unique_rows(dataset: Any, columns: tuple[str, ...]) -> None:
    """Two rows for the same card would silently overwrite each other: refuse the file."""
    seen: dict[tuple[str, ...], int] = {}
    clashes = []
    for number, row in enumerate(dataset.dict, start=2):
        ident = tuple(str(row.get(c) or "").strip() for c in columns)
        if ident in seen:
            clashes.append(f"rows {seen[ident]} and {number} ({', '.join(ident)})")
        else:
            seen[ident] = number
    if clashes:
        raise FileRejected(
            f"The file has the same {' + '.join(columns)} twice: " + "; ".join(clashes[:10])
            + (f" and {len(clashes) - 10} more" if len(clashes) > 10 else "") + "."
        )


class StrictBooleanWidget(widgets.BooleanWidget):
    """true/false, yes/no, 1/0 or empty (= false); anything else is an error, not False."""

    TRUE = {"1", "true", "yes", "y", "ja", "wahr", "x"}
    FALSE = {"0", "false", "no", "n", "nein", "falsch", ""}

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> bool:
        if isinstance(value, bool):
            return value
        text = "" if value is None else str(value).strip().lower()
        if text in self.TRUE:
            return True
        if text in self.FALSE:
            return False
        raise ValueError(f"“{value}” is not true or false.")

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        return "true" if value else "false"


class WholeNumberWidget(widgets.IntegerWidget):
    """A whole number; '12.0' from a spreadsheet is fine, '12.5' or 'zwölf' is not."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> int | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        try:
            number = float(str(value).strip().replace("_", ""))
        except ValueError:
            raise ValueError(f"“{value}” is not a whole number.") from None
        if not number.is_integer():
            raise ValueError(f"“{value}” is not a whole number.")
        return int(number)

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> Any:
        # A number cell in a workbook (JSON: a number), not text; CSV writes it the same.
        return value


class WeightWidget(widgets.IntegerWidget):
    """A weight as the admin takes it (cards.weights.parse_weight: "55 kg", "0,5 t", a plain
    number of grams), exported as a number so a spreadsheet keeps it a number."""

    def __init__(self) -> None:
        super().__init__(coerce_to_string=False)

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> int | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        return parse_weight(value)  # a WeightError is a ValueError: reported on its cell

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> Any:
        return value

    def show(self, value: Any) -> str:
        """How the import preview shows a weight: as the admin does ("55 kg")."""
        try:
            return show_weight(int(value))
        except (TypeError, ValueError):
            return str(value)


class KeyWidget(widgets.ForeignKeyWidget):
    """A reference to another card by its key, with a message naming the missing key."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Any:
        if value in (None, ""):
            return None
        try:
            return self.get_queryset(value, row, **kwargs).get(key=str(value).strip())
        except self.model.DoesNotExist:
            raise ValueError(
                f"There is no {self.model._meta.verbose_name} with the key “{value}”."
            ) from None


class ConceptCardResource(KeyedResource):
    class Meta(KeyedResource.Meta):
        model = ConceptCard
        fields = ("key", "text")


class SymbolTileResource(KeyedResource):
    """Symbol tiles; the picture is drawn from a Tabler icon, or read from a catalogue folder."""

    is_extra = fields.Field(attribute="is_extra", column_name="is_extra", widget=StrictBooleanWidget())
    position = fields.Field(attribute="position", column_name="position", widget=WholeNumberWidget())
    picture = fields.Field(column_name="picture", attribute=None)

    class Meta(KeyedResource.Meta):
        use_bulk = False  # each row also writes a picture file
        model = SymbolTile
        fields = (
            "key", "name", "icon", "is_extra", "position", "picture", "image_source", "image_licence",
        )

    def __init__(self, catalogue_dir: Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.catalogue_dir = catalogue_dir

    def dehydrate_picture(self, tile: SymbolTile) -> str:
        return f"symbols/pictures/{tile.key}.png" if tile.image else ""

    def import_instance(self, instance: SymbolTile, row: dict, **kwargs: Any) -> None:
        previous_icon = instance.icon if instance.pk else None
        super().import_instance(instance, row, **kwargs)
        picture = (row.get("picture") or "").strip()
        if picture:
            instance._picture_bytes = self._read_picture(picture)  # type: ignore[attr-defined]
        elif instance.icon and (
            not instance.image or instance.icon != previous_icon or not _file_exists(instance.image)
        ):
            try:
                instance._picture_bytes = render_icon(instance.icon)  # type: ignore[attr-defined]
            except ValidationError as exc:
                raise ValidationError({"icon": exc.messages}) from None
            source, licence = icon_credit(instance.icon)
            if instance.icon != previous_icon:  # a new drawing brings its own credit
                instance.image_source = instance.image_licence = ""
            instance.image_source = instance.image_source or source
            instance.image_licence = instance.image_licence or licence
        data = getattr(instance, "_picture_bytes", None)
        if data is not None:
            # An uncommitted file: full_clean checks it, and saving the tile stores it
            # under symbols/<key>.png.
            instance.image = ContentFile(data, name=f"{instance.key}.png")

    def _read_picture(self, relative: str) -> bytes:
        if self.catalogue_dir is None:
            raise ValidationError({"picture": "Pictures can only be read from a catalogue folder."})
        base = self.catalogue_dir.resolve()
        path = (base / relative).resolve()
        if base not in path.parents or not path.is_file():
            raise ValidationError({"picture": f"The picture file “{relative}” is not in the folder."})
        data = path.read_bytes()
        upload = ContentFile(data, name=path.name)
        try:
            validate_picture(upload)
        except ValidationError as exc:
            raise ValidationError({"picture": exc.messages}) from None
        return data

    def skip_row(  # type: ignore[no-untyped-def]
        self, instance: SymbolTile, original: SymbolTile, row: dict, import_validation_errors=None
    ) -> bool:
        data = getattr(instance, "_picture_bytes", None)
        if data is not None and _file_bytes(original.image) != data:
            return False
        return super().skip_row(instance, original, row, import_validation_errors)


def _file_bytes(image: Any) -> bytes | None:
    if not _file_exists(image):
        return None
    with image.storage.open(image.name, "rb") as handle:
        return handle.read()


def _file_exists(image: Any) -> bool:
    try:
        return bool(image.name) and image.storage.exists(image.name)
    except (ValueError, OSError):
        return False


class SignSymbolResource(KeyedResource):
    position = fields.Field(attribute="position", column_name="position", widget=WholeNumberWidget())

    class Meta(KeyedResource.Meta):
        model = SignSymbol
        fields = ("key", "name", "icon", "position")


class SignColourResource(KeyedResource):
    position = fields.Field(attribute="position", column_name="position", widget=WholeNumberWidget())

    class Meta(KeyedResource.Meta):
        model = SignColour
        fields = ("key", "name", "hex", "mark", "position")


class SignCardResource(KeyedResource):
    symbol = fields.Field(attribute="symbol", column_name="symbol", widget=KeyWidget(SignSymbol, "key"))
    colour = fields.Field(attribute="colour", column_name="colour", widget=KeyWidget(SignColour, "key"))

    class Meta(KeyedResource.Meta):
        model = SignCard
        fields = ("key", "symbol", "colour")

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().select_related("symbol", "colour")


class SloganCardWidget(widgets.ForeignKeyWidget):
    """The card a slogan is printed on; a card that does not exist yet is created."""

    def __init__(self) -> None:
        super().__init__(SloganCard, "key")

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> SloganCard | None:
        key = "" if value is None else str(value).strip()
        if not key:
            return None
        card = SloganCard.objects.filter(key=key).first()
        if card is None:
            card = SloganCard(key=key)
            try:
                validate_key(key)
            except ValidationError as exc:
                raise ValueError(exc.messages[0]) from None
            card.save()
        return card


OPTION_COLUMNS = ("option_1", "option_2", "option_3", "option_4")


class MarketsWidget(widgets.CharWidget):
    """A slogan's markets, written one way ("de,en") whatever order or spacing the file has."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> str:
        return markets_or_source("" if value is None else str(value))


class SloganResource(KeyedResource):
    """One row per slogan: its card and side, its text, its four options and the correct one."""

    card = fields.Field(attribute="card", column_name="card", widget=SloganCardWidget())
    side = fields.Field(attribute="side", column_name="side", widget=WholeNumberWidget())
    option_1 = fields.Field(column_name="option_1", attribute=None)
    option_2 = fields.Field(column_name="option_2", attribute=None)
    option_3 = fields.Field(column_name="option_3", attribute=None)
    option_4 = fields.Field(column_name="option_4", attribute=None)
    correct = fields.Field(column_name="correct", attribute=None)
    keep_german = fields.Field(
        attribute="keep_german", column_name="keep_german", widget=StrictBooleanWidget()
    )
    markets = fields.Field(attribute="markets", column_name="markets", widget=MarketsWidget())

    class Meta(KeyedResource.Meta):
        use_bulk = False  # each row also writes its four options
        model = Slogan
        # markets last: spreadsheets written before the column existed keep their positions
        fields = ("card", "side", "key", "text", *OPTION_COLUMNS, "correct", "keep_german",
                  "source", "markets")

    def get_queryset(self) -> models.QuerySet:
        return (
            Slogan.objects.select_related("card")
            .prefetch_related("options")
            .order_by("card__key", "side")
        )

    def _options(self, slogan: Slogan) -> list[SloganOption]:
        return sorted(slogan.options.all(), key=lambda o: o.position)

    def dehydrate_option_1(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 1)

    def dehydrate_option_2(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 2)

    def dehydrate_option_3(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 3)

    def dehydrate_option_4(self, slogan: Slogan) -> str:
        return self._option_text(slogan, 4)

    def _option_text(self, slogan: Slogan, position: int) -> str:
        return next((o.text for o in self._options(slogan) if o.position == position), "")

    def dehydrate_correct(self, slogan: Slogan) -> str:
        return next((str(o.position) for o in self._options(slogan) if o.is_correct), "")

    def import_instance(self, instance: Slogan, row: dict, **kwargs: Any) -> None:
        errors: dict[str, Any] = {}
        try:
            super().import_instance(instance, row, **kwargs)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        missing = [c for c in (*OPTION_COLUMNS, "correct") if c not in row]
        if missing:
            errors["correct"] = f"The columns {', '.join(missing)} are missing."
        else:
            texts = [str(row[c] or "").strip() for c in OPTION_COLUMNS]
            correct = str(row["correct"] or "").strip()
            if correct.endswith(".0"):
                correct = correct[:-2]
            if correct not in {"1", "2", "3", "4"}:
                errors["correct"] = f"“{row['correct']}” is not the number (1–4) of the correct option."
            else:
                flags = [str(i) == correct for i in range(1, 5)]
                for message in option_problems(texts, flags):
                    errors.setdefault("option_1", []).append(message)
                instance._pending_options = list(zip(texts, flags, strict=True))  # type: ignore[attr-defined]
        if errors:
            raise ValidationError(errors)

    def skip_row(  # type: ignore[no-untyped-def]
        self, instance: Slogan, original: Slogan, row: dict, import_validation_errors=None
    ) -> bool:
        pending = getattr(instance, "_pending_options", None)
        if pending is not None and original.pk:
            current = [(o.text, o.is_correct) for o in self._options(original)]
            if current != pending:
                return False
        elif pending is not None:
            return False
        return super().skip_row(instance, original, row, import_validation_errors)

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        self._cards_of_file: dict[str, list[int]] = {}  # card key -> file rows naming it
        self._cards_before: dict[int, int] = {}  # slogan pk -> its card before the file
        super().before_import(dataset, **kwargs)

    def import_row(self, row: Any, instance_loader: Any, **kwargs: Any):  # type: ignore[no-untyped-def]
        key = str(row.get("card") or "").strip()
        if key:
            number = kwargs.get("row_number")
            self._cards_of_file.setdefault(key, []).append(number + 1 if number else 0)
        return super().import_row(row, instance_loader, **kwargs)

    def after_init_instance(self, instance: Any, new: bool, row: Any, **kwargs: Any) -> None:
        super().after_init_instance(instance, new, row, **kwargs)
        if not new:
            self._cards_before[instance.pk] = instance.card_id  # a slogan moved leaves a gap

    def after_save_instance(self, instance: Slogan, row: dict, **kwargs: Any) -> None:
        pending = getattr(instance, "_pending_options", None)
        if pending is not None:
            write_options(instance, pending)

    def after_import(self, dataset: Any, result: Any, **kwargs: Any) -> None:
        """A slogan card is one unit: every card the file touches must be complete after it."""
        super().after_import(dataset, result, **kwargs)
        if result.has_errors() or result.has_validation_errors():
            return  # the rows' own errors say it; nothing is stored
        from cards.validation import incomplete_slogan_cards

        touched = set(self._cards_before.values())
        touched.update(
            SloganCard.objects.filter(key__in=list(self._cards_of_file)).values_list("pk", flat=True)
        )
        incomplete = incomplete_slogan_cards(touched)
        if incomplete:
            lines = []
            for key, problems in incomplete.items():
                rows = self._cards_of_file.get(key)
                where = f" (rows {', '.join(map(str, rows))})" if rows else ""
                lines.append(f"slogan card {key}{where}: {'; '.join(problems)}")
            raise IncompleteCards(
                "A slogan card is imported whole: both slogans, each with four options. "
                + " ".join(f"{line}." for line in lines)
            )


class IncompleteCards(ValueError):
    """A slogan file would leave a card without one of its slogans."""


def write_options(slogan: Slogan, pending: list[tuple[str, bool]]) -> None:
    """Store a slogan's four options (text, correct) in position order, changing only what
    differs. The admin and the spreadsheet import both write options through here."""
    existing = {o.position: o for o in slogan.options.all()}
    # Unmark the old correct option first: at most one option may be correct at a time.
    for position, (_text, is_correct) in enumerate(pending, start=1):
        option = existing.get(position)
        if option is not None and option.is_correct and not is_correct:
            option.is_correct = False
            option.save(update_fields=["is_correct"])
    for position, (text, is_correct) in enumerate(pending, start=1):
        option = existing.get(position) or SloganOption(slogan=slogan, position=position)
        if option.pk and option.text == text and option.is_correct == is_correct:
            continue
        option.text = text
        option.is_correct = is_correct
        option.full_clean(validate_unique=False, validate_constraints=False)
        option.save()
    for position, option in existing.items():
        if position > len(pending):
            option.delete()


class SloganCardResource(KeyedResource):
    """Slogan cards, for export: the key and both slogans. A card is imported with its
    slogans and their options (a slogans file), never on its own: a card without slogans
    would be incomplete, so this resource refuses every file."""

    slogan_1 = fields.Field(column_name="slogan_1", attribute=None, readonly=True)
    slogan_2 = fields.Field(column_name="slogan_2", attribute=None, readonly=True)

    class Meta(KeyedResource.Meta):
        model = SloganCard
        fields = ("key", "slogan_1", "slogan_2")

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().prefetch_related("slogans")

    def _text(self, card: SloganCard, side: int) -> str:
        return next((s.text for s in card.slogans.all() if s.side == side), "")

    def dehydrate_slogan_1(self, card: SloganCard) -> str:
        return self._text(card, 1)

    def dehydrate_slogan_2(self, card: SloganCard) -> str:
        return self._text(card, 2)

    def before_import(self, dataset: Any, **kwargs: Any) -> None:
        raise FileRejected(
            "Slogan cards are imported with their slogans: import a slogans file (columns "
            "card, side, key, text, option_1 … option_4, correct) on the Slogans page."
        )


class AlfonsCardResource(KeyedResource):
    amount = fields.Field(attribute="amount", column_name="amount", widget=WholeNumberWidget())

    class Meta(KeyedResource.Meta):
        model = AlfonsCard
        fields = ("key", "text", "effect", "amount", "target")


class SauschwerObjectResource(KeyedResource):
    weight_g = fields.Field(attribute="weight_g", column_name="weight_g", widget=WeightWidget())

    class Meta(KeyedResource.Meta):
        model = SauschwerObject
        fields = ("key", "name", "weight_g", "source")


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
        for chunk in _chunks(keys):
            self._objects.update((o.key, o) for o in model._default_manager.filter(key__in=chunk))
        targets: list[Any] = list(self._objects.values())
        self._options: dict[tuple[int, int], SloganOption] = {}
        if model is Slogan:
            for chunk in _chunks([o.pk for o in targets]):
                for option in SloganOption.objects.filter(slogan_id__in=chunk):
                    self._options[(option.slogan_id, option.position)] = option
            targets += list(self._options.values())
        self._stored: dict[tuple[int, int, str, str], Translation] = {}
        by_type: dict[int, list[int]] = {}
        for target in targets:
            by_type.setdefault(_content_type(type(target)).pk, []).append(target.pk)
        for type_id, ids in by_type.items():
            for chunk in _chunks(ids):
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


def _chunks(items: list[Any], size: int = 900) -> list[list[Any]]:
    """Slices small enough for SQLite's limit of parameters per statement."""
    return [items[start:start + size] for start in range(0, len(items), size)]


def _content_type(model: type[models.Model]):  # type: ignore[no-untyped-def]
    from django.contrib.contenttypes.models import ContentType

    return ContentType.objects.get_for_model(model)


def translation_resource_for(model: type[Content]) -> type[TranslationResource]:
    return type(
        f"{model.__name__}TranslationResource",
        (TranslationResource,),
        {"content_model": model, "Meta": TranslationResource.Meta},
    )


#: Content model -> its resource.
RESOURCES: dict[type[Content], type[KeyedResource]] = {
    ConceptCard: ConceptCardResource,
    SymbolTile: SymbolTileResource,
    SignSymbol: SignSymbolResource,
    SignColour: SignColourResource,
    SignCard: SignCardResource,
    Slogan: SloganResource,
    AlfonsCard: AlfonsCardResource,
    SauschwerObject: SauschwerObjectResource,
}


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
