"""Dismissed translation-check findings as a catalogue file: ``translations/<lang>/dismissals.csv``.

A curator's dismissal (:class:`cards.models.CheckDismissal`) says that one check's
finding on one text is fine, and why ("Goethe" stays "Goethe" in English). The starter
catalogue ships such decisions, so a fresh installation's ``validate_content --translations``
reports only what still needs a look. One row per dismissal:

``file,key,field,check,source,text,reason``

- ``file``: the translation file the text lives in, without ``.csv`` (``concepts``, ``slogans`` …);
- ``key``, ``field``: as in that translation file (a slogan's options are ``option_1`` … ``option_4``);
- ``check``: the check's slug (``unchanged``, ``length`` …);
- ``source``, ``text``: the German source and the translation the decision was made on; when
  either changes, the finding is open again (as for a dismissal made in the admin);
- ``reason``: why the finding is fine.

Loading is part of :func:`cards.catalogue.import_catalogue` (all or nothing, a second load
changes nothing); :func:`cards.catalogue.export_catalogue` writes every dismissal back out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tablib

from cards.models import CheckDismissal, Content, Slogan, SloganOption
from cards.text import reason_too_long

COLUMNS = ("file", "key", "field", "check", "source", "text", "reason")
OPTION_FIELDS = ("option_1", "option_2", "option_3", "option_4")
FILE_NAME = "dismissals"


def translatable_files(catalogue_files: tuple[tuple[str, type[Content]], ...]) -> dict[str, type[Content]]:
    """Translation file name (``concepts``) -> content model, for the models with texts."""
    return {stem.split("/")[-1]: model for stem, model in catalogue_files if model.TRANSLATABLE_FIELDS}


def _content_type(model: type[Any]) -> Any:
    from django.contrib.contenttypes.models import ContentType

    return ContentType.objects.get_for_model(model)


def _target(files: dict[str, type[Content]], name: str, key: str, label: str) -> tuple[Any, str]:
    """The object and model field a row points at; ValueError with the reason if none."""
    model = files.get(name)
    if model is None:
        raise ValueError(f"column `file`: “{name}” is not a translation file; use one of: "
                         f"{', '.join(sorted(files))}.")
    obj = model._default_manager.filter(key=key).first()
    if obj is None:
        raise ValueError(f"column `key`: there is no {model._meta.verbose_name} with the key “{key}”.")
    if model is Slogan and label in OPTION_FIELDS:
        option = SloganOption.objects.filter(slogan=obj, position=int(label[-1])).first()
        if option is None:
            raise ValueError(f"column `field`: the slogan “{key}” has no {label}.")
        return option, "text"
    if label not in model.TRANSLATABLE_FIELDS:
        valid = list(model.TRANSLATABLE_FIELDS) + (list(OPTION_FIELDS) if model is Slogan else [])
        raise ValueError(f"column `field`: “{label}” is not a translatable field; use one of: "
                         f"{', '.join(valid)}.")
    return obj, label


def import_dismissals(dataset: tablib.Dataset, language: str,
                      files: dict[str, type[Content]]) -> tuple[int, int, int, list[str]]:
    """Create or update the dismissals a file lists: (new, updated, unchanged, errors).

    Runs inside the caller's transaction; the caller rolls back when there are errors.
    """
    from cards.checks import REGISTRY

    headers = [str(h or "").strip() for h in (dataset.headers or [])]
    missing = [c for c in COLUMNS if c not in headers]
    if missing:
        return 0, 0, 0, [f"missing columns: {', '.join(missing)} (expected: {','.join(COLUMNS)})."]
    new = updated = unchanged = 0
    errors: list[str] = []
    seen: dict[tuple[str, str, str, str, str, str], int] = {}
    for number, values in enumerate(dataset, start=2):
        row = {h: "" if v is None else str(v) for h, v in zip(headers, values, strict=False)}
        name, key, label = row["file"].strip(), row["key"].strip(), row["field"].strip()
        check, reason = row["check"].strip(), row["reason"].strip()
        identity = (name, key, label, check, row["source"], row["text"])
        if identity in seen:
            errors.append(f"row {number}: the same dismissal as row {seen[identity]}.")
            continue
        seen[identity] = number
        if check not in REGISTRY:
            errors.append(f"row {number}, column `check`: “{check}” is not a check; use one of: "
                          f"{', '.join(sorted(REGISTRY))}.")
            continue
        if not reason:
            errors.append(f"row {number}, column `reason`: say why the finding is fine for this text.")
            continue
        too_long = reason_too_long(reason)
        if too_long:
            errors.append(f"row {number}, column `reason`: {too_long}")
            continue
        try:
            obj, field_name = _target(files, name, key, label)
        except ValueError as exc:
            errors.append(f"row {number}, {exc}")
            continue
        stored = CheckDismissal.objects.filter(
            content_type=_content_type(type(obj)), object_id=obj.pk, field=field_name,
            language=language, check_name=check, source=row["source"], text=row["text"],
        ).order_by("-dismissed_at", "-pk").first()
        if stored is None:
            CheckDismissal.objects.create(
                content_object=obj, field=field_name, language=language, check_name=check,
                reason=reason, source=row["source"], text=row["text"])
            new += 1
        elif stored.reason != reason:
            stored.reason = reason
            stored.save(update_fields=["reason"])
            updated += 1
        else:
            unchanged += 1
    return new, updated, unchanged, errors


def export_dismissals(language: str, files: dict[str, type[Content]]) -> tablib.Dataset:
    """Every dismissal of a language as the rows :func:`import_dismissals` reads (newest
    reason for each), sorted by file, key, field and check."""
    names = {_content_type(model).pk: name for name, model in files.items()}
    option_type = _content_type(SloganOption).pk
    names[option_type] = "slogans"
    rows: dict[tuple[str, str, str, str, str, str], str] = {}
    queryset = CheckDismissal.objects.filter(language=language).order_by("dismissed_at", "pk")
    for dismissal in queryset.prefetch_related("content_object"):
        obj = dismissal.content_object
        name = names.get(dismissal.content_type_id)
        if obj is None or name is None:
            continue  # the text's object was deleted: nothing left to dismiss on
        if dismissal.content_type_id == option_type:
            key, label = obj.slogan.key, f"option_{obj.position}"
        else:
            key, label = obj.key, dismissal.field
        rows[(name, key, label, dismissal.check_name, dismissal.source, dismissal.text)] = dismissal.reason
    dataset = tablib.Dataset(headers=list(COLUMNS))
    for identity in sorted(rows):
        dataset.append([*identity, rows[identity]])
    return dataset


def path_for(directory: Path, language: str) -> Path:
    return directory / "translations" / language / f"{FILE_NAME}.csv"
