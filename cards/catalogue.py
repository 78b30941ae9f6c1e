"""A whole catalogue as a folder of spreadsheets: load it, and write it back out.

The folder holds one file per content type (``symbols/concepts.csv`` …) and, per target
language, one translation file per content type (``translations/en/concepts.csv`` …); see
``fixtures/`` for the starter catalogue. CSV, XLSX and JSON files are read (by extension).
Loading is all or nothing: any error and the database is left exactly as it was.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import tablib
from django.conf import settings
from django.db import transaction

from cards.brand_files import BrandOwnershipResource
from cards.brands import FILE_STEM as BRANDS_FILE
from cards.dismissal_files import export_dismissals, import_dismissals, translatable_files
from cards.file_kinds import FileKind, file_kind
from cards.files import check_size
from cards.formats import describe_errors, load_table
from cards.formulas import escape_cell
from cards.models import (
    AlfonsCard,
    ConceptCard,
    Content,
    SauschwerObject,
    SignCard,
    SignColour,
    SignSymbol,
    Slogan,
    SymbolTile,
)
from cards.option_findings import (
    DISMISSAL_FILE,
    dismissal_path,
    export_option_dismissals,
    import_option_dismissals,
)
from cards.pictures import read_stored_picture
from cards.resource_base import FileRejected, KeyedResource
from cards.resources import RESOURCES, SymbolTileResource
from cards.tables import FileProblem
from cards.translation_resources import (
    is_wide_slogan_translations,
    narrow_slogan_translations,
    translation_resource_for,
)

#: (file stem inside the folder, content model) in load order: referenced content first.
CATALOGUE_FILES: tuple[tuple[str, type[Content]], ...] = (
    ("symbols/concepts", ConceptCard),
    ("symbols/symbol_tiles", SymbolTile),
    ("sign/sign_symbols", SignSymbol),
    ("sign/sign_colours", SignColour),
    ("sign/sign_cards", SignCard),
    ("slogan/slogans", Slogan),
    ("slogan/alfons_cards", AlfonsCard),
    ("sauschwer/objects", SauschwerObject),
)
FORMATS = (".csv", ".xlsx", ".tsv", ".json")


class CatalogueError(Exception):
    """The catalogue could not be loaded; nothing was changed."""


@dataclass
class FileReport:
    path: str
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class CatalogueReport:
    files: list[FileReport] = field(default_factory=list)
    dry_run: bool = False

    @property
    def errors(self) -> list[str]:
        return [f"{f.path}: {e}" for f in self.files for e in f.errors]

    @property
    def changed(self) -> int:
        return sum(f.new + f.updated for f in self.files)

    def summary(self) -> str:
        lines = []
        for f in self.files:
            lines.append(
                f"{f.path}: {f.new} new, {f.updated} updated, {f.unchanged} unchanged"
                + (f", {len(f.errors)} error{'s' if len(f.errors) != 1 else ''}" if f.errors else "")
            )
        return "\n".join(lines)


class _Rollback(Exception):
    pass


def make_resource(resource_class: type, directory: Path, reason: str):  # type: ignore[no-untyped-def]
    """A resource for a command: pictures read from the folder, no HTML preview diffs."""
    if issubclass(resource_class, SymbolTileResource):
        return resource_class(catalogue_dir=directory, preview=False, change_reason=reason)
    if issubclass(resource_class, KeyedResource):
        return resource_class(preview=False, change_reason=reason)
    return resource_class()


def _relative(path: Path, directory: Path) -> str:
    return path.relative_to(directory).as_posix()


def _find(directory: Path, stem: str) -> Path | None:
    for suffix in FORMATS:
        path = directory / f"{stem}{suffix}"
        if path.is_file():
            return path
    return None


def read_dataset(path: Path) -> tablib.Dataset:
    """A catalogue or import file as a table (checked reading, formula escapes undone)."""
    try:
        check_size(path.stat().st_size)
        return load_table(path.read_bytes(), path.name)
    except FileProblem as exc:
        raise CatalogueError(f"{path.name}: {exc}") from None


def import_dataset(resource, dataset: tablib.Dataset, label: str) -> FileReport:  # type: ignore[no-untyped-def]
    """Import one table with a resource (inside the caller's transaction) and report."""
    report = FileReport(path=label)
    origin = None
    if getattr(resource, "content_model", None) is Slogan and is_wide_slogan_translations(
        dataset.headers
    ):
        try:
            dataset, origin = narrow_slogan_translations(dataset)
        except FileRejected as exc:
            report.errors.append(str(exc))
            return report
    result = resource.import_data(
        dataset, dry_run=False, use_transactions=True, rollback_on_validation_errors=True
    )
    totals = result.totals
    report.new = totals.get("new", 0)
    report.updated = totals.get("update", 0)
    report.unchanged = totals.get("skip", 0)
    report.errors.extend(describe_errors(result, origin))
    return report


def import_catalogue(directory: Path, *, dry_run: bool = False) -> CatalogueReport:
    """Load every file of a catalogue folder; all or nothing."""
    directory = Path(directory)
    if not directory.is_dir():
        raise CatalogueError(f"{directory} is not a folder.")
    report = CatalogueReport(dry_run=dry_run)
    try:
        with transaction.atomic():
            for stem, model in CATALOGUE_FILES:
                path = _find(directory, stem)
                if path is None:
                    continue
                resource = make_resource(RESOURCES[model], directory,
                                         f"import_catalogue {directory.name}/")
                report.files.append(
                    import_dataset(resource, read_dataset(path), _relative(path, directory))
                )
            _import_brands(directory, report)
            for language in settings.KARTOTHEK_LANGUAGES[1:]:
                for stem, model in CATALOGUE_FILES:
                    if not model.TRANSLATABLE_FIELDS:
                        continue
                    name = stem.split("/")[-1]
                    path = _find(directory / "translations" / language, name)
                    if path is None:
                        continue
                    report.files.append(
                        import_dataset(
                            translation_resource_for(model)(),
                            read_dataset(path),
                            _relative(path, directory),
                        )
                    )
                path = _find(directory / "translations" / language, "dismissals")
                if path is not None:
                    # after the translations: a dismissal names the texts it was made on
                    dismissed = FileReport(path=_relative(path, directory))
                    (dismissed.new, dismissed.updated, dismissed.unchanged,
                     dismissed.errors) = import_dismissals(
                        read_dataset(path), language, translatable_files(CATALOGUE_FILES))
                    report.files.append(dismissed)
            path = _find(directory, DISMISSAL_FILE)
            if path is not None:  # after the slogans and their English texts it was made on
                dismissed = FileReport(path=_relative(path, directory))
                (dismissed.new, dismissed.updated, dismissed.unchanged,
                 dismissed.errors) = import_option_dismissals(read_dataset(path))
                report.files.append(dismissed)
            if not report.files:
                raise CatalogueError(f"{directory} holds no catalogue files.")
            if report.errors or dry_run:
                raise _Rollback
    except _Rollback:
        pass
    return report


def _import_brands(directory: Path, report: CatalogueReport) -> None:
    """The brand owners: after the slogans (nothing refers to them by key)."""
    path = _find(directory, BRANDS_FILE)
    if path is not None:
        report.files.append(import_dataset(BrandOwnershipResource(), read_dataset(path),
                                           _relative(path, directory)))


def _write(dataset: tablib.Dataset, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(dataset.headers)
    for row in dataset:
        writer.writerow(["" if value is None else escape_cell(value) for value in row])
    path.write_text(buffer.getvalue(), encoding="utf-8")


def export_catalogue(directory: Path) -> list[Path]:
    """Write the whole catalogue (pictures included) as a folder import_catalogue reads."""
    directory = Path(directory)
    written: list[Path] = []
    for stem, model in CATALOGUE_FILES:
        path = directory / f"{stem}.csv"
        _write(RESOURCES[model]().export(), path)
        written.append(path)
        if model is SymbolTile:
            for tile in SymbolTile.objects.exclude(image=""):
                picture = directory / "symbols" / "pictures" / f"{tile.key}.png"
                picture.parent.mkdir(parents=True, exist_ok=True)
                # Checked against its sha256: a backup never carries a changed file onwards.
                picture.write_bytes(read_stored_picture(
                    tile.image.name, tile.image_sha256, label=f"symbol tile '{tile.key}'"))
                written.append(picture)
    brands = directory / f"{BRANDS_FILE}.csv"
    _write(BrandOwnershipResource().export(), brands)
    _write(export_option_dismissals(), dismissal_path(directory))
    written += [brands, dismissal_path(directory)]
    for language in settings.KARTOTHEK_LANGUAGES[1:]:
        for stem, model in CATALOGUE_FILES:
            if not model.TRANSLATABLE_FIELDS:
                continue
            resource = translation_resource_for(model)()
            rows = [r for r in resource.get_queryset() if r.language == language]
            path = directory / "translations" / language / f"{stem.split('/')[-1]}.csv"
            _write(resource.export(queryset=rows), path)
            written.append(path)
        path = directory / "translations" / language / "dismissals.csv"
        _write(export_dismissals(language, translatable_files(CATALOGUE_FILES)), path)
        written.append(path)
    return written


def import_file(
    path: Path, *, dry_run: bool = False, type_hint: str | None = None
) -> tuple[FileKind, FileReport]:
    """Import one file whose content type is read from its columns; all or nothing."""
    path = Path(path)
    if not path.is_file():
        raise CatalogueError(f"{path} is not a file.")
    dataset = read_dataset(path)
    try:
        if is_wide_slogan_translations(dataset.headers):
            kind = FileKind(Slogan, translations=True)
        else:
            kind = file_kind(dataset, path.name, type_hint=type_hint)
    except FileProblem as exc:
        raise CatalogueError(f"{path.name}: {exc}") from None
    resource = make_resource(kind.resource_class(), path.parent, f"import_content {path.name}")
    with transaction.atomic():
        report = import_dataset(resource, dataset, path.name)
        if report.errors or dry_run:
            transaction.set_rollback(True)
    return kind, report
