"""Admin pages beyond the model admins: translation progress, the side-by-side editor,
deleted cards. The admin site wraps each in its login and permission checks."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from cards.history import deleted_cards
from cards.models import EMPTY, Game, TranslationState
from cards.po import PoProblem, export_po, import_po
from cards.progress import all_progress, units
from cards.translation import save_translation

PAGE_SIZE = 25
STATE_CHOICES = [
    (TranslationState.TRANSLATED, "translated"),
    (TranslationState.APPROVED, "approved"),
    (TranslationState.NEEDS_EDITING, "needs editing"),
]


def _require(request: HttpRequest, permission: str) -> None:
    if not request.user.has_perm(permission):
        raise PermissionDenied


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
        for item in all_progress(languages)
    ]
    context = {**site.each_context(request), "title": "Translation progress", "rows": rows}
    return TemplateResponse(request, "admin/cards/progress.html", context)


def translate_view(site, request: HttpRequest, game: str, language: str) -> HttpResponse:  # type: ignore[no-untyped-def]
    """Source beside translation, a page of texts at a time; filtered by state."""
    _require(request, "cards.change_translation")
    if game not in Game.values or language not in settings.KARTOTHEK_LANGUAGES[1:]:
        raise Http404("No such game or language.")
    state = request.GET.get("state", "")
    if state not in ("", EMPTY, *TranslationState.values):
        state = ""
    page = Paginator(list(units(game, language, state)), PAGE_SIZE).get_page(request.GET.get("page"))
    errors: dict[str, str] = {}

    if request.method == "POST":
        changed = 0
        with transaction.atomic():
            for unit in page.object_list:
                text = request.POST.get(f"text-{unit.ident}")
                new_state = request.POST.get(f"state-{unit.ident}")
                if text is None or new_state is None:
                    continue
                text = text.strip()
                old_text = unit.translation.text if unit.translation else ""
                old_state = unit.translation.state if unit.translation else ""
                if text == old_text and (new_state == old_state or not text):
                    continue
                if new_state not in TranslationState.values:
                    errors[unit.ident] = "Choose a state."
                    continue
                try:
                    save_translation(unit.obj, unit.field, language, text, new_state)
                    changed += 1
                except ValidationError as exc:
                    errors[unit.ident] = " ".join(exc.messages)
            if errors:
                transaction.set_rollback(True)
        if not errors:
            messages.success(request, f"Saved {changed} translations.")
            return HttpResponseRedirect(request.get_full_path())
        messages.error(request, "Nothing was saved: correct the marked texts.")

    for unit in page.object_list:
        stored_text = unit.translation.text if unit.translation else ""
        stored_state = unit.translation.state if unit.translation else TranslationState.TRANSLATED
        unit.draft = request.POST.get(f"text-{unit.ident}", stored_text) if errors else stored_text
        unit.draft_state = (
            request.POST.get(f"state-{unit.ident}", stored_state) if errors else stored_state
        )
        unit.error = errors.get(unit.ident, "")
    context = {
        **site.each_context(request),
        "title": f"Translate {Game(game).label} into {language.upper()}",
        "game": game,
        "language": language,
        "state": state,
        "states": [("", "all"), (EMPTY, "missing"), *TranslationState.choices],
        "state_choices": STATE_CHOICES,
        "page": page,
    }
    return TemplateResponse(request, "admin/cards/translate.html", context)


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


def po_upload_view(site, request: HttpRequest, game: str, language: str) -> HttpResponse:  # type: ignore[no-untyped-def]
    """Read a translated PO file back; errors save nothing, conflicts keep what is stored."""
    _require(request, "cards.change_translation")
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
