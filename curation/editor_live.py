"""The translation editor's checks while typing: one endpoint that answers, for one unsaved
text, what saving it would say — the save's own validation (``Translation.full_clean``),
the open check findings (``cards.checks``, glossary and "does not fit" included, the same
code as the editor runs after a save) and the card drawn with the text (the change page's
typed preview, ``exports.preview`` through ``CardPreviewMixin.typed_preview_view``).

POST only, CSRF-protected by the admin, for users who may change translations; the text
is bounded (:data:`MAX_TEXT`) and nothing is written: no translation, no dismissal, no file.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import NoReverseMatch, reverse

from cards.models import Game, SloganOption, Translation, TranslationState
from cards.progress import Unit
from common.permissions import requires
from curation.card_previews import LARGE_WIDTH, SALT
from exports import card_items, preview

#: The longest text the endpoint checks (the longest field allows far fewer characters).
MAX_TEXT = 2000
#: The longest unit name ("sloganoption-123-text").
MAX_IDENT = 100
CHANGE = ["cards.change_translation"]


def _refuse(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@requires(get=CHANGE, post=CHANGE)
def check_view(site, request: HttpRequest, game: str, language: str) -> HttpResponse:  # type: ignore[no-untyped-def]
    """POST unit=<ident>&text=<typed> → {"findings", "refused", "problems", "previews"}."""
    from curation.translation_pages import TextChecks, _submitted_units

    if request.method != "POST":
        return HttpResponse("Send the text with POST.", status=405, headers={"Allow": "POST"},
                            content_type="text/plain; charset=utf-8")
    if game not in Game.values or language not in settings.KARTOTHEK_LANGUAGES[1:]:
        return _refuse("No such game or language.", 404)
    ident = request.POST.get("unit", "")
    text = request.POST.get("text", "")
    if not ident or len(ident) > MAX_IDENT:
        return _refuse("Name the text to check (unit).")
    if len(text) > MAX_TEXT:
        return _refuse(f"The text is {len(text):,} characters long; the check takes at most "
                       f"{MAX_TEXT:,}.", 413)
    found = _submitted_units({f"text-{ident}": ""}, game, language)
    if isinstance(found, str):
        return _refuse(found, 404)
    if isinstance(found[0], str):
        return _refuse("This card was deleted since you opened the page.", 404)
    unit = found[0]
    text = text.replace("\r\n", "\n")
    state = request.POST.get("state") or (unit.translation.state if unit.translation
                                          else TranslationState.TRANSLATED)
    if state not in TranslationState.values:
        state = TranslationState.TRANSLATED
    return JsonResponse({
        "unit": ident,
        "length": len(text.strip()),
        "refused": _refusals(unit, language, text.strip(), state),
        "findings": [{"check": f.check, "title": f.title, "message": f.message}
                     for f in TextChecks(game, language, [unit]).findings(unit, text, state)],
        **_card(unit, language, text.strip()),
    })


def _refusals(unit: Unit, language: str, text: str, state: str) -> list[str]:
    """What the save would refuse (the model's own validation), on a copy never saved."""
    if not text:
        return []
    # The stored row was read for this request only: changed here, it is never saved.
    row = unit.translation or Translation(content_object=unit.obj, field=unit.field,
                                          language=language)
    row.text, row.state = text, state
    try:
        row.full_clean(validate_unique=False)
    except ValidationError as exc:
        return list(exc.messages)
    return []


def _typed_preview_url(owner: object) -> str:
    """The typed-preview URL of the admin that shows ``owner``'s card (a slogan's: its
    slogan card's admin; the signed data names the card, the admin only its game)."""
    for candidate in (owner, getattr(owner, "card", None)):
        if candidate is None:
            continue
        opts = candidate._meta  # type: ignore[attr-defined]
        try:
            return reverse(f"admin:{opts.app_label}_{opts.model_name}_typed_preview")
        except NoReverseMatch:
            continue
    return ""


def _card(unit: Unit, language: str, text: str) -> dict[str, object]:
    """The card with the typed text, as the change page's live preview draws it."""
    obj = unit.obj
    if isinstance(obj, SloganOption):  # its slogan's card, with option_<n> typed
        owner: object = obj.slogan
        overrides = {(f"option_{obj.position}", language): text}
    else:
        owner, overrides = obj, {(unit.field, language): text}
    item = card_items.item_of(owner, language, overrides)
    if item is None:
        return {"previews": [], "problems": []}
    url = _typed_preview_url(owner)
    if not url:
        return {"previews": [], "problems": []}
    game = card_items.game_of(item)
    previews = []
    for side in preview.SIDES:
        signed = signing.dumps({"g": game, "i": item, "l": language, "s": side, "w": LARGE_WIDTH},
                               salt=SALT, compress=True)
        previews.append({"side": side, "url": f"{url}?d={signed}",
                         "alt": preview.alt_text(item, language, side)})
    return {"previews": previews, "problems": preview.item_problems(item, language),
            "width": LARGE_WIDTH, "height": preview.height_for(LARGE_WIDTH)}
