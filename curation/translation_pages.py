"""Admin pages beyond the model admins: translation progress, the side-by-side editor,
deleted cards. The admin site wraps each in its login and permission checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import IntegrityError, connection, transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode

from cards.checks import REGISTRY, Dismissals, Finding, TextUnit, load_glossary, open_findings
from cards.concurrency import EditConflict, describe_save
from cards.history import deleted_cards
from cards.memory import Suggestion, memory_for
from cards.models import (
    EMPTY,
    CheckDismissal,
    Game,
    Slogan,
    SloganOption,
    Translatable,
    Translation,
    TranslationState,
)
from cards.po import PoProblem, export_po, import_po
from cards.progress import Unit, all_progress, models_of, units
from cards.text import REASON_MAX_CHARS, ascii_number
from cards.translation import APPROVE_PERMISSION, reviewed_state, save_translation
from common.permissions import require, requires

PAGE_SIZE = 25
#: Texts a message names at most when an approval left them (the page lists them all).
NAMED_HELD = 10
# The editor's state select, labelled as the list filters and the progress page name the states
STATE_CHOICES = [(state.value, state.label) for state in (
    TranslationState.TRANSLATED, TranslationState.APPROVED, TranslationState.NEEDS_EDITING)]


def _require(request: HttpRequest, permission: str) -> None:
    require(request, [permission])


def progress_view(site, request: HttpRequest) -> HttpResponse:  # type: ignore[no-untyped-def]
    _require(request, "cards.view_translation")
    languages = settings.KARTOTHEK_LANGUAGES[1:]
    rows = [
        {
            "progress": item,
            "game_label": Game(item.game).label,
            "edit_url": reverse("admin:cards_translate", args=[item.game, item.language]),
            "po_url": reverse("admin:cards_po_download", args=[item.game, item.language]),
            "upload_url": reverse("admin:cards_po_upload", args=[item.game, item.language]),
        }
        for item in all_progress(languages, checks=True)
    ]
    context = {**site.each_context(request), "title": "Translation progress", "rows": rows}
    return TemplateResponse(request, "admin/cards/progress.html", context)


# Saving in the editor or by PO file creates missing translations and changes others.
WRITE_TRANSLATIONS = ["cards.add_translation", "cards.change_translation"]


@requires(get=["cards.change_translation"], post=WRITE_TRANSLATIONS)
def translate_view(site, request: HttpRequest, game: str, language: str) -> HttpResponse:  # type: ignore[no-untyped-def]
    """Source beside translation, a page of texts at a time; filtered by state and search,
    each text with its open check findings."""
    if game not in Game.values or language not in settings.KARTOTHEK_LANGUAGES[1:]:
        raise Http404("No such game or language.")
    state = request.GET.get("state", "")
    if state not in ("", EMPTY, *TranslationState.values):
        state = ""
    search = request.GET.get("q", "").strip()[:MAX_SEARCH]
    page = Paginator(units(game, language, state, search), PAGE_SIZE).get_page(request.GET.get("page"))

    if request.method == "POST":
        approve_all = "approve_page" in request.POST
        if ((approve_all or "approve_anyway" in request.POST)
                and not request.user.has_perm(APPROVE_PERMISSION)):
            raise PermissionDenied("Approving needs the reviewer's permission (Curators).")
        outcome = save_editor_page(request.POST, game, language, user=request.user,
                                   approve_all=approve_all)
        if outcome.refused:
            messages.error(request, outcome.refused)
            return HttpResponseRedirect(request.get_full_path())
        if outcome.vanished:
            messages.warning(
                request,
                "Not saved, because the card was deleted since you opened the page: "
                + "; ".join(f"“{text}”" for text in outcome.vanished),
            )
        for note, count in sorted(outcome.notes.items()):
            messages.warning(request, f"{note} ({count} {'text' if count == 1 else 'texts'})")
        if not outcome.errors and not outcome.conflicts:
            messages.success(request, _saved_message(outcome, approve_all))
            if outcome.held:
                messages.warning(request, _held_message(outcome.held))
            return HttpResponseRedirect(_same_rows_url(request, outcome))
        if outcome.errors:
            messages.error(request, "Nothing was saved: correct the marked texts.")
        else:
            messages.warning(
                request,
                f"Saved {_translations(outcome.saved)}. {len(outcome.conflicts)} "
                f"{'was' if len(outcome.conflicts) == 1 else 'were'} changed by someone else "
                "since you opened the page and not saved: yours and theirs are shown below.",
            )
        shown = outcome.rows  # the submitted texts, not the page as it is now
        from_page = False
        if not outcome.errors:
            for row in shown:
                row.saved = row.ident in outcome.saved_idents
    else:
        kept_rows = _kept_rows(request, game, language)
        shown = kept_rows or [EditorRow.of(unit) for unit in page.object_list]
        from_page = not kept_rows
    attach_findings(shown, game, language)
    attach_suggestions(shown, language)
    may_approve = request.user.has_perm(APPROVE_PERMISSION)
    held_rows = [row for row in shown if (row.held or row.was_held) and row.findings
                 and row.draft_state != TranslationState.APPROVED] if may_approve else []
    for row in shown:
        row.was_held = row in held_rows  # marked in the table too
    query = urlencode({key: value for key, value in (("state", state), ("q", search)) if value})
    context = {
        **site.each_context(request),
        "title": f"Translate {Game(game).label} into {language.upper()}",
        "game": game,
        "language": language,
        "state": state,
        "search": search,
        "query": query,
        "states": [("", "All"), (EMPTY, "Missing"), *TranslationState.choices],  # as the filters
        "state_choices": STATE_CHOICES,
        "page": page,
        "rows": shown,
        "may_dismiss": request.user.has_perm(DISMISS_CHECKS),
        "may_approve": may_approve,
        "held_rows": held_rows,
        "dismiss_url": reverse("admin:cards_dismiss", args=[game, language]),
        "glossary_url": reverse("admin:cards_glossaryterm_changelist") + f"?language__exact={language}",
        "next_url": request.get_full_path(),
        "check_url": reverse("admin:cards_translate_check", args=[game, language]),
        "kept": any(row.saved for row in shown),
        # the rows are the ones a save kept, not this page of the list: the counts say both
        "from_page": from_page,
        "state_label": dict([("", ""), (EMPTY, "missing"), *TranslationState.choices]).get(state, ""),
    }
    return TemplateResponse(request, "admin/cards/translate.html", context)


def _same_rows_url(request: HttpRequest, outcome: EditorOutcome) -> str:
    """The page again after a save, holding the rows it showed (``shown``) with the saved
    ones marked (``saved``): in the "missing" view a saved text stays on the page, with its
    findings, until the translator leaves it."""
    params = request.GET.copy()
    params.setlist("shown", [",".join(row.ident for row in outcome.rows)] if outcome.rows else [])
    params.setlist("saved", [",".join(outcome.saved_idents)] if outcome.saved_idents else [])
    held = [row.ident for row in outcome.held]
    params.setlist("held", [",".join(held)] if held else [])
    return f"{request.path}?{params.urlencode()}"


def _saved_message(outcome: EditorOutcome, approve_all: bool) -> str:
    anyway = (f" Approved as it is, on purpose: {', '.join(outcome.approved_anyway)}."
              if outcome.approved_anyway else "")
    if not approve_all:
        return f"Saved {_translations(outcome.saved)}.{anyway}"
    rest = outcome.saved - outcome.approved
    return f"Approved {_translations(outcome.approved)}." + (
        f" Saved {_translations(rest)} without approving." if rest else "") + anyway


def _held_message(held: list[EditorRow]) -> str:
    """The texts a reviewer's approval left, each with what the checks found."""
    named = "; ".join(f"{row.unit.label} ({', '.join(f.title for f in row.held)})"
                      for row in held[:NAMED_HELD])
    more = f" and {len(held) - NAMED_HELD} more" if len(held) > NAMED_HELD else ""
    return (f"Not approved, because checks found problems: {named}{more}. They are listed "
            "at the top of the page: correct a text, dismiss a finding that is fine, or "
            "press its Approve anyway.")


def _kept_rows(request: HttpRequest, game: str, language: str) -> list[EditorRow]:
    """The rows named by ``shown`` (after a save), as stored now; [] when there are none."""
    idents = [i for i in request.GET.get("shown", "").split(",") if i][:MAX_UNITS_PER_SAVE]
    if not idents:
        return []
    found = _submitted_units({f"text-{ident}": "" for ident in idents}, game, language)
    if isinstance(found, str):
        return []
    saved = set(request.GET.get("saved", "").split(","))
    held = set(request.GET.get("held", "").split(","))
    rows = [EditorRow.of(unit) for unit in found if not isinstance(unit, str)]
    for row in rows:
        row.saved = row.ident in saved
        row.was_held = row.ident in held
    return rows


def attach_suggestions(rows: list[EditorRow], language: str) -> None:
    """Each row's suggestions from the translation memory (approved texts of the catalogue)."""
    memory = memory_for(language)
    if not memory.entries:
        return
    for row in rows:
        unit = row.unit
        type_id = ContentType.objects.get_for_model(type(unit.obj)).pk
        row.suggestions = [s for s in memory.suggest(unit.source, exclude=(type_id, unit.obj.pk, unit.field))
                           if not _same(s.text, row.draft)]


#: The longest search the editor takes (longer is cut): a search is a word or a phrase.
MAX_SEARCH = 200
DISMISS_CHECKS = "cards.add_checkdismissal"


class TextChecks:
    """The open findings of texts of one game and language as they would be saved: the
    glossary and the dismissals are read once for all the units named (a few queries)."""

    def __init__(self, game: str, language: str, units: list[Unit]) -> None:
        self.language = language
        self.glossary = load_glossary(language)[game]
        ids: dict[int, list[int]] = {}
        for unit in units:
            ids.setdefault(_type_id(unit.obj), []).append(unit.obj.pk)
        self.dismissals = Dismissals.load(language, ids)

    def findings(self, unit: Unit, text: str, state: str) -> list[Finding]:
        checked = TextUnit(unit.obj, unit.field, self.language, unit.source, text, state,
                           unit.obj.keeps_source(unit.field), self.glossary)
        return open_findings(checked, self.dismissals, _type_id(unit.obj))


def _type_id(obj: Any) -> int:
    return ContentType.objects.get_for_model(type(obj)).pk


def attach_findings(rows: list[EditorRow], game: str, language: str) -> None:
    """Each row's open findings, for the text in its box (a few queries for the page)."""
    checks = TextChecks(game, language, [row.unit for row in rows])
    for row in rows:
        row.findings = checks.findings(row.unit, row.draft, row.draft_state)


MAX_REASON = REASON_MAX_CHARS


@requires(get=[DISMISS_CHECKS], post=[DISMISS_CHECKS])
def dismiss_view(site, request: HttpRequest, game: str, language: str) -> HttpResponse:  # type: ignore[no-untyped-def]
    """Dismiss one check's finding on one text, with a reason (kept with who and when).

    The dismissal holds for the source and translation as they are now: when either
    changes, the finding is open again.
    """
    if game not in Game.values or language not in settings.KARTOTHEK_LANGUAGES[1:]:
        raise Http404("No such game or language.")
    params = request.POST if request.method == "POST" else request.GET
    ident, check = params.get("unit", ""), params.get("check", "")
    back = params.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        back = reverse("admin:cards_translate", args=[game, language])
    if check not in REGISTRY or not ident:
        raise Http404("No such check or text.")
    with transaction.atomic():
        found = _submitted_units({f"text-{ident}": ""}, game, language)
        if isinstance(found, str) or isinstance(found[0], str):
            raise Http404("No such text.")
        unit = found[0]
        row = EditorRow.of(unit)
        attach_findings([row], game, language)
        finding = next((f for f in row.findings if f.check == check), None)
        if finding is None:
            messages.info(request, f"Nothing to dismiss: the check “{REGISTRY[check].title}” finds "
                                   f"nothing on {unit.label} now.")
            return HttpResponseRedirect(back)
        reason = (params.get("reason") or "").strip()
        error = ""
        if request.method == "POST":
            if not reason:
                error = "Say why the finding is fine for this text."
            elif len(reason) > MAX_REASON:
                error = f"The reason is {len(reason):,} characters long; at most {MAX_REASON:,}."
            else:
                CheckDismissal.objects.create(
                    content_object=unit.obj, field=unit.field, language=language,
                    check_name=check, reason=reason, text=row.was_text, source=unit.source,
                    dismissed_by=request.user,
                )
                messages.success(request, f"Dismissed “{REGISTRY[check].title}” on {unit.label}; "
                                          "it opens again when the text changes.")
                return HttpResponseRedirect(back)
    context = {
        **site.each_context(request),
        "title": f"Dismiss a check on {unit.label}",
        "unit": unit, "row": row, "finding": finding, "check": check, "ident": ident,
        "reason": reason, "error": error, "next": back, "language": language, "game": game,
    }
    return TemplateResponse(request, "admin/cards/dismiss.html", context)


# --- the editor's save: only what the user changed, each on the version they saw ---------

#: At most this many texts in one submission (four pages): more is not a page of the editor.
MAX_UNITS_PER_SAVE = 4 * PAGE_SIZE


@dataclass
class EditorRow:
    """One text as the editor shows it, and the values it was rendered with.

    ``was_text``, ``was_state`` and ``version`` go back as hidden fields: a save writes only
    the texts whose box differs from what was rendered, and only if the stored translation
    is still at ``version`` (0: there was none).
    """

    unit: Unit
    draft: str
    draft_state: str
    was_text: str
    was_state: str
    version: int
    error: str = ""
    theirs: Translation | None = None  # a conflict: what the other person saved
    theirs_by: str = ""
    theirs_at: str = ""
    findings: list[Finding] = field(default_factory=list)
    suggestions: list[Suggestion] = field(default_factory=list)
    saved: bool = False  # saved by the last submission (kept on the page, marked)
    held: list[Finding] = field(default_factory=list)  # not approved: its open findings
    was_held: bool = False  # held by the last submission (after its redirect: findings anew)

    @classmethod
    def of(cls, unit: Unit) -> EditorRow:
        row = unit.translation
        text = row.text if row else ""
        state = row.state if row else TranslationState.TRANSLATED
        return cls(unit, text, state, text, state, row.version if row else 0)

    @property
    def ident(self) -> str:
        return self.unit.ident


@dataclass
class EditorOutcome:
    rows: list[EditorRow] = field(default_factory=list)
    saved: int = 0
    approved: int = 0  # of the saved, those now approved
    errors: int = 0
    conflicts: list[EditorRow] = field(default_factory=list)
    refused: str = ""  # the whole submission is not an editor page
    vanished: list[str] = field(default_factory=list)  # texts for cards deleted meanwhile
    notes: dict[str, int] = field(default_factory=dict)  # review: why a state moved, how often
    saved_idents: list[str] = field(default_factory=list)
    held: list[EditorRow] = field(default_factory=list)  # approval waits for approve_anyway
    approved_anyway: list[str] = field(default_factory=list)  # labels approved on purpose


def _same(a: str, b: str) -> bool:
    # Browsers send a textarea's line breaks as CRLF; the box trims what the rules forbid.
    return a.replace("\r\n", "\n").strip() == b.replace("\r\n", "\n").strip()


def _submitted_units(post: Any, game: str, language: str) -> list[Unit | str] | str:
    """The units a submission names, in its order (a problem with the whole submission as
    a string; the ident of a card deleted since the page was rendered in its place)."""
    idents = [name[len("text-"):] for name in post if name.startswith("text-")]
    if len(idents) > MAX_UNITS_PER_SAVE:
        return f"One save takes at most {MAX_UNITS_PER_SAVE} texts; this one had {len(idents)}."
    models = {model._meta.model_name: model for model in models_of(game)}
    wanted: dict[type[Translatable], dict[int, list[str]]] = {}
    parsed: list[tuple[type[Translatable], int, str]] = []
    for ident in idents:
        model_name, _, rest = ident.partition("-")
        pk_text, _, field_name = rest.partition("-")
        model = models.get(model_name)
        if model is None or not ascii_number(pk_text) or field_name not in model.TRANSLATABLE_FIELDS:
            return f"“{ident}” is not a text of this game."
        wanted.setdefault(model, {}).setdefault(int(pk_text), []).append(field_name)
        parsed.append((model, int(pk_text), field_name))
    found: dict[tuple[type[Translatable], int], Translatable] = {}
    stored: dict[tuple[type[Translatable], int, str], Translation] = {}
    for model, by_pk in wanted.items():
        queryset = model._default_manager.all()
        if model is SloganOption:
            queryset = queryset.select_related("slogan")
        for obj in queryset.filter(pk__in=list(by_pk)):
            if not (isinstance(obj, Slogan) and obj.keep_german):
                found[(model, obj.pk)] = obj
        rows = Translation.objects.filter(
            content_type=ContentType.objects.get_for_model(model), language=language,
            object_id__in=list(by_pk),
        )
        if connection.features.has_select_for_update and connection.in_atomic_block:
            rows = rows.select_for_update()
        for row in rows:
            stored[(model, row.object_id, row.field)] = row
    result: list[Unit | str] = []
    for (model, pk, field_name), ident in zip(parsed, idents, strict=True):
        obj = found.get((model, pk))
        result.append(ident if obj is None else Unit(obj, field_name, stored.get((model, pk, field_name))))
    return result


def save_editor_page(post: Any, game: str, language: str, *, user: Any,
                     approve_all: bool = False) -> EditorOutcome:
    """Write the texts a translator changed on an editor page.

    A text counts as changed when its box or state differs from the values the page was
    rendered with (hidden fields). Each change is written only if the stored translation is
    still the version the page showed; one that someone else changed meanwhile is not
    written but shown beside theirs, and the other changes are saved. An invalid text saves
    nothing (the page asks to correct it). A submission without the hidden fields (an old
    page, a script) is compared with what is stored. ``approve_all`` ("Approve this page")
    sets every text on the page that has a translation to *approved*, on the same terms; a
    text named in ``approve_anyway`` (its own button) is approved too.
    The state each text gets is ``reviewed_state``'s: only a reviewer approves, and an edited
    approved text is translated again (``outcome.notes`` says so). A text with open check
    findings is never approved unless ``approve_anyway`` names it: it keeps the state picked
    for it (*translated* for *approved*) and ``outcome.held`` lists it with its findings.
    """
    outcome = EditorOutcome()
    written: list[tuple[EditorRow, tuple[str, str, int]]] = []
    confirmed = set(post.getlist("approve_anyway")) if hasattr(post, "getlist") else set()
    with transaction.atomic():
        submitted = _submitted_units(post, game, language)
        if isinstance(submitted, str):
            outcome.refused = submitted
            return outcome
        checks = TextChecks(game, language, [u for u in submitted if not isinstance(u, str)])
        for unit in submitted:
            if isinstance(unit, str):
                text = (post.get(f"text-{unit}") or "").strip()
                if not _same(text, post.get(f"was-text-{unit}") or ""):
                    outcome.vanished.append(text)
                continue
            row, stored = _submitted_row(post, unit)
            outcome.rows.append(row)
            picked = row.draft_state
            approving = bool(row.draft) and (approve_all or unit.ident in confirmed)
            if approving:
                row.draft_state = TranslationState.APPROVED
            if _hold_back(row, stored, picked, user=user, checks=checks, confirmed=confirmed):
                outcome.held.append(row)
                approving = False
            if _same(row.draft, row.was_text) and (row.draft_state == row.was_state or not row.draft):
                # Untouched here: show what is stored now, whoever saved it.
                row.draft, row.draft_state = stored.draft, stored.draft_state
                row.was_text, row.was_state, row.version = (
                    stored.was_text, stored.was_state, stored.version)
                continue
            rendered = (row.was_text, row.was_state, row.version)
            if _write_row(outcome, row, stored, user=user, language=language,
                          chosen=approving or row.draft_state != row.was_state):
                written.append((row, rendered))
                if unit.ident in confirmed and row.draft_state == TranslationState.APPROVED:
                    outcome.approved_anyway.append(unit.label)
        if outcome.errors:
            transaction.set_rollback(True)
            outcome.saved = outcome.approved = 0
            outcome.approved_anyway.clear()
            for row, rendered in written:
                # Not written after all: still a change against what the page showed.
                row.was_text, row.was_state, row.version = rendered
    return outcome


def _submitted_row(post: Any, unit: Unit) -> tuple[EditorRow, EditorRow]:
    """The row as submitted (box, state, and the values the page was rendered with), and
    the row as stored now."""
    ident = unit.ident
    text = (post.get(f"text-{ident}") or "").replace("\r\n", "\n").strip()
    stored = EditorRow.of(unit)
    was_text = post.get(f"was-text-{ident}")
    was_state = post.get(f"was-state-{ident}")
    version_text = post.get(f"version-{ident}") or ""
    if was_text is None or was_state is None or not ascii_number(version_text):
        was_text, was_state, version = stored.was_text, stored.was_state, stored.version
    else:
        version = int(version_text)
    return EditorRow(unit, text, post.get(f"state-{ident}") or "", was_text, was_state,
                     version), stored


def _hold_back(row: EditorRow, stored: EditorRow, picked: str, *, user: Any,
               checks: TextChecks, confirmed: set[str]) -> bool:
    """Whether a reviewer's approval of ``row`` waits for its own confirmation: the text
    would become approved with open findings, and ``approve_anyway`` does not name it.
    A held row keeps the state picked for it, *translated* where that was *approved*."""
    approved = TranslationState.APPROVED
    if row.draft_state != approved or row.ident in confirmed or not row.draft:
        return False
    if stored.was_state == approved and _same(stored.was_text, row.draft):
        return False  # approved already, as it is: approving changes nothing
    if not user.has_perm(APPROVE_PERMISSION):
        return False  # not a reviewer: review makes it translated (reviewed_state)
    row.held = checks.findings(row.unit, row.draft, approved)
    if not row.held:
        return False
    keep = picked in TranslationState.values and picked != approved
    row.draft_state = picked if keep else TranslationState.TRANSLATED
    return True


def _write_row(outcome: EditorOutcome, row: EditorRow, stored: EditorRow, *, user: Any,
               language: str, chosen: bool) -> bool:
    """Write one changed row on the version the page showed; False when it was not written
    (an error, a conflict, or someone else saved the very same)."""
    unit = row.unit
    if row.draft_state not in TranslationState.values:
        row.error = "Choose a state."
        outcome.errors += 1
        return False
    new_state, note = reviewed_state(user, unit.translation, row.draft, row.draft_state,
                                     chosen=chosen)
    if stored.version != row.version:
        if unit.translation is not None and (
                _same(unit.translation.text, row.draft) and unit.translation.state == new_state):
            row.version = stored.version  # they saved the very same: nothing to do
            row.was_text, row.was_state = stored.was_text, stored.was_state
            return False
        _conflict(outcome, row, unit, language)
        return False
    if note:
        outcome.notes[note] = outcome.notes.get(note, 0) + 1
    row.draft_state = new_state
    try:
        with transaction.atomic():
            saved = save_translation(unit.obj, unit.field, language, row.draft, new_state,
                                     expected_version=row.version)
    except ValidationError as exc:
        row.error = " ".join(exc.messages)
        outcome.errors += 1
        return False
    except (EditConflict, IntegrityError):
        # Written by someone else between our check and our write (PostgreSQL).
        unit.translation = Translation.objects.filter(
            content_type=ContentType.objects.get_for_model(type(unit.obj)),
            object_id=unit.obj.pk, field=unit.field, language=language,
        ).first()
        _conflict(outcome, row, unit, language)
        return False
    outcome.saved += 1
    if saved.state == TranslationState.APPROVED:
        outcome.approved += 1
    outcome.saved_idents.append(row.ident)
    row.draft, row.draft_state = saved.text, saved.state
    row.was_text, row.was_state, row.version = saved.text, saved.state, saved.version
    return True


def _conflict(outcome: EditorOutcome, row: EditorRow, unit: Unit, language: str) -> None:
    """Keep the user's text in the box; show theirs; the next save may replace theirs."""
    theirs = unit.translation
    row.theirs = theirs
    if theirs is not None:
        row.theirs_by, row.theirs_at = describe_save(Translation, theirs.pk, theirs.version)
        row.was_text, row.was_state, row.version = theirs.text, theirs.state, theirs.version
    else:
        row.theirs_by, row.theirs_at = "someone else", "after you opened the page"
        row.was_text, row.was_state, row.version = "", TranslationState.TRANSLATED, 0
    outcome.conflicts.append(row)


def deleted_view(site, request: HttpRequest) -> HttpResponse:  # type: ignore[no-untyped-def]
    """Deleted cards, newest first, each linked to its history (where it is restored)."""
    _require(request, "cards.change_conceptcard")
    rows = [
        {
            "card": card,
            "kind": card.model._meta.verbose_name,
            "history_url": reverse(
                f"admin:cards_{card.model._meta.model_name}_history", args=[card.pk]
            ),
            "restore_url": reverse(
                f"admin:cards_{card.model._meta.model_name}_simple_history",
                args=[card.pk, card.restore_id],
            ),
        }
        for card in deleted_cards()
    ]
    context = {**site.each_context(request), "title": "Deleted cards", "rows": rows}
    return TemplateResponse(request, "admin/cards/deleted.html", context)


MAX_PO_BYTES = 5 * 1024 * 1024


def po_download_view(site, request: HttpRequest, game: str, language: str) -> HttpResponse:  # type: ignore[no-untyped-def]
    """The texts of a game as a gettext PO file, for translators' own tools."""
    _require(request, "cards.view_translation")
    try:
        text = export_po(game, language)
    except PoProblem as exc:
        raise Http404(str(exc)) from None
    response = HttpResponse(text.encode("utf-8"), content_type="text/x-gettext-translation; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="kartothek-{game}-{language}.po"'
    return response


@requires(get=["cards.change_translation"], post=WRITE_TRANSLATIONS)
def po_upload_view(site, request: HttpRequest, game: str, language: str) -> HttpResponse:  # type: ignore[no-untyped-def]
    """Read a translated PO file back; errors save nothing, conflicts keep what is stored."""
    back = reverse("admin:cards_progress")
    if request.method != "POST":
        return HttpResponseRedirect(back)
    upload = request.FILES.get("po_file")
    if upload is None:  # none chosen, or dropped while streaming in for its size
        from cards.uploads import upload_refusal

        messages.error(request, upload_refusal(request) or "Choose a PO file to upload.")
        return HttpResponseRedirect(back)
    if upload.size > MAX_PO_BYTES:
        messages.error(request, f"{upload.name}: the file is {upload.size / 1_048_576:.1f} MB; "
                                f"at most {MAX_PO_BYTES // 1_048_576} MB.")
        return HttpResponseRedirect(back)
    try:
        text = upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        messages.error(request, f"{upload.name}: not UTF-8 text; save the PO file as UTF-8.")
        return HttpResponseRedirect(back)
    try:
        report = import_po(text, game, language)
    except PoProblem as exc:
        messages.error(request, f"{upload.name}: {exc}")
        return HttpResponseRedirect(back)
    for message in report.messages[:50]:
        level = messages.ERROR if message.startswith("error") else (
            messages.WARNING if message.startswith("conflict") else messages.INFO)
        messages.add_message(request, level, message)
    if len(report.messages) > 50:
        messages.warning(request, f"… and {len(report.messages) - 50} more.")
    level = messages.ERROR if report.errors else messages.SUCCESS
    messages.add_message(request, level, f"{upload.name}: {report.summary()}")
    return HttpResponseRedirect(back)


def _translations(count: int) -> str:
    return f"{count} translation{'' if count == 1 else 's'}"  # "1 translation", not "1 translations"
