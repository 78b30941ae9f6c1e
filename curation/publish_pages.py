"""Publishing in the admin: see what a release will change, then confirm.

The overview lists every game and language with what changed since its newest release; a
pack's review page lists those changes card by card, field by field (exports/changes.py), takes
the curator's note and publishes only after an explicit confirmation — a release is frozen for
good. The review form carries the release and the draft the curator saw: if another curator
published meanwhile, or the content changed, nothing is published and the page shows the
changes anew (exports.packs.PublishConflict).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html

from cards.models import Game
from common.permissions import requires
from exports.changes import changed_cards, shown, summary
from exports.errors import PackError
from exports.models import Release
from exports.packs import NOTE_MAX_CHARS, Pending, PublishConflict, editions_of_game, pending, publish

PUBLISH = ["exports.add_release"]
SHOWN_PER_GROUP = 300  # entries listed per added/removed/changed group; the counts are exact
OPEN_UP_TO = 20  # a group this short is shown unfolded
# The visual diff of a changed card: the card in the newest release beside its current preview.
CARD_PAIR_TEMPLATES = "admin/exports/_card_pair.html"


class ConfirmForm(forms.Form):
    note = forms.CharField(
        required=False, max_length=NOTE_MAX_CHARS, label="Your note",
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": NOTE_MAX_CHARS}),
        help_text="Kept with the release beside the list of changes, and shown in the API's "
                  "release index: why this release, what to look out for.")
    confirm = forms.BooleanField(
        required=True, label="I have checked the changes above",
        error_messages={"required": "Tick the box to confirm: a release is frozen for good."})
    publish_untranslated = forms.BooleanField(
        required=False, label="Publish the untranslated texts in German")
    reviewed_version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    reviewed_sha256 = forms.RegexField(regex=r"^[0-9a-f]{64}$", widget=forms.HiddenInput)


def _check(game: str, language: str) -> None:
    if game not in Game.values or language not in editions_of_game(game):
        raise Http404("No such game or language.")


def release_link(release: Release) -> str:
    return format_html('<a href="{}">{}</a>',
                       reverse("admin:exports_release_change", args=[release.pk]), release)


def _group(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"items": items[:SHOWN_PER_GROUP], "count": len(items),
            "hidden": max(0, len(items) - SHOWN_PER_GROUP), "open": len(items) <= OPEN_UP_TO}


def _as_text(field: dict[str, Any]) -> dict[str, Any]:
    old, new = shown(field["old"]), shown(field["new"])
    if field["field"].endswith("status"):  # "needs_editing" as the editor says it
        old, new = old.replace("_", " "), new.replace("_", " ")
    return {**field, "old": old, "new": new}


def changes_context(changes: dict[str, Any], *, pairs: bool = False) -> dict[str, Any]:
    """The change list as the templates show it: values as text, long groups folded."""
    lists = []
    for entry in changes["lists"]:
        if not any(entry["counts"].values()) and not entry["reordered"]:
            continue
        changed = [{**item, "fields": [_as_text(f) for f in item["fields"]]}
                   for item in entry["changed"]]
        if pairs:
            for item, pair in zip(changed, changed_cards({**changes, "lists": [entry]}),
                                  strict=True):
                item["pair"] = pair
        lists.append({**entry, "added": _group(entry["added"]), "removed": _group(entry["removed"]),
                      "changed": _group(changed)})
    other = [_as_text(f) for f in changes["other"]]
    return {"changes": changes, "summary": summary(changes), "lists": lists, "other": other,
            "card_pair_templates": CARD_PAIR_TEMPLATES if pairs else None}


@requires(get=PUBLISH)
def publish_view(site: Any, request: HttpRequest) -> HttpResponse:
    """Every game and language: its newest release and what changed since."""
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    rows = []
    for game, label in Game.choices:
        for language in editions_of_game(game):  # the slogan game: each market's deck too
            state = pending(game, language)
            rows.append({"game": game, "label": label, "language": language,
                         "state": state, "summary": summary(state.changes),
                         "url": reverse("admin:exports_publish_review", args=[game, language])})
    context = {**site.each_context(request), "title": "Publish content packs", "rows": rows}
    return TemplateResponse(request, "admin/exports/publish.html", context)


def _review_page(site: Any, request: HttpRequest, state: Pending, form: ConfirmForm,
                 game: str, language: str) -> HttpResponse:
    label = Game(game).label
    context = {
        **site.each_context(request),
        "title": (f"{label} ({language}): nothing to publish" if state.empty
                  else f"Publish {label} ({language}) release {state.version}"),
        "game": game, "game_label": label, "language": language, "state": state, "form": form,
        "card_pairs": changed_cards(state.changes),
        "untranslated": state.untranslated[:SHOWN_PER_GROUP],
        "untranslated_count": len(state.untranslated),
        "editor_url": (reverse("admin:cards_translate", args=[game, language.partition("-")[0]])
                       + "?state=empty"
                       if language.partition("-")[0] != settings.KARTOTHEK_LANGUAGES[0] else ""),
        **changes_context(state.changes, pairs=True),
    }
    return TemplateResponse(request, "admin/exports/publish_review.html", context)


def _fresh_form(state: Pending, note: str = "") -> ConfirmForm:
    return ConfirmForm(initial={"note": note, "reviewed_sha256": state.draft["sha256"],
                                "reviewed_version": state.latest.version if state.latest else 0})


@requires(get=PUBLISH, post=PUBLISH)
def review_view(site: Any, request: HttpRequest, game: str, language: str) -> HttpResponse:
    """One pack: the changes since its newest release, the note, the confirmation."""
    _check(game, language)
    if request.method != "POST":
        state = pending(game, language)
        return _review_page(site, request, state, _fresh_form(state), game, language)
    form = ConfirmForm(request.POST)
    problem = None
    untranslated_problem = ""
    if form.is_valid() and not form.cleaned_data["publish_untranslated"]:
        missing = pending(game, language).untranslated
        if missing:
            untranslated_problem = (
                f"{len(missing)} text{'s have' if len(missing) != 1 else ' has'} no "
                f"{language.upper()} translation and would be published in German: translate "
                "them first, or tick the box to publish them as they are.")
            form.add_error("publish_untranslated", untranslated_problem)
    if form.is_valid():
        data = form.cleaned_data
        try:
            result = publish(game, language, user=request.user, note=data["note"],
                             reviewed_version=data["reviewed_version"],
                             reviewed_sha256=data["reviewed_sha256"])
        except PublishConflict as exc:
            messages.error(request, str(exc))
            state = pending(game, language)  # the changes as they are now, to review again
            return _review_page(site, request, state, _fresh_form(state, data["note"]), game,
                                language)
        except PackError as exc:
            problem = str(exc)
        else:
            release = result.release
            if result.created:
                messages.success(request, format_html(
                    "Published {}: {}. Its page keeps the notes.", release_link(release),
                    summary(release.changes)))
            else:
                messages.info(request, format_html("No change: {} already holds this content.",
                                                   release_link(release)))
            return HttpResponseRedirect(reverse("admin:exports_publish"))
    # Shown again with its errors, and with the changes as they are now: the hidden fields
    # say what this page shows, so a confirmation always means the changes on screen.
    state = pending(game, language)
    data = request.POST.copy()
    data["reviewed_version"] = str(state.latest.version if state.latest else 0)
    data["reviewed_sha256"] = state.draft["sha256"]
    form = ConfirmForm(data)
    form.is_valid()
    if problem:
        form.add_error(None, problem)
    if untranslated_problem:
        form.add_error("publish_untranslated", untranslated_problem)
    return _review_page(site, request, state, form, game, language)
