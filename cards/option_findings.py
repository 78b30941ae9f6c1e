"""The Slogan option checks (:mod:`cards.option_checks`) over the stored catalogue.

Loads each card's two slogans with their options, their English texts and the brand owner
table, runs the checks, and leaves out the findings a curator dismissed. A dismissal is a
:class:`cards.models.CheckDismissal` on the slogan, in the source language, for one field
(``option_2``), one check, the slogan text (``source``) and the option (``text``) as they
were: edit either and the finding is open again. The starter catalogue ships its dismissals
in ``fixtures/slogan/option_dismissals.csv`` (``key,field,check,source,text,reason``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import tablib
from django.conf import settings
from django.contrib.contenttypes.models import ContentType

from cards.brands import BrandTable
from cards.models import CheckDismissal, Slogan, SloganOption, Translation
from cards.option_checks import CHECKS, CardSides, OptionFinding, Side, card_findings, year_of
from cards.text import reason_too_long

DISMISSAL_COLUMNS = ("key", "field", "check", "source", "text", "reason")
DISMISSAL_FILE = "slogan/option_dismissals"
FIELDS = ("text", "option_1", "option_2", "option_3", "option_4")


def source_language() -> str:
    return settings.KARTOTHEK_LANGUAGES[0]


def load_cards(card_ids: Iterable[int] | None = None) -> dict[int, CardSides]:
    """card id -> its sides as the checks read them, in three queries."""
    slogans = Slogan.objects.select_related("card").order_by("card__key", "side")
    if card_ids is not None:
        slogans = slogans.filter(card_id__in=list(card_ids))
    cards: dict[int, CardSides] = {}
    by_pk: dict[int, Side] = {}
    for slogan in slogans:
        side = Side(slogan.key, slogan.text, [], 0, year=year_of(slogan.source))
        cards.setdefault(slogan.card_id, CardSides(slogan.card.key)).sides[slogan.side] = side
        by_pk[slogan.pk] = side
    options = SloganOption.objects.filter(slogan_id__in=list(by_pk)).order_by("slogan_id", "position")
    for slogan_id, text, correct in options.values_list("slogan_id", "text", "is_correct"):
        side = by_pk[slogan_id]
        side.options.append(text)
        if correct:
            side.correct = len(side.options)
    for object_id, text in english_texts(by_pk).items():
        by_pk[object_id].english = text
    for card in cards.values():  # an incomplete card is the unit check's finding, not these
        card.sides = {n: s for n, s in card.sides.items() if len(s.options) == 4 and s.correct}
    return cards


def english_texts(slogan_ids: Iterable[int]) -> dict[int, str]:
    """slogan id -> its English text, for the slogans that have one."""
    english = Translation.objects.filter(
        content_type=ContentType.objects.get_for_model(Slogan), field="text", language="en",
        object_id__in=list(slogan_ids)).exclude(text="")
    return dict(english.values_list("object_id", "text"))


class OptionDismissals:
    """The dismissals of the option checks, by slogan key, field and check."""

    def __init__(self, rows: Iterable[tuple[str, str, str, str, str, str]]) -> None:
        self.held: dict[tuple[str, str, str], list[tuple[str, str, str]]] = defaultdict(list)
        for key, field, check, source, text, reason in rows:
            self.held[(key, field, check)].append((source, text, reason))

    @classmethod
    def load(cls) -> OptionDismissals:
        keys = dict(Slogan.objects.values_list("pk", "key"))
        rows = CheckDismissal.objects.filter(
            content_type=ContentType.objects.get_for_model(Slogan), language=source_language(),
            check_name__in=list(CHECKS)).order_by("dismissed_at", "pk")
        return cls((keys.get(oid, ""), f, c, s, t, r) for oid, f, c, s, t, r in rows.values_list(
            "object_id", "field", "check_name", "source", "text", "reason"))

    def reason(self, finding: OptionFinding, slogan_text: str) -> str | None:
        """The reason a finding was dismissed for, while its texts are unchanged; else None."""
        for source, text, reason in reversed(self.held.get(
                (finding.slogan, finding.field, finding.check), [])):
            if source == slogan_text and text == finding.option:
                return reason
        return None


def findings_of(card: CardSides, table: BrandTable, dismissals: OptionDismissals
                ) -> list[tuple[OptionFinding, str | None]]:
    """Each finding of a card with the reason it was dismissed for (None: open)."""
    texts = {s.key: s.text for s in card.sides.values()}
    return [(f, dismissals.reason(f, texts[f.slogan])) for f in card_findings(card, table)]


def open_findings(card_ids: Iterable[int] | None = None) -> list[tuple[str, OptionFinding]]:
    """(card key, finding) for every finding no dismissal covers."""
    table, dismissals = BrandTable.load(), OptionDismissals.load()
    return [(card.key, f) for card in load_cards(card_ids).values()
            for f, reason in findings_of(card, table, dismissals) if reason is None]


def dismiss(slogan: Slogan, finding: OptionFinding, reason: str, user: Any = None) -> CheckDismissal:
    """Keep the dismissal; ValueError (its message for the curator) for a reason that is
    empty or longer than ``REASON_MAX_CHARS``."""
    problem = reason_too_long(reason.strip()) or ("" if reason.strip() else
                                                   "Say why the finding is fine for this card.")
    if problem:
        raise ValueError(problem)
    return CheckDismissal.objects.create(
        content_object=slogan, field=finding.field, language=source_language(),
        check_name=finding.check, reason=reason.strip(), source=slogan.text, text=finding.option,
        dismissed_by=user)


# --- the catalogue file --------------------------------------------------------------------


def import_option_dismissals(dataset: tablib.Dataset) -> tuple[int, int, int, list[str]]:
    """Create or update the dismissals a file lists: (new, updated, unchanged, errors).
    Runs inside the caller's transaction; the caller rolls back when there are errors."""
    headers = [str(h or "").strip() for h in (dataset.headers or [])]
    missing = [c for c in DISMISSAL_COLUMNS if c not in headers]
    if missing:
        return 0, 0, 0, [f"missing columns: {', '.join(missing)} "
                         f"(expected: {','.join(DISMISSAL_COLUMNS)})."]
    slogans = {s.key: s for s in Slogan.objects.all()}
    slogan_type = ContentType.objects.get_for_model(Slogan)
    new = updated = unchanged = 0
    errors: list[str] = []
    for number, values in enumerate(dataset, start=2):
        row = {h: "" if v is None else str(v) for h, v in zip(headers, values, strict=False)}
        key, field, check = row["key"].strip(), row["field"].strip(), row["check"].strip()
        reason = row["reason"].strip()
        if key not in slogans:
            errors.append(f"row {number}, column `key`: there is no slogan with the key “{key}”.")
            continue
        if field not in FIELDS:
            errors.append(f"row {number}, column `field`: “{field}” is not one of {', '.join(FIELDS)}.")
            continue
        if check not in CHECKS:
            errors.append(f"row {number}, column `check`: “{check}” is not an option check; use "
                          f"one of: {', '.join(CHECKS)}.")
            continue
        if not reason:
            errors.append(f"row {number}, column `reason`: say why the finding is fine.")
            continue
        too_long = reason_too_long(reason)
        if too_long:
            errors.append(f"row {number}, column `reason`: {too_long}")
            continue
        stored = CheckDismissal.objects.filter(
            content_type=slogan_type, object_id=slogans[key].pk, field=field,
            language=source_language(), check_name=check, source=row["source"], text=row["text"],
        ).order_by("-dismissed_at", "-pk").first()
        if stored is None:
            CheckDismissal.objects.create(
                content_object=slogans[key], field=field, language=source_language(),
                check_name=check, reason=reason, source=row["source"], text=row["text"])
            new += 1
        elif stored.reason != reason:
            stored.reason = reason
            stored.save(update_fields=["reason"])
            updated += 1
        else:
            unchanged += 1
    return new, updated, unchanged, errors


def export_option_dismissals() -> tablib.Dataset:
    keys = dict(Slogan.objects.values_list("pk", "key"))
    rows: dict[tuple[str, str, str, str, str], str] = {}
    queryset = CheckDismissal.objects.filter(
        content_type=ContentType.objects.get_for_model(Slogan), language=source_language(),
        check_name__in=list(CHECKS)).order_by("dismissed_at", "pk")
    for oid, field, check, source, text, reason in queryset.values_list(
            "object_id", "field", "check_name", "source", "text", "reason"):
        if oid in keys:
            rows[(keys[oid], field, check, source, text)] = reason
    dataset = tablib.Dataset(headers=list(DISMISSAL_COLUMNS))
    for identity in sorted(rows):
        dataset.append([*identity, rows[identity]])
    return dataset


def dismissal_path(directory: Path) -> Path:
    return directory / f"{DISMISSAL_FILE}.csv"

