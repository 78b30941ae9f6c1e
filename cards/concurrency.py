"""Optimistic concurrency: no save silently undoes another person's change.

Every content row carries ``version``, a number that grows by one with every write: a save
(admin, import, command, a revert from the history), a batched import, a translation that
drops to *needs editing*. An edit form sends back the version it was rendered with; a save
made on an older version is refused and the message shows the other change (who, when, and
each field as it was → as they saved it, from django-simple-history's records).

The check and the write are one statement: ``UPDATE … SET version = N + 1 WHERE id = … AND
version = N``. Of two saves made on version N only one can match the row; the other updates
nothing and raises :class:`EditConflict`. The forms also check the version before saving
(under ``select_for_update`` on PostgreSQL; SQLite's IMMEDIATE transactions already
serialise writers), so the usual conflict is a form error, not an exception.

A client that sends no version at all (scripts, the test client) is not checked; every form
the admin renders carries one (pinned by tests/test_concurrency.py).

One save may write a row twice: a card's German text changes, which drops its English
translation to *needs editing* (a write), and the same form's translation row is then saved
with the text the curator typed (a second, conditional write). Inside :func:`one_save` (every
admin change view runs in one) the versions a save made itself are remembered, and a
conditional write whose row moved on only through those is not a conflict. A version written
by anyone else in between still is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django import forms
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import connections, models, router, transaction
from django.db.models import F, Max
from django.db.models.fields.files import FieldFile
from django.forms.models import model_to_dict
from django.utils import timezone
from django.utils.text import Truncator

#: The hidden form field that carries the version a form was rendered with.
VERSION_FIELD = "edit_version"
#: Fields that change on every save or are derived: never part of "their change".
_UNTRACKED = {"id", "version", "norm", "created_at", "updated_at", "state_before_change"}


#: Within :func:`one_save`: the versions this save wrote, by (model label, pk).
_OWN_WRITES: ContextVar[dict[tuple[str, Any], set[int]] | None] = ContextVar(
    "kartothek_own_writes", default=None)


@contextmanager
def one_save() -> Iterator[None]:
    """Everything written inside is one person's save: its own writes never conflict with it."""
    token = _OWN_WRITES.set({})
    try:
        yield
    finally:
        _OWN_WRITES.reset(token)


def _remember_write(obj: models.Model, version: int) -> None:
    own = _OWN_WRITES.get()
    if own is not None:
        own.setdefault((obj._meta.label, obj.pk), set()).add(version)


def _only_own_writes_since(obj: models.Model, expected: int, current: int) -> bool:
    """Whether every version after ``expected`` up to ``current`` was written by this save."""
    own = _OWN_WRITES.get()
    if own is None or current <= expected or expected <= 0:
        return False
    made = own.get((obj._meta.label, obj.pk), set())
    return all(version in made for version in range(expected + 1, current + 1))


class EditConflict(Exception):
    """A save was made on an older version of a row than the one now stored."""

    def __init__(self, obj: models.Model, expected: int, current: int) -> None:
        super().__init__(
            f"{type(obj)._meta.verbose_name} {obj.pk} was saved at version {current} "
            f"by someone else; this save was made on version {expected}."
        )
        self.obj, self.expected, self.current = obj, expected, current


class Versioned(models.Model):
    """A row with a version that every write increments (see the module's docstring).

    Set ``_expected_version`` before ``save()`` to make the save conditional: it writes only
    if the stored row still has that version (0: only if no row with this pk exists, as
    when a deleted card is restored), and raises :class:`EditConflict` otherwise. Without
    it, a save increments whatever version is stored (``version = version + 1`` in SQL, so
    even two unconditional writes never end at the same number).
    """

    version = models.PositiveIntegerField(
        default=1, editable=False,
        help_text="Incremented on every write; edit forms send it back to detect lost updates.",
    )

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "version"}
        using = kwargs.get("using") or router.db_for_write(type(self), instance=self)
        try:
            # One transaction even when called outside one: the version read back after an
            # unconditional write is then this write's (the row stays locked until commit).
            with transaction.atomic(using=using, savepoint=False):
                super().save(*args, **kwargs)
        finally:
            self._expected_version: int | None = None  # one check per form submission

    def _do_update(self, base_qs, using, pk_val, values, update_fields, forced_update):  # type: ignore[no-untyped-def]
        version_field = self._meta.get_field("version")
        expected: int | None = getattr(self, "_expected_version", None)
        row = base_qs.filter(pk=pk_val)
        if expected is not None:
            current = expected
            while True:
                self.version = current + 1
                written = [(f, m, self.version if f is version_field else v)
                           for f, m, v in values]
                if current > 0 and row.filter(version=current)._update(written) > 0:
                    _remember_write(self, self.version)
                    return True
                stored = row.values_list("version", flat=True).first()
                if stored is not None and stored > current and \
                        _only_own_writes_since(self, expected, stored):
                    current = stored  # moved on by this same save only: write over it
                    continue
                if stored is not None or expected > 0:  # changed, or deleted: never resurrected
                    raise EditConflict(self, expected, stored or 0)
                break  # no row, and none expected: a deleted card is restored below
        else:
            bump = F("version") + 1
            values = [(f, m, bump if f is version_field else v) for f, m, v in values]
            if row._update(values) > 0:
                # Read back the number this write made, for the history record that follows.
                self.version = row.values_list("version", flat=True).get()
                _remember_write(self, self.version)
                return True
        # No row: a deleted card comes back. Continue its numbers, so a version never
        # stands for two different states of one row.
        self.version = self._last_recorded_version() + 1
        return False

    def _last_recorded_version(self) -> int:
        history = getattr(type(self), "history", None)
        if history is None:
            return 0
        found = history.filter(**{self._meta.pk.attname: self.pk}).aggregate(top=Max("version"))
        return int(found["top"] or 0)


def bump_versions(model: type[Versioned], objs: Sequence[Versioned]) -> None:
    """Increment the stored version of rows about to be written by ``bulk_update``.

    Batched imports call this before ``bulk_update_with_history``: the rows' versions go up
    in SQL (never back, whatever the loaded objects hold) and the objects learn the new
    numbers, so the history records carry them.
    """
    pks = [obj.pk for obj in objs if obj.pk is not None]
    versions: dict[Any, int] = {}
    for start in range(0, len(pks), 900):  # SQLite's limit of parameters per statement
        rows = model._default_manager.filter(pk__in=pks[start:start + 900])
        rows.update(version=F("version") + 1)
        versions.update(rows.values_list("pk", "version"))
    for obj in objs:
        if obj.pk in versions:
            obj.version = versions[obj.pk]


def stored_version(model: type[models.Model], pk: Any, *, lock: bool = False) -> int:
    """The version stored now for pk (0 when there is no such row).

    With ``lock`` (inside a transaction) the row stays locked until the transaction ends, on
    databases that can lock a row; SQLite's IMMEDIATE transactions hold the whole database.
    """
    rows = model._default_manager.filter(pk=pk)
    connection = connections[router.db_for_write(model)]
    if lock and connection.in_atomic_block and connection.features.has_select_for_update:
        rows = rows.select_for_update()
    return int(rows.values_list("version", flat=True).first() or 0)


# --- what the other person changed ------------------------------------------------------


@dataclass
class OtherChange:
    """The saves made to one row after the version a form was rendered with."""

    model: type[models.Model]
    pk: Any
    rendered: int
    current: int
    saves: list[tuple[str, datetime]] = field(default_factory=list)  # (who, when), oldest first
    base: dict[str, Any] | None = None  # the values as rendered (None: not in the history)
    differences: list[tuple[str, str, str]] = field(default_factory=list)  # (field, old, theirs)

    @property
    def who(self) -> str:
        names = list(dict.fromkeys(name for name, _when in self.saves))
        return ", ".join(names) if names else "someone else"

    @property
    def when(self) -> str:
        return _when(self.saves[-1][1]) if self.saves else "after you opened it"

    def lines(self) -> list[str]:
        """The conflict in words, one line per field that differs."""
        label = self.model._meta.verbose_name
        if self.current == 0:
            head = f"{self.who} deleted this {label} ({self.when}) after you opened it."
        elif self.rendered == 0:
            head = (f"{self.who} restored this {label} ({self.when}) after you opened it, "
                    f"so your save was refused.")
        else:
            head = (f"{self.who} saved this {label} ({self.when}) after you opened it, "
                    f"so your save was refused.")
        lines = [head]
        if self.base is None and self.rendered:
            lines.append("The version you opened is not in the history; reload to see theirs.")
        else:
            lines += [f"{name}: {old} → {theirs}" for name, old, theirs in self.differences]
        lines.append("Reload the page to edit their version (copy your own changes first).")
        return lines


def other_change(model: type[models.Model], pk: Any, rendered: int, current: int) -> OtherChange:
    """What changed in a row between version ``rendered`` and now (its history records)."""
    change = OtherChange(model, pk, rendered, current)
    history = getattr(model, "history", None)
    if history is None:
        return change
    records = history.filter(**{model._meta.pk.attname: pk}).select_related("history_user")
    newest_first = ("-history_date", "-history_id")
    base = records.filter(version=rendered).order_by(*newest_first).first() if rendered else None
    if base is not None:
        later = records.filter(history_date__gt=base.history_date)  # a deletion included
    elif rendered == 0:  # opened as deleted: what happened since the deletion
        deleted = records.filter(history_type="-").order_by(*newest_first).first()
        later = records.filter(history_date__gt=deleted.history_date) if deleted else records
    else:
        later = records.filter(version__gt=rendered)
    later = later.order_by("history_date", "history_id")
    change.saves = [(_user(r), r.history_date) for r in later[:20]]
    if base is None:
        return change
    names = tracked_fields(model, history.model)
    change.base = model_to_dict(base, fields=names)
    now = model._default_manager.filter(pk=pk).values(*_attnames(model, names)).first()
    if now is None:
        return change
    for name in names:
        old = change.base.get(name)
        theirs = now[_attname(model, name)]
        if _comparable(old) != _comparable(theirs):
            label = str(model._meta.get_field(name).verbose_name)
            change.differences.append(
                (label, display_value(model, name, old), display_value(model, name, theirs))
            )
    return change


def tracked_fields(model: type[models.Model], history_model: type[models.Model]) -> list[str]:
    """The editable fields of a model that its history records."""
    recorded = {f.name for f in history_model._meta.concrete_fields}
    return [
        f.name for f in model._meta.concrete_fields
        if f.editable and f.name in recorded and f.name not in _UNTRACKED
    ]


def display_value(model: type[models.Model], name: str, value: Any) -> str:
    """A field's value as a curator reads it: choice labels, the related card's name."""
    model_field = model._meta.get_field(name)
    value = _comparable(value)
    if value in (None, ""):
        return "(empty)"
    if isinstance(model_field, models.ForeignKey):
        related = model_field.related_model._default_manager.filter(pk=value).first()
        text = str(related) if related is not None else f"#{value} (deleted)"
    elif model_field.choices:
        text = str(dict(model_field.flatchoices).get(value, value))
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    else:
        text = str(value)
    return f"“{Truncator(text).chars(120)}”"


def describe_save(model: type[models.Model], pk: Any, version: int) -> tuple[str, str]:
    """(who, when) of the save that made a version of a row."""
    history = getattr(model, "history", None)
    record = None
    if history is not None:
        record = (history.filter(**{model._meta.pk.attname: pk}, version=version)
                  .select_related("history_user").order_by("-history_date").first())
    if record is None:
        return "someone else", "after you opened the page"
    return _user(record), _when(record.history_date)


def _user(record: Any) -> str:
    return str(record.history_user) if record.history_user else "an import or command"


def _when(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%d.%m.%Y %H:%M:%S")


def _attname(model: type[models.Model], name: str) -> str:
    return str(model._meta.get_field(name).attname)


def _attnames(model: type[models.Model], names: Iterable[str]) -> list[str]:
    return [_attname(model, name) for name in names]


def _comparable(value: Any) -> Any:
    if isinstance(value, FieldFile):
        return value.name or ""
    return "" if value is None else value


# --- forms and the admin ----------------------------------------------------------------


class VersionCheckFormMixin:
    """Checks on save that the row is still at the version the form was rendered with."""

    instance: models.Model
    fields: dict[str, forms.Field]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[call-arg]
        if self.instance.pk is not None:
            self.fields[VERSION_FIELD].initial = rendered_version(self.instance)

    #: Set on the form of a request's last run when earlier runs met a conflict while writing.
    conflict_lines: list[str] | None = None

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
        if self.conflict_lines:
            raise ValidationError(self.conflict_lines, code="edit_conflict")
        rendered = cleaned.get(VERSION_FIELD)
        instance = self.instance
        if instance.pk is None or rendered is None:
            return cleaned  # adding a row; or a client that sends no version
        model = type(instance)
        current = stored_version(model, instance.pk, lock=True)
        if current != rendered:
            change = other_change(model, instance.pk, rendered, current)
            if change.current and change.base is not None and not change.differences:
                # A save that changed nothing of this row (of a card: only rows that belong
                # to it, which their own versions guard): no conflict.
                rendered = current
            else:
                # Never merged, not even rows this user left alone: checks across rows (four
                # distinct options, one correct) were made on what this user saw.
                raise ValidationError(change.lines(), code="edit_conflict")
        instance._expected_version = rendered  # type: ignore[attr-defined]
        return cleaned


def rendered_version(instance: models.Model) -> int:
    """The version an edit form for instance is rendered with.

    A revert form shows an old record (simple-history marks such an instance with
    ``_history``); its save replaces what is stored now, so it carries the stored version
    (0 for a deleted card: it may only be restored if nobody restored it meanwhile).
    """
    if getattr(instance, "_history", None) is not None:
        return stored_version(type(instance), instance.pk)
    return int(getattr(instance, "version", 0) or 0)


def with_version_field(form_class: type[forms.BaseForm]) -> type[forms.BaseForm]:
    """The form class with the hidden version field and the check."""
    if issubclass(form_class, VersionCheckFormMixin):
        return form_class
    attrs = {
        VERSION_FIELD: forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=0),
        "__module__": __name__,
    }
    return type(form_class.__name__, (VersionCheckFormMixin, form_class), attrs)


def _without_version(kwargs: dict[str, Any], fieldsets: Any) -> dict[str, Any]:
    fields = kwargs["fields"] if "fields" in kwargs else flatten_fieldsets(fieldsets)
    if fields is not None:
        fields = [name for name in fields if name != VERSION_FIELD]
    return {**kwargs, "fields": fields}


def _with_version(fieldsets: Any) -> list[Any]:
    fieldsets = [(name, dict(options)) for name, options in fieldsets]
    if VERSION_FIELD not in flatten_fieldsets(fieldsets) and fieldsets:
        _name, options = fieldsets[0]
        options["fields"] = [*options.get("fields", ()), VERSION_FIELD]
    return fieldsets


class VersionedAdminMixin:
    """For a ModelAdmin: change forms (and revert forms) carry and check the version."""

    def get_fieldsets(self, request: Any, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)  # type: ignore[misc]
        return _with_version(fieldsets) if obj is not None and _versioned(self) else fieldsets

    def get_form(self, request: Any, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if not _versioned(self):
            return super().get_form(request, obj, change, **kwargs)  # type: ignore[misc]
        if "fields" not in kwargs:
            kwargs = _without_version(kwargs, self.get_fieldsets(request, obj))
        elif kwargs["fields"] is not None:
            kwargs = _without_version(kwargs, None)
        form = super().get_form(request, obj, change, **kwargs)  # type: ignore[misc]
        if obj is None:
            return form
        form = with_version_field(form)
        lines = conflict_met_while_saving(request)
        if lines is not None:
            form = type(form.__name__, (form,), {"conflict_lines": lines, "__module__": __name__})
        return form

    def changeform_view(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        return _retrying(super().changeform_view, request, *args, **kwargs)  # type: ignore[misc]

    def history_form_view(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        return _retrying(super().history_form_view, request, *args, **kwargs)  # type: ignore[misc]

    def history_view(self, request: Any, object_id: str, extra_context: Any = None) -> Any:
        # simple_history filters the history by the id as given: one that is no id of this
        # model ("x", "²", 5,000 digits) would be a 500; it gets the admin's "does not exist".
        from django.contrib.admin.utils import unquote

        try:
            self.model._meta.pk.to_python(unquote(object_id))  # type: ignore[attr-defined]
        except ValidationError:
            return self._get_obj_does_not_exist_redirect(  # type: ignore[attr-defined]
                request, self.model._meta, object_id)  # type: ignore[attr-defined]
        return super().history_view(request, object_id, extra_context)  # type: ignore[misc]


class VersionedInlineMixin:
    """For an inline: each row of the formset carries and checks its own version."""

    def get_fieldsets(self, request: Any, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)  # type: ignore[misc]
        return _with_version(fieldsets) if _versioned(self) else fieldsets

    def get_formset(self, request: Any, obj: Any = None, **kwargs: Any) -> Any:
        if not _versioned(self):
            return super().get_formset(request, obj, **kwargs)  # type: ignore[misc]
        if "fields" not in kwargs or kwargs["fields"] is not None:
            kwargs = _without_version(kwargs, self.get_fieldsets(request, obj))
        formset = super().get_formset(request, obj, **kwargs)  # type: ignore[misc]
        formset.form = with_version_field(formset.form)
        return formset


def _versioned(admin_object: Any) -> bool:
    try:
        admin_object.model._meta.get_field("version")
    except FieldDoesNotExist:
        return False
    return True


def _retrying(view: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
    """Run an admin view again when its write lost a race that its form check did not see.

    The write that won has committed by then (the losing UPDATE waited for it), so the second
    run's form check usually finds the newer version and shows the conflict as a form error.
    When a conflict is met while writing again and again (a row the form never showed, changed
    by someone else at the wrong moment), the last run is told of it: the form answers with
    the conflict as its error, the curator's typing still in it, and nothing is saved.
    Each run is one save (:func:`one_save`): its own writes never conflict with it.
    """
    for _attempt in range(3):
        try:
            with one_save():
                return view(request, *args, **kwargs)
        except EditConflict as exc:
            request._kartothek_edit_conflict = exc
    with one_save():
        return view(request, *args, **kwargs)


def conflict_met_while_saving(request: Any) -> list[str] | None:
    """The words for a conflict that an earlier run of this request met while writing."""
    exc: EditConflict | None = getattr(request, "_kartothek_edit_conflict", None)
    if exc is None:
        return None
    model = type(exc.obj)
    change = other_change(model, exc.obj.pk, exc.expected, exc.current)
    label = model._meta.verbose_name
    lines = [f"While saving, this page's {label} “{Truncator(str(exc.obj)).chars(60)}” "
             f"had changed: nothing was saved."]
    return lines + change.lines()
