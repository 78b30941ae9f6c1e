"""The admin's spreadsheet import, made safe once for every list that imports.

``SafeImportMixin`` goes on a model admin before django-import-export's classes. It gives:

- the project's formats (CSV, XLSX, TSV, JSON read through ``cards.files``: sizes, damage,
  encodings, formulas), named as people write them;
- a file that is not what the chosen format says gets "This is an XLSX workbook, not CSV"
  instead of a reader's exception; a file over the upload limit is dropped while it streams
  in and the form says why (``cards.uploads``);
- a preview first (every row: new, changed old → new, unchanged, errors with the row and the
  card named); nothing is written until *Confirm import*, and any error means nothing is
  written at all (validation errors included);
- the preview's file kept only while it can be confirmed, in a folder of its own, and a
  confirmation of a preview that is gone asks for the file again;
- the file's name in each imported row's history, and the counts in the preview's words;
- the limits a file must keep (size, rows, columns, cells) named on the import page.

Every admin that imports uses it: tests/test_import_admins.py walks the registered admins.
"""

from __future__ import annotations

import zipfile
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST
from import_export.results import RowResult

from cards.formats import FORMATS, preview_context, wrong_format_message
from cards.tables import FileProblem, ImportLimits, count_text, size_text
from cards.uploads import PreviewExpired, PreviewStorage, upload_refusal
from curation.curator_words import NamedFormatsMixin, import_reason


def limits_text() -> str:
    """The import limits in a curator's words, from the settings in force."""
    limits = ImportLimits.from_settings()
    return (f"A file of at most {size_text(limits.max_bytes, 'g')}, "
            f"{count_text(limits.max_rows)} rows, {count_text(limits.max_columns)} columns "
            f"and {count_text(limits.max_cells)} cells; a larger one is refused unread.")


class SafeImportMixin(NamedFormatsMixin):
    """Preview, then confirm; limits, clear errors, nothing written from a bad file."""

    model: Any
    formats = FORMATS
    import_template_name = "admin/cards/import.html"
    tmp_storage_class = PreviewStorage

    # --- a file that cannot be read: say what it is ------------------------------------

    def add_data_read_fail_error_to_form(self, form: Any, e: Exception) -> None:
        wrong = self._wrong_format(form)
        if wrong:  # what the file is says more than why the chosen reader failed
            form.add_error("import_file", wrong)
        elif isinstance(e, FileProblem):
            form.add_error("import_file", str(e))
        else:
            super().add_data_read_fail_error_to_form(form, e)  # type: ignore[misc]

    def _wrong_format(self, form: Any) -> str | None:
        upload = form.cleaned_data.get("import_file")
        try:
            chosen = self.get_import_formats()[int(form.cleaned_data["format"])]  # type: ignore[attr-defined]
            # the file object, not its bytes: only its head is read (a hostile file is big)
            return wrong_format_message(upload, chosen.EXTENSION)
        except (AttributeError, KeyError, IndexError, TypeError, ValueError, OSError,
                zipfile.BadZipFile):
            return None

    # --- the preview's file --------------------------------------------------------------

    def write_to_tmp_storage(self, import_file: Any, input_format: Any) -> PreviewStorage:
        # Chunk by chunk to the preview folder (the library joins the chunks in memory).
        storage = PreviewStorage(read_mode="rb")
        storage.save_chunks(import_file.chunks())
        import_file.kartothek_preview = storage
        return storage

    def import_action(self, request: HttpRequest, **kwargs: Any):  # type: ignore[no-untyped-def]
        confirmable = False
        context: dict[str, Any] = {}
        try:
            response = super().import_action(request, **kwargs)  # type: ignore[misc]
            context = getattr(response, "context_data", None) or {}
            confirmable = "confirm_form" in context
        finally:
            # Only a preview that can be confirmed keeps its file.
            # request._files: the files as parsed (never parse again here, after a failure)
            files = getattr(request, "_files", None)
            upload = files.get("import_file") if files is not None else None
            storage = getattr(upload, "kartothek_preview", None)
            if storage is not None and not confirmable:
                storage.remove()
        if getattr(response, "context_data", None) is not None:
            context["import_limits"] = limits_text()  # named before a file is chosen
        form = context.get("form")
        refusal = upload_refusal(request)
        if refusal and form is not None:
            form.errors["import_file"] = form.error_class([refusal])
        result = context.get("result")
        if result is not None:
            context.update(preview_context(result))
            context.update(self.preview_notes(request, result))
        if "fields_list" in context and not context["fields_list"]:
            # After a refused file the library lists no columns: the file needs them still.
            context["fields_list"] = [
                (rc().get_display_name(), [f.column_name for f in rc().get_user_visible_fields()])
                for rc in self.get_import_resource_classes(request)  # type: ignore[attr-defined]
            ]
        return response

    def preview_notes(self, request: HttpRequest, result: Any) -> dict[str, Any]:
        """More for the preview page (``import_notes``: lines shown above the rows)."""
        return {}

    @method_decorator(require_POST)
    def process_import(self, request: HttpRequest, **kwargs: Any):  # type: ignore[no-untyped-def]
        if not self.has_import_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied
        try:
            storage = PreviewStorage(name=request.POST.get("import_file_name", ""), read_mode="rb")
        except PreviewExpired:
            storage = None
        if storage is None or not storage.exists():
            self.message_user(  # type: ignore[attr-defined]
                request,
                "This preview is no longer there (it was imported already, or left "
                "unconfirmed for too long); upload the file again.",
                messages.ERROR,
            )
            opts = self.model._meta
            return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_import"))
        try:
            return super().process_import(request, **kwargs)  # type: ignore[misc]
        finally:
            storage.remove()

    def get_import_data_kwargs(self, **kwargs: Any) -> dict[str, Any]:
        # One bad row and nothing is imported, validation errors included.
        return {**super().get_import_data_kwargs(**kwargs),  # type: ignore[misc]
                "rollback_on_validation_errors": True}

    # --- the file in the history, the counts in the preview's words -------------------

    def get_import_resource_kwargs(self, request: HttpRequest, **kwargs: Any) -> dict[str, Any]:
        found = super().get_import_resource_kwargs(request, **kwargs)  # type: ignore[misc]
        form = kwargs.get("form")
        data = getattr(form, "cleaned_data", None) or {}
        if data.get("original_file_name"):
            found["change_reason"] = import_reason(data["original_file_name"])
        return found

    def add_success_message(self, result: Any, request: HttpRequest) -> None:
        totals = result.totals
        plural = self.model._meta.verbose_name_plural
        parts = [f"{totals[RowResult.IMPORT_TYPE_NEW]} new",
                 f"{totals[RowResult.IMPORT_TYPE_UPDATE]} updated"]
        if totals[RowResult.IMPORT_TYPE_DELETE]:
            parts.append(f"{totals[RowResult.IMPORT_TYPE_DELETE]} deleted")
        parts.append(f"{totals[RowResult.IMPORT_TYPE_SKIP]} unchanged")
        messages.success(request, f"Import finished ({plural}): " + ", ".join(parts) + ".")
