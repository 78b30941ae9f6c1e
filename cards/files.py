"""Uploaded and imported files: turn the bytes into a table, and tell which content it holds.

Reading (:func:`read_upload`)
    The format comes from the file name's extension: ``.csv``, ``.tsv``, ``.xlsx`` or ``.json``.
    Any problem raises :class:`FileProblem` with a message for the curator (never a traceback):
    too large (checked before anything is parsed), empty, not a text file, an unknown text
    encoding, a damaged workbook, rows that do not fit the header, header names that are
    missing or appear twice, JSON that is not a list of objects.

    - Text files are read as UTF-8 (a byte order mark is fine). When that fails they are read
      as Windows-1252 (the superset of Latin-1 that Excel on Windows writes), but only when the
      result looks like text (no control characters; the non-ASCII characters are mostly
      letters such as ä ö ü ß or typographic signs such as „ “ – €). A file that starts with a
      UTF-16 byte order mark (Excel's "Unicode text") is read as UTF-16.
    - CSV: the delimiter is ``,``; when the header row then is a single column whose name
      contains ``;`` or a tab, the file is read again with that delimiter (Excel in German
      writes ``;``). ``.tsv`` files are tab-separated. Every row must have as many cells as the
      header (blank rows are skipped). Row numbers in messages count the header row as row 1,
      as a spreadsheet program shows them.
    - XLSX: the workbook's active sheet is read (``dataset.title`` is the sheet name).
    - JSON: a list of objects that all have the same keys; values are text, numbers,
      true/false or null.
    - Header names are stripped of surrounding spaces; a name that appears twice is an error;
      a column without a name is dropped when it is empty and an error when it holds values.
    - Cell values are returned as read (CSV: text; XLSX and JSON: their own types).

    The returned ``tablib.Dataset`` carries what was decided: ``kartothek_encoding``
    (``"UTF-8"``, ``"UTF-8 with BOM"``, ``"UTF-16"``, ``"Windows-1252"``; ``None`` for XLSX),
    ``kartothek_delimiter`` (CSV/TSV only, else ``None``) and ``kartothek_notes``, a list of
    sentences for the curator worth showing (e.g. that the file was read as Windows-1252).

Which content (:func:`file_kind`, :func:`content_type_of`)
    Each content type's file has its own set of columns (the columns of its resource in
    ``cards.resources``). A file is of the type whose *required* columns it all has and which
    has no column that type does not know; a few columns may be left out (a symbol tile's
    ``picture``, ``image_source``, ``image_licence``; a slogan's ``keep_german`` and
    ``source``; a translation's ``state``). The required sets differ from type to type, so
    the header names decide alone and a misleading file name cannot change the type.

    Translation files all have the same columns (``key, field, language, text[, state]``), so
    their content type must be named, in this order of precedence:

    1. the ``type_hint`` argument (a type name such as ``"concepts"``, or the model class);
    2. for a workbook, the sheet name (``sauschwer_objects``);
    3. the file name's stem (``concepts.csv``, ``concepts_en.csv``, ``en-concepts.xlsx``,
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

import codecs
import csv
import io
import json
import re
import unicodedata
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tablib

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

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
FORMATS = {".csv": "csv", ".tsv": "tsv", ".xlsx": "xlsx", ".json": "json"}

_MB = 1024 * 1024


class FileProblem(ValueError):
    """A file that cannot be read or placed; the message is meant for the curator."""


# --- reading ------------------------------------------------------------------------------


def read_upload(data: bytes, filename: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tablib.Dataset:
    """The table in an uploaded or imported file (see the module docstring)."""
    check_size(len(data), max_bytes)
    fmt = _format_of(filename)
    if not data:
        raise FileProblem("the file is empty")
    if fmt == "xlsx":
        return _read_xlsx(data)
    text, encoding = _decode(data)
    if not text.strip():
        raise FileProblem("the file is empty")
    notes = []
    if encoding == "Windows-1252":
        notes.append("The file is not UTF-8; it was read as Windows-1252 (Latin-1).")
    elif encoding == "UTF-16":
        notes.append("The file was read as UTF-16 text.")
    if fmt == "json":
        dataset = _read_json(text)
        delimiter = None
    else:
        dataset, delimiter = _read_delimited(text, "\t" if fmt == "tsv" else ",")
        if delimiter != ("\t" if fmt == "tsv" else ","):
            notes.append(f"The columns are separated by {_DELIMITER_NAMES[delimiter]}.")
    return _annotate(dataset, encoding=encoding, delimiter=delimiter, notes=notes)


def read_path(path: Path | str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tablib.Dataset:
    """:func:`read_upload` for a file on disk; its size is checked before it is read."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError:
        raise FileProblem(f"the file {path.name} cannot be opened") from None
    check_size(size, max_bytes)
    return read_upload(path.read_bytes(), path.name, max_bytes=max_bytes)


def check_size(size: int, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Refuse a file larger than ``max_bytes`` (use it on an upload's size before reading it)."""
    if size > max_bytes:
        raise FileProblem(f"the file is {_size(size, '.1f')}; at most {_size(max_bytes, 'g')}")


def _size(n: int, spec: str) -> str:
    if n >= _MB:
        return f"{n / _MB:{spec}} MB"
    return f"{n / 1024:{spec}} KB"


def _format_of(filename: str) -> str:
    suffix = Path(filename).suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix]
    if suffix == ".xls":
        raise FileProblem(
            "old Excel files (.xls) cannot be read; save the workbook as .xlsx (or CSV UTF-8)"
        )
    shown = f"“{suffix}” files" if suffix else "files without an extension"
    raise FileProblem(f"{shown} cannot be read; use .csv, .tsv, .xlsx or .json")


def _annotate(
    dataset: tablib.Dataset, *, encoding: str | None, delimiter: str | None, notes: list[str]
) -> tablib.Dataset:
    dataset.kartothek_encoding = encoding
    dataset.kartothek_delimiter = delimiter
    dataset.kartothek_notes = notes
    return dataset


# --- text encodings -------------------------------------------------------------------------

# Bytes below 0x20 that occur in text files: tab, line feed, form feed, carriage return.
_TEXT_CONTROLS = {0x09, 0x0A, 0x0C, 0x0D}
# Non-ASCII characters other than letters that a Windows-1252 text plausibly contains.
_TYPOGRAPHIC = set("€‚„…–—‘’“”•°§«»×÷·´¨¸ ²³¹µ½¼¾±©®™¢£¥¡¿¤¦¬¯ªº†‡‰‹›ˆ˜")


def _looks_binary(data: bytes) -> bool:
    """NUL bytes, or more control bytes than a text file has (a stray one is tolerated)."""
    if b"\x00" in data:
        return True
    sample = data[: 64 * 1024]
    controls = sum(1 for b in sample if (b < 0x20 and b not in _TEXT_CONTROLS) or b == 0x7F)
    return controls > max(2, len(sample) // 100)


def _plausible_cp1252(text: str) -> bool:
    visible = [ch for ch in text if not ch.isspace()]
    foreign = [ch for ch in visible if ord(ch) > 0x7F]
    if not visible or len(foreign) > 0.3 * len(visible):
        return False
    odd = [ch for ch in foreign if not unicodedata.category(ch).startswith("L") and ch not in _TYPOGRAPHIC]
    return len(odd) <= 0.1 * len(foreign)


def _decode(data: bytes) -> tuple[str, str]:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), "UTF-16"
        except UnicodeDecodeError:
            raise FileProblem("this is not a text file (broken UTF-16)") from None
    if _looks_binary(data):
        raise FileProblem("this is not a text file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    else:
        return text, "UTF-8 with BOM" if data.startswith(codecs.BOM_UTF8) else "UTF-8"
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        text = ""
    if text and _plausible_cp1252(text):
        return text, "Windows-1252"
    raise FileProblem(
        "the text encoding is not recognised: expected UTF-8 (or Windows-1252); "
        "save the file as “CSV UTF-8”"
    )


# --- CSV / TSV ------------------------------------------------------------------------------

_DELIMITER_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


def _read_delimited(text: str, default: str) -> tuple[tablib.Dataset, str]:
    delimiter = default
    first = next(csv.reader(io.StringIO(text, newline=""), delimiter=default), [])
    if len(first) == 1:
        others = [d for d in (";", "\t", ",") if d != default and d in first[0]]
        if others:
            delimiter = max(others, key=first[0].count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    records: list[tuple[int, list[str]]] = []
    number = 0
    try:
        for number, record in enumerate(reader, start=1):
            records.append((number, record))
    except csv.Error as exc:
        raise FileProblem(f"row {number + 1} cannot be read as CSV ({exc})") from None
    # Skip blank lines before the header.
    while records and not any(cell.strip() for cell in records[0][1]):
        records.pop(0)
    if not records:
        raise FileProblem("the file is empty")
    _header_number, header = records[0]
    width = len(header)
    bad = [
        (n, len(row))
        for n, row in records[1:]
        if any(cell.strip() for cell in row) and len(row) != width
    ]
    if bad:
        n, cells = bad[0]
        message = (
            f"row {n} has {cells} {'cell' if cells == 1 else 'cells'}, "
            f"but the header row has {width} {'column' if width == 1 else 'columns'}"
        )
        if cells > width and delimiter in ",;":
            message += f" (a text containing “{delimiter}” must be in double quotes)"
        others = [str(row_number) for row_number, _cells in bad[1:]]
        if others:
            listed = ", ".join(others[:3]) + (", …" if len(others) > 3 else "")
            message += (
                f"; row {listed} does not fit either"
                if len(others) == 1
                else f"; rows {listed} do not fit either"
            )
        raise FileProblem(message)
    rows = [row for _n, row in records[1:] if any(cell.strip() for cell in row)]
    return _dataset(header, rows), delimiter


# --- XLSX -----------------------------------------------------------------------------------


def _read_xlsx(data: bytes) -> tablib.Dataset:
    if data.startswith(b"\xd0\xcf\x11\xe0"):
        raise FileProblem(
            "cannot be opened as an Excel workbook: this is an old .xls file or a "
            "password-protected workbook; save it as .xlsx without a password"
        )
    from openpyxl import load_workbook

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
            try:
                sheet = workbook.active
                if sheet is None or not hasattr(sheet, "iter_rows"):
                    raise FileProblem("the workbook has no worksheet to read")
                title = sheet.title
                n_sheets = len(workbook.worksheets)
                sheet.reset_dimensions()  # do not trust a stored size (it may span 16384 columns)
                grid = [list(row) for row in sheet.iter_rows(values_only=True)]
            finally:
                workbook.close()
    except FileProblem:
        raise
    except Exception:
        raise FileProblem(
            "cannot be opened as an Excel workbook: the file is damaged or not an .xlsx file"
        ) from None

    def blank(value: Any) -> bool:
        return value is None or (isinstance(value, str) and not value.strip())

    numbered = [(n, row) for n, row in enumerate(grid, start=1) if not all(blank(v) for v in row)]
    if not numbered:
        raise FileProblem(f"the sheet “{title}” is empty")
    _n, header = numbered[0]
    width = max(len(row) for _n, row in numbered)
    rows = [row + [None] * (width - len(row)) for _n, row in numbered[1:]]
    header = header + [None] * (width - len(header))
    dataset = _dataset(["" if h is None else str(h) for h in header], rows)
    dataset.title = title
    notes = [f"Read the sheet “{title}” (the workbook has {n_sheets})."] if n_sheets > 1 else []
    return _annotate(dataset, encoding=None, delimiter=None, notes=notes)


# --- JSON -----------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a text"
    if value is None:
        return "null"
    return "a number" if isinstance(value, int | float) and not isinstance(value, bool) else "true/false"


def _read_json(text: str) -> tablib.Dataset:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileProblem(
            f"this is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    expected = 'a JSON file must hold a list of objects, one per row ([{"key": …, …}, …])'
    if not isinstance(data, list):
        raise FileProblem(f"{expected}, not {_kind(data)}")
    if not data:
        return tablib.Dataset()
    headers: list[str] = []
    rows: list[list[Any]] = []
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            raise FileProblem(f"{expected}; item {number} is {_kind(item)}")
        keys = [str(k) for k in item]
        if number == 1:
            headers = keys
        elif set(keys) != set(headers):
            missing = [k for k in headers if k not in item]
            extra = [k for k in keys if k not in headers]
            parts = []
            if missing:
                parts.append("lacks " + ", ".join(f"“{k}”" for k in missing))
            if extra:
                parts.append("has " + ", ".join(f"“{k}”" for k in extra) + " in addition")
            raise FileProblem(
                f"every object must have the same keys; item {number} {' and '.join(parts)} "
                "compared with item 1"
            )
        for key, value in item.items():
            if isinstance(value, dict | list):
                raise FileProblem(
                    f"item {number}, “{key}”: a value must be text, a number, true/false or null, "
                    f"not {_kind(value)}"
                )
        rows.append([item[k] for k in headers])
    return _dataset(headers, rows)


# --- shared ---------------------------------------------------------------------------------


def _column_label(index: int) -> str:
    """1 -> 'A', 27 -> 'AA' (spreadsheet column letters)."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def _dataset(header: list[str], rows: list[list[Any]]) -> tablib.Dataset:
    """Check the header names and build the Dataset."""
    names = [str(name).strip() for name in header]

    def blank(value: Any) -> bool:
        return value is None or (isinstance(value, str) and not value.strip())

    keep: list[int] = []
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        where = f"column {index + 1} ({_column_label(index + 1)})"
        if not name:
            if any(not blank(row[index]) for row in rows if index < len(row)):
                raise FileProblem(f"{where} holds values but has no name in the header row")
            continue  # an empty column without a name (trailing delimiters): drop it
        if name in seen:
            first = seen[name]
            raise FileProblem(
                f"the column name “{name}” appears twice in the header row "
                f"(columns {first + 1} and {index + 1})"
            )
        seen[name] = index
        keep.append(index)
    if not keep:
        raise FileProblem("the header row has no column names")
    dataset = tablib.Dataset(headers=[names[i] for i in keep])
    for row in rows:
        dataset.append([row[i] for i in keep])
    return dataset


# --- which content --------------------------------------------------------------------------

_TYPE_NAME_LIST: tuple[tuple[type[Content], tuple[str, ...]], ...] = (
    (ConceptCard, ("concepts", "concept_cards", "concept_card", "conceptcard", "concept")),
    (SymbolTile, ("symbol_tiles", "symbol_tile", "symboltile", "tiles")),
    (SignSymbol, ("sign_symbols", "sign_symbol", "signsymbol")),
    (SignColour, ("sign_colours", "sign_colour", "signcolour", "sign_colors", "sign_color")),
    (SignCard, ("sign_cards", "sign_card", "signcard")),
    (Slogan, ("slogans", "slogan")),
    (AlfonsCard, ("alfons_cards", "alfons_card", "alfonscard", "alfons", "spiesser_alfons_cards")),
    (
        SauschwerObject,
        ("objects", "sauschwer_objects", "sauschwer_object", "sauschwerobject", "sauschwer"),
    ),
)
#: Names a file, a sheet or a ``type_hint`` may use for a content type (after normalising).
TYPE_NAMES: dict[str, type[Content]] = {
    name: model for model, names in _TYPE_NAME_LIST for name in names
}
#: The canonical name of each content type (its catalogue file name).
TYPE_LABELS: dict[type[Content], str] = {model: names[0] for model, names in _TYPE_NAME_LIST}

_OPTIONS = ("option_1", "option_2", "option_3", "option_4")

#: Content type -> (required columns, columns that may be left out).
COLUMNS: dict[type[Content], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ConceptCard: (("key", "text"), ()),
    SymbolTile: (
        ("key", "name", "icon", "is_extra", "position"),
        ("picture", "image_source", "image_licence"),
    ),
    SignSymbol: (("key", "name", "icon", "position"), ()),
    SignColour: (("key", "name", "hex", "mark", "position"), ()),
    SignCard: (("key", "symbol", "colour"), ()),
    Slogan: (("card", "side", "key", "text", *_OPTIONS, "correct"), ("keep_german", "markets", "source")),
    AlfonsCard: (("key", "text", "effect", "amount", "target"), ()),
    SauschwerObject: (("key", "name", "weight_g", "source"), ()),
}
TRANSLATION_COLUMNS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("key", "field", "language", "text"),
    ("state",),
)


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
        from cards.resources import RESOURCES, translation_resource_for

        return translation_resource_for(self.model) if self.translations else RESOURCES[self.model]


def normalise_type_name(name: str) -> str:
    """'Sauschwer Objects' / 'sauschwer-objects' / 'SauschwerObject' -> comparable form."""
    folded = name.strip().lower()
    for umlaut, ascii_form in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        folded = folded.replace(umlaut, ascii_form)
    return re.sub(r"[^a-z0-9]+", "_", folded).strip("_")


def type_from_name(name: str) -> type[Content] | None:
    """The content type a file, sheet or hint name stands for (``None`` when none)."""
    words = [w for w in normalise_type_name(name).split("_") if w]
    for length in range(len(words), 0, -1):
        for part in (words[:length], words[-length:]):
            model = TYPE_NAMES.get("_".join(part))
            if model is not None:
                return model
    return None


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


def file_kind(
    dataset: tablib.Dataset, filename: str, *, type_hint: str | type[Content] | None = None
) -> FileKind:
    """What ``dataset`` (read from ``filename``) holds; see the module docstring."""
    headers = [str(h).strip() for h in (dataset.headers or [])]
    if not headers:
        raise FileProblem("the file has no header row with column names")
    hinted = _hint_model(type_hint) if type_hint is not None else None
    sheet = getattr(dataset, "title", None) if Path(filename).suffix.lower() == ".xlsx" else None
    named_by, named = None, None
    sources = ((f"the sheet name “{sheet}”", sheet), (f"the file name “{filename}”", Path(filename).stem))
    for source, name in sources:
        model = type_from_name(name) if name else None
        if model is not None:
            named_by, named = source, model
            break

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
