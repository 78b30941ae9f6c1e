"""Which content a file holds (:func:`file_kind`, :func:`content_type_of`).

Each content type's file has its own set of columns (the columns of its resource in
``cards.resources``). A file is of the type whose *required* columns it all has and which
has no column that type does not know; a few columns may be left out (a symbol tile's
``picture``, ``image_source``, ``image_licence``; a slogan's ``keep_german`` and
``source``; a translation's ``state``). The required sets differ from type to type, so
the header names decide alone and a misleading file name cannot change the type.

Translation files all have the same columns (``key, field, language, text[, state]``), so
their content type must be named, in this order of precedence:

1. the ``type_hint`` argument (a type name such as ``"concepts"``, or the model class);
2. the ``kind`` column (the admin's export writes the kind on every row: "Sauschwer object");
3. for a workbook, the sheet name (``sauschwer_objects``, "Sauschwer objects – EN texts");
4. the file name's stem (``concepts.csv``, ``concepts_en.csv``, ``en-concepts.xlsx``,
   ``ConceptCard-2025-06-01.csv`` as the admin names its exports).

A name matches when it is one of the type's names (see :data:`TYPE_NAMES`: the catalogue
file names such as ``concepts``, ``symbol_tiles``, ``sign_colours``, ``slogans``,
``alfons_cards``, ``objects``, and forms such as ``sauschwer_objects``, ``concept_card``,
``ConceptCard``), compared without case with spaces, hyphens and dots read as ``_``; or
when its first or last words are (``concepts_en``). For a content file, an explicit
``type_hint`` must fit the columns; sheet and file names are only used to explain missing
or unknown columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tablib

from cards.columns import (
    COLUMNS,
    TRANSLATION_COLUMNS,
    TYPE_LABELS,
    TYPE_NAMES,
    normalise_type_name,
    type_from_name,
)
from cards.models import (
    BrandOwnership,
    Content,
)
from cards.tables import FileProblem


@dataclass(frozen=True)
class FileKind:
    """What a file holds: rows of ``model``, or (``translations``) translations of its texts."""

    model: type[Content]
    translations: bool = False

    @property
    def label(self) -> str:
        name = self.model._meta.verbose_name_plural
        return f"translations of {name}" if self.translations else str(name)

    def resource_class(self) -> type:
        """The django-import-export resource that imports this file."""
        from cards.resources import RESOURCES
        from cards.translation_resources import translation_resource_for

        if self.model is BrandOwnership:
            from cards.brand_files import BrandOwnershipResource

            return BrandOwnershipResource
        return translation_resource_for(self.model) if self.translations else RESOURCES[self.model]


def _translatable_labels() -> list[str]:
    return [label for model, label in TYPE_LABELS.items() if model.TRANSLATABLE_FIELDS]


def _hint_model(type_hint: str | type[Content]) -> type[Content]:
    if isinstance(type_hint, type):
        if type_hint in COLUMNS:
            return type_hint
        raise FileProblem(f"{type_hint.__name__} is not a content type that files hold")
    model = TYPE_NAMES.get(normalise_type_name(type_hint))
    if model is None:
        raise FileProblem(
            f"unknown content type “{type_hint}”; use one of: {', '.join(TYPE_LABELS.values())}"
        )
    return model


def _names(columns: list[str] | tuple[str, ...] | set[str]) -> str:
    return ", ".join(columns)


def _misfit(
    headers: list[str], required: tuple[str, ...], optional: tuple[str, ...]
) -> tuple[list[str], list[str]]:
    """(missing required columns, unknown columns) of a header against a column set."""
    allowed = set(required) | set(optional)
    missing = [c for c in required if c not in headers]
    unknown = [h for h in headers if h not in allowed]
    return missing, unknown


def _misfit_message(
    what: str, headers: list[str], required: tuple[str, ...], optional: tuple[str, ...]
) -> str:
    missing, unknown = _misfit(headers, required, optional)
    allowed = set(required) | set(optional)
    parts = []
    if missing:
        parts.append(f"missing {'column' if len(missing) == 1 else 'columns'}: {_names(missing)}")
    if unknown:
        shown = []
        for name in unknown:
            near = normalise_type_name(name)
            shown.append(f"{name} (write it as {near})" if near in allowed and near != name else name)
        parts.append(f"unknown {'column' if len(unknown) == 1 else 'columns'}: {_names(shown)}")
    optional_note = f"; optional: {_names(optional)}" if optional else ""
    return (
        f"{what}: " + "; ".join(parts)
        + f" (the columns are: {_names(required)}{optional_note})"
    )


def kind_column(dataset: tablib.Dataset) -> type[Content] | None:
    """The kind of card the ``kind`` column names (``None`` without one, or all empty); a
    value that is no kind, or two kinds in one file, is a :class:`FileProblem`."""
    headers = [str(h).strip() for h in (dataset.headers or [])]
    if "kind" not in headers:
        return None
    found: dict[type[Content], int] = {}
    for number, value in enumerate(dataset.get_col(headers.index("kind")), start=2):
        name = str(value or "").strip()
        if not name:
            continue
        model = type_from_name(name)
        if model is None:
            raise FileProblem(f"row {number}: the kind “{name}” is not a kind of card; use one "
                              f"of: {', '.join(_translatable_labels())}")
        found.setdefault(model, number)
    if len(found) > 1:
        rows = ", ".join(f"{m._meta.verbose_name_plural} (row {n})" for m, n in found.items())
        raise FileProblem(f"the kind column names several kinds: {rows}; a file holds one kind")
    return next(iter(found), None)


def named_kind(dataset: tablib.Dataset, filename: str) -> tuple[type[Content] | None, str]:
    """The kind of card a file names itself, and where: its ``kind`` column, else a
    workbook's sheet name, else the file name (``(None, "")`` when none names one)."""
    model = kind_column(dataset)
    if model is not None:
        return model, "the kind column"
    sheet = getattr(dataset, "title", None) if Path(filename).suffix.lower() == ".xlsx" else None
    sources = ((f"the sheet name “{sheet}”", sheet), (f"the file name “{filename}”", Path(filename).stem))
    for source, name in sources:
        model = type_from_name(name) if name else None
        if model is not None:
            return model, source
    return None, ""


def file_kind(
    dataset: tablib.Dataset, filename: str, *, type_hint: str | type[Content] | None = None
) -> FileKind:
    """What ``dataset`` (read from ``filename``) holds; see the module docstring."""
    headers = [str(h).strip() for h in (dataset.headers or [])]
    if not headers:
        raise FileProblem("the file has no header row with column names")
    hinted = _hint_model(type_hint) if type_hint is not None else None
    named, named_by = named_kind(dataset, filename)

    t_required, t_optional = TRANSLATION_COLUMNS
    if not any(_misfit(headers, t_required, t_optional)):
        model = hinted or named
        if model is None:
            raise FileProblem(
                "this is a translation file, but it does not say which content type it "
                "translates: name the file (or the sheet) after the type, like concepts.csv, "
                f"or choose the type (one of: {', '.join(_translatable_labels())})"
            )
        if not model.TRANSLATABLE_FIELDS:
            raise FileProblem(f"{model._meta.verbose_name_plural} have no texts to translate")
        return FileKind(model, translations=True)

    if hinted is not None:
        required, optional = COLUMNS[hinted]
        if any(_misfit(headers, required, optional)):
            raise FileProblem(
                _misfit_message(
                    f"the columns do not fit {hinted._meta.verbose_name_plural}",
                    headers,
                    required,
                    optional,
                )
            )
        return FileKind(hinted)

    fits = [m for m, (req, opt) in COLUMNS.items() if not any(_misfit(headers, req, opt))]
    if len(fits) == 1:
        return FileKind(fits[0])
    if len(fits) > 1:  # cannot happen with the column sets above; kept for safety
        raise FileProblem(
            "the columns fit several content types ("
            + ", ".join(TYPE_LABELS[m] for m in fits)
            + "); name the type in the file name, like concepts.csv"
        )
    candidates: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
        str(m._meta.verbose_name_plural): columns for m, columns in COLUMNS.items()
    }
    candidates["translations"] = TRANSLATION_COLUMNS

    def distance(columns: tuple[tuple[str, ...], tuple[str, ...]]) -> tuple[int, int]:
        missing, unknown = _misfit(headers, *columns)
        return (len(missing) + len(unknown), len(missing))

    closest = min(candidates, key=lambda what: distance(candidates[what]))
    if named is not None and distance(COLUMNS[named])[0] <= distance(candidates[closest])[0]:
        raise FileProblem(
            _misfit_message(
                f"the columns do not fit {named._meta.verbose_name_plural}, "
                f"which {named_by} suggests",
                headers,
                *COLUMNS[named],
            )
        )
    partial = sorted(
        (
            (missing, m)
            for m, (req, opt) in COLUMNS.items()
            for missing, unknown in [_misfit(headers, req, opt)]
            if not unknown
        ),
        key=lambda pair: len(pair[0]),
    )
    if partial:
        # Every column is known, but some are missing: say what each fitting type still needs.
        needs = "; ".join(
            f"{m._meta.verbose_name_plural} also need {_names(missing)}" for missing, m in partial[:3]
        )
        raise FileProblem(
            "columns are missing: a file must have all the columns of its content type; " + needs
        )
    raise FileProblem(
        _misfit_message(
            f"the columns do not match any content type; the closest are those of {closest}",
            headers,
            *candidates[closest],
        )
    )


def content_type_of(
    dataset: tablib.Dataset, filename: str, *, type_hint: str | type[Content] | None = None
) -> type[Content]:
    """The content type of the rows in ``dataset``, or of the texts a translation file
    translates; :func:`file_kind` also says which of the two it is."""
    return file_kind(dataset, filename, type_hint=type_hint).model
