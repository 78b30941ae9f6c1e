"""The common ground of the import/export resources (django-import-export): rows found by
their key, columns checked before any row is read, and strict widgets for booleans, whole
numbers, weights and keys, with messages a curator understands.
"""

from __future__ import annotations

import copy
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from import_export import instance_loaders, resources, widgets
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from cards.columns import COLUMNS, normalise_type_name
from cards.concurrency import bump_versions
from cards.findings import mark_objects
from cards.import_diff import ReadableDiff
from cards.text import KEY_MAX_LENGTH, make_key, normalise
from cards.translation import sources_changed_in_bulk
from cards.weights import parse_weight, show_weight


class KeyLoader(instance_loaders.BaseInstanceLoader):
    """Loads the stored cards of every key in the file up front, in a few queries."""

    def __init__(self, resource: Any, dataset: Any = None) -> None:
        super().__init__(resource, dataset)
        keys = sorted({str(row.get("key") or "").strip() for row in (dataset.dict if dataset else [])})
        queryset = resource.get_queryset()
        self.by_key: dict[str, Any] = {}
        for chunk in chunks(keys):
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
        fill_missing_keys(dataset, self._meta.model)
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


def fill_missing_keys(dataset: Any, model: Any) -> None:
    """A row with an empty key gets one made from its German text, by the rule the add page
    uses (``make_key``: ``Ein Kühlschrank`` → ``ein-kuehlschrank``). A made key that another
    row of the file or a stored card with another text has is numbered on (``-2``, ``-3``…),
    so a new row never overwrites a card; the stored card with the same text is that card."""
    text_field = getattr(model, "TEXT_FIELD", None)
    headers = [str(h).strip() for h in (dataset.headers or [])]
    if not text_field or "key" not in headers or text_field not in headers:
        return
    key_at, text_at = headers.index("key"), headers.index(text_field)
    blanks = [n for n, row in enumerate(dataset)
              if not str(row[key_at] or "").strip() and str(row[text_at] or "").strip()]
    if not blanks:
        return
    in_file = {str(row[key_at]).strip() for row in dataset if str(row[key_at] or "").strip()}
    made = {n: make_key(str(dataset[n][text_at]).strip()) for n in blanks}
    stored: dict[str, str] = {}  # key -> norm, for the made keys (one query per 900 of them)
    for chunk in chunks(sorted({base for base in made.values() if base})):
        stored.update(model._default_manager.filter(key__in=chunk).values_list("key", "norm"))
    for n, base in made.items():
        if not base:
            continue  # nothing to make it from: the row's own error says the key is missing
        row = list(dataset[n])
        norm = normalise(str(row[text_at]).strip())[:255]
        key, number = base, 1
        if base in stored and stored[base] != norm:  # taken: its numbered keys too (rare)
            stored.update(model._default_manager.filter(key__startswith=base[:50])
                          .values_list("key", "norm"))
        while key in in_file or (key in stored and stored[key] != norm):
            number += 1
            suffix = f"-{number}"
            key = f"{base[:KEY_MAX_LENGTH - len(suffix)]}{suffix}"
        in_file.add(key)
        row[key_at] = key
        dataset[n] = tuple(row)


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


def chunks(items: list[Any], size: int = 900) -> list[list[Any]]:
    """Slices small enough for SQLite's limit of parameters per statement."""
    return [items[start:start + size] for start in range(0, len(items), size)]

