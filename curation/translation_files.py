"""The Translations list's export and import: the catalogue's translation files (one kind of
card per file: key, field, language, text, state).

A file per kind because a translation file names its card by key, and keys are unique only
within a kind; the export page offers the kinds to choose from, and the file names its kind
(a ``kind`` column, the sheet, the file name) so that the import takes it from the file. Export writes the
list as filtered, or the selected rows; import is the admin's safe import (preview, then
confirm; ``curation.safe_import``).

Review holds on import as in the editor (``cards.translation.reviewed_state``), and the way
Weblate's upload does it: "Add as approved translation" is offered only to who may review, a
translator's upload adds translations. So a file imported by someone without the reviewer's
permission (Translators) never approves: a row that says *approved* is imported as
*translated* (an approved text kept word for word stays approved), and an approved text the
file rewrites is *translated* again until a reviewer approves it; the preview and the
message after the import count these rows and name them. A Curator's file may approve.
Management commands (``import_catalogue``) have no user and import states as written."""

from __future__ import annotations

from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.utils.text import slugify
from import_export import fields

from cards.file_kinds import named_kind
from cards.import_diff import ReadableDiff
from cards.models import Content, Slogan, SloganOption, Translation, TranslationState
from cards.resource_base import FileRejected
from cards.resources import RESOURCES
from cards.tables import FileProblem
from cards.translation import APPROVE_PERMISSION
from cards.translation_resources import TranslationResource
from curation.curator_words import IMPORT_REASON

#: Rows a review note names at most (the count says how many there are).
NAMED_ROWS = 12


class TranslationDiff(ReadableDiff):
    """Old → new per cell, with the card's key and field named (read from the card: the
    library's diff reads only columns with an attribute, and leaves these two empty)."""

    def __init__(self, resource: Any, instance: Any, new: bool) -> None:
        super().__init__(resource, instance, new)
        self.left = self._shown(resource, self._values(resource, instance))

    def compare_with(self, resource: Any, instance: Any) -> None:
        super().compare_with(resource, instance)
        self.right = self._shown(resource, self._values(resource, instance))

    @staticmethod
    def _values(resource: Any, instance: Any) -> list[Any]:
        if instance is None:
            return ["" for _field in resource.get_import_fields()]
        return [resource.export_field(field, instance) for field in resource.get_import_fields()]


#: An XLSX sheet's name holds at most 31 characters (Excel's limit; tablib cuts the rest).
SHEET_TITLE_MAX = 31


def _sentence(label: Any) -> str:
    return f"{str(label)[:1].upper()}{str(label)[1:]}"


def sheet_title(model: type[Content], languages: list[str]) -> str:
    """"Sauschwer objects – EN texts": the kind (which the import reads back) and the
    languages, in a sheet name's 31 characters."""
    plural = _sentence(model._meta.verbose_name_plural)
    title = f"{plural} – {', '.join(lang.upper() for lang in languages)} texts"
    return title if languages and len(title) <= SHEET_TITLE_MAX else f"{plural} – texts"


def file_stem(model: type[Content], languages: list[str]) -> str:
    """"sauschwer-objects-translations-en": the export's file name, naming the kind."""
    return slugify(f"{model._meta.verbose_name_plural} translations {' '.join(languages)}")


class TranslationFileResource(TranslationResource):
    """One kind's translations, from whatever the Translations list passes (other kinds left
    out, so a filtered or mixed selection still makes a file that imports again).

    The file names its kind three times, so that an import finds it whatever the file went
    through: a ``kind`` column on every row, the sheet's name and the file's name. An import
    reads it back (``named_kind``): with the kind left to the file (``content_model`` None:
    :class:`FileNamedTranslationResource`) it is the file's; a kind chosen on the import page
    that the file contradicts refuses the file, with both named."""

    kind = fields.Field(column_name="kind", attribute=None)

    class Meta(TranslationResource.Meta):
        fields = (*TranslationResource.Meta.fields, "kind")

    def __init__(self, *, change_reason: str = IMPORT_REASON, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.change_reason = change_reason  # shown in each translation's history
        # (row number, "key · field", what review made of the row's state), per kind of note
        self.review: dict[str, list[tuple[int, str]]] = {"not_approved": [], "reopened": []}

    def get_diff_class(self) -> type:
        return TranslationDiff

    def import_instance(self, instance: Translation, row: dict, **kwargs: Any) -> None:
        stored = (instance.text, instance.state) if instance.pk else None
        super().import_instance(instance, row, **kwargs)
        user = kwargs.get("user")
        if user is None or user.has_perm(APPROVE_PERMISSION):
            return  # a command (the catalogue's states as written) or a reviewer's file
        where = (int(kwargs.get("row_number") or 0) + 1,
                 f"{str(row.get('key') or '').strip()} · {str(row.get('field') or '').strip()}")
        approved = TranslationState.APPROVED
        if stored is not None and stored[1] == approved:
            if stored[0].strip() == (instance.text or "").strip():
                instance.state = approved  # the text as reviewed: a file does not undo a review
                return
            self.review["reopened"].append(where)  # as in the editor: translated again
        elif instance.state == approved:
            self.review["not_approved"].append(where)
        if instance.state == approved:
            instance.state = TranslationState.TRANSLATED

    def before_save_instance(self, instance: Any, row: Any, **kwargs: Any) -> None:
        super().before_save_instance(instance, row, **kwargs)
        instance._change_reason = self.change_reason

    def after_import(self, dataset: Any, result: Any, **kwargs: Any) -> None:
        super().after_import(dataset, result, **kwargs)
        result.kartothek_review = {kind: list(rows) for kind, rows in self.review.items()}

    def import_data(self, dataset: Any, *args: Any, **kwargs: Any) -> Any:
        """A file of another kind than the one chosen, or naming none, is refused before any
        row is read (each row would only fail for the same reason)."""
        try:
            self._take_kind(dataset, str(kwargs.get("file_name") or ""))
        except FileRejected as exc:
            result = self.get_result_class()()
            result.diff_headers = self.get_diff_headers()
            result.total_rows = len(dataset)
            self.handle_import_error(result, exc, bool(kwargs.get("raise_errors")))
            return result
        return super().import_data(dataset, *args, **kwargs)

    def _take_kind(self, dataset: Any, file_name: str) -> None:
        try:
            named, where = named_kind(dataset, file_name)
        except FileProblem as exc:
            raise FileRejected(f"The file {exc}.") from None
        chosen = self.content_model
        if chosen is None and named is None:
            raise FileRejected(
                "The file does not say which kind of card it translates (no kind column, and "
                "neither its sheet nor its file name names a kind): choose the kind above.")
        if chosen is not None and named is not None and named is not chosen:
            raise FileRejected(
                f"The file holds translations of {named._meta.verbose_name_plural} ({where} "
                f"says so), but “{self.get_display_name()}” was chosen: choose "
                f"“{_sentence(named._meta.verbose_name)} translations”, or let the file say.")
        self.content_model = chosen or named  # type: ignore[misc]

    def dehydrate_kind(self, row: Translation) -> str:
        return _sentence(self.content_model._meta.verbose_name)

    def export(self, queryset: Any = None, **kwargs: Any):  # type: ignore[no-untyped-def]
        if queryset is not None and hasattr(queryset, "filter"):
            models = [self.content_model] + ([SloganOption] if self.content_model is Slogan
                                              else [])
            types = ContentType.objects.get_for_models(*models).values()
            queryset = queryset.filter(content_type__in=types).prefetch_related("content_object")
        dataset = super().export(queryset, **kwargs)
        headers = list(dataset.headers or [])
        languages = sorted({str(lang) for lang in dataset.get_col(headers.index("language"))}) if (
            dataset.height and "language" in headers) else []
        dataset.title = sheet_title(self.content_model, languages)
        dataset.kartothek_stem = file_stem(self.content_model, languages)
        return dataset


class FileNamedTranslationResource(TranslationFileResource):
    """The import page's first choice: the kind the file names (kind column, sheet, file name)."""

    content_model = None  # type: ignore[assignment]

    class Meta(TranslationFileResource.Meta):
        name = "The kind the file names (kind column, sheet or file name)"


def translation_file_resources() -> list[type[TranslationFileResource]]:
    """A resource per kind of card that has translations, named for the export page."""
    found = []
    for model in RESOURCES:
        if not getattr(model, "TRANSLATABLE_FIELDS", ()):
            continue
        name = f"{_sentence(model._meta.verbose_name)} translations"
        meta = type("Meta", (TranslationFileResource.Meta,), {"name": name})
        found.append(type(f"{model.__name__}TranslationFileResource", (TranslationFileResource,),
                          {"content_model": model, "Meta": meta}))
    return found


def review_notes(result: Any) -> list[str]:
    """What review made of an import's states, in words (empty when it changed nothing)."""
    review = getattr(result, "kartothek_review", None) or {}
    if result.has_errors() or result.has_validation_errors():
        return []  # nothing is imported: the errors are what to read

    def named(rows: list[tuple[int, str]]) -> str:
        shown = "; ".join(f"row {number} ({what})" for number, what in rows[:NAMED_ROWS])
        more = len(rows) - NAMED_ROWS
        return shown + (f" and {more} more" if more > 0 else "")

    notes = []
    rows = review.get("not_approved", [])
    if rows:
        notes.append(
            f"{len(rows)} row{'s' if len(rows) != 1 else ''} marked approved "
            f"{'are' if len(rows) != 1 else 'is'} imported as translated: approving needs the "
            f"reviewer's permission (Curators). {named(rows)}.")
    rows = review.get("reopened", [])
    if rows:
        notes.append(
            f"{len(rows)} approved text{'s' if len(rows) != 1 else ''} "
            f"{'are' if len(rows) != 1 else 'is'} changed by the file and "
            f"{'become' if len(rows) != 1 else 'becomes'} translated until a reviewer approves "
            f"{'them' if len(rows) != 1 else 'it'}: {named(rows)}.")
    return notes
