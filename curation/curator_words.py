"""What a curator reads around a save in the admin: one message after a revert or a restore,
a saved card's key, the delete page's note that a card can be restored. ``CuratorWordsMixin``
goes on the content admins (before the library classes); the import's words (the file's name
in the history, "unchanged" not "skipped") are ``curation.safe_import.SafeImportMixin``'s.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils import formats, timezone

IMPORT_REASON = "spreadsheet import"


def import_reason(file_name: str | None) -> str:
    """The history reason of an admin import: it names the file ("spreadsheet import of
    objekte.xlsx"), so a curator can tell one import from another."""
    name = (file_name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    return f"{IMPORT_REASON} of {name}" if name else IMPORT_REASON


def is_revert(request: HttpRequest) -> bool:
    """Whether the request is a revert from a card's history (simple_history's form view)."""
    match = getattr(request, "resolver_match", None)
    return bool(match is not None and match.url_name and match.url_name.endswith("_simple_history"))


def local_date(value: Any) -> str:
    """A date and time in the active language's format (German: 01.12.2026 23:00)."""
    return formats.date_format(timezone.localtime(value), "SHORT_DATETIME_FORMAT")


@cache
def _named_formats(form_class: type) -> type:
    """``form_class`` with its formats named as people write them (CSV, XLSX, not csv) and the
    export's fields named as the file's columns (weight_g, not "Weight G")."""

    def _init_formats(self: Any, formats: Any) -> None:
        form_class._init_formats(self, formats)
        field = self.fields["format"]
        field.choices = [(value, label if value == "" else str(label).upper())
                         for value, label in field.choices]

    def _get_field_label(self: Any, resource: Any, field_name: str) -> str:
        # the column as the file has it ("weight_g"), not "Weight G"
        field = resource.fields.get(field_name)
        return str(field.column_name) if field is not None and field.column_name else field_name

    return type(form_class.__name__, (form_class,), {"_init_formats": _init_formats,
                                                     "_get_field_label": _get_field_label})


class NamedFormatsMixin:
    """Import and export pages name formats as people write them, columns as the file does."""

    def get_import_form_class(self, request: HttpRequest) -> type:
        return _named_formats(super().get_import_form_class(request))  # type: ignore[misc]

    def get_export_form_class(self) -> type:
        return _named_formats(super().get_export_form_class())  # type: ignore[misc]


class CuratorWordsMixin(NamedFormatsMixin):
    """For a content admin: the messages and history reasons a curator reads."""

    model: Any

    def message_user(self, *args: Any, **kwargs: Any) -> None:  # provided by ModelAdmin
        super().message_user(*args, **kwargs)  # type: ignore[misc]

    # --- a saved card's key: what it is, for this kind of card --------------------------

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False,
                 **kwargs: Any):  # type: ignore[no-untyped-def]
        form = super().get_form(request, obj, change, **kwargs)  # type: ignore[misc]
        if obj is not None:
            # A saved card's key is read-only, shown with the model's help text ("the slug of
            # the German text"), wrong for a slogan card's "karte-154": the admin takes a
            # read-only field's help from the form's Meta.help_texts first.
            if getattr(self.model, "TEXT_FIELD", None):
                help_text = ("Made from the German text when the card was created; imports "
                             "match rows on it, so it stays as it is.")
            else:
                help_text = ("The card's stable identifier; imports match rows on it, so it "
                             "stays as it is.")
            form._meta.help_texts = {**(form._meta.help_texts or {}), "key": help_text}
        return form

    # --- deleting says it can be undone ------------------------------------------------

    def delete_view(self, request: HttpRequest, object_id: str, extra_context: Any = None):  # type: ignore[no-untyped-def]
        extra = {"restorable_url": reverse("admin:cards_deleted"), **(extra_context or {})}
        return super().delete_view(request, object_id, extra)  # type: ignore[misc]

    # --- revert and restore: one accurate message ------------------------------------

    def response_change(self, request: HttpRequest, obj: Any):  # type: ignore[no-untyped-def]
        if not is_revert(request):
            return super().response_change(request, obj)  # type: ignore[misc]
        record = getattr(request, "_kartothek_reverted_to", None)
        restored = getattr(request, "_kartothek_restored", None)
        what = f"{obj._meta.verbose_name} “{obj}”"
        if restored is not None:
            text = f"Restored the deleted {what}"
            if record is not None:
                text += f" as version {record.version} of {local_date(record.history_date)}"
            text += f", with {restored} related row{'s' if restored != 1 else ''}."
        elif record is not None:
            text = (f"Reverted {what} to version {record.version} of "
                    f"{local_date(record.history_date)}.")
        else:
            text = f"Reverted {what}."
        self.message_user(request, text, messages.SUCCESS)
        opts = obj._meta
        return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change",
                                            args=[obj.pk]))
