"""Printing from the admin: the print page of a game, and the "Print selected cards" action.

Both render from a pack (a release or the draft built from the current content), never from
the content tables; the action only reads the keys of the selected objects to pick their
cards out of the pack.
"""

from __future__ import annotations

import io
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse

from cards.models import Game, edition_label
from cards.permissions import print_permissions
from common.permissions import require
from exports.errors import PackError
from exports.jobs import needs_job, queue_render
from exports.models import Release, RenderJob
from exports.packs import editions_of_game
from exports.pdf import (
    DeckError,
    DeckOptions,
    DeckRenderer,
    OptionError,
    Selection,
    apply_profile,
    parse_offset,
    parse_size,
)
from exports.pdf.imposition import NoRoom
from exports.pdf.options import SIZES
from exports.pdf.raster import RasterError
from exports.pdf.source import deck_pack

# model name -> what its keys select in the pack (exports.pdf.cards.SELECTION_KINDS)
SELECTION_OF_MODEL = {
    "conceptcard": "concept", "symboltile": "tile", "signcard": "sign_card",
    "signsymbol": "sign_symbol", "signcolour": "sign_colour", "slogancard": "slogan_card",
    "slogan": "slogan", "alfonscard": "alfons", "sauschwerobject": "object",
}
SIDES = [
    ("duplex-long", "Double-sided, flip on the long edge"),
    ("duplex-short", "Double-sided, flip on the short edge"),
    ("fold", "Front and back side by side, to fold"),
    ("separate", "Single-sided: all fronts, then all backs"),
    ("fronts", "Fronts only"),
]


class PrintForm(forms.Form):
    language = forms.ChoiceField()
    release = forms.ChoiceField(help_text="A published release, or the draft built from the "
                                "current content.")
    size = forms.ChoiceField(choices=[*((k, f"{k} ({w:g} × {h:g} mm)") for k, (w, h) in SIZES.items()),
                                      ("custom", "other size…")], initial="poker")
    custom_size = forms.CharField(required=False, label="Other size (W×H mm)",
                                  widget=forms.TextInput(attrs={"placeholder": "60x90"}))
    paper = forms.ChoiceField(choices=[("a4", "A4"), ("letter", "Letter")], initial="a4")
    sides = forms.ChoiceField(choices=SIDES, initial="duplex-long", label="Backs")
    crop_marks = forms.BooleanField(required=False, initial=True)
    cut_lines = forms.BooleanField(required=False)
    bleed = forms.FloatField(initial=3.0, min_value=0, max_value=10, label="Bleed (mm)")
    gap = forms.FloatField(initial=0.0, min_value=0, max_value=50, label="Gap between cards (mm)")
    back_offset = forms.CharField(initial="0,0", label="Front/back offset (X,Y mm)")
    calibration = forms.BooleanField(required=False, label="Add a duplex calibration sheet")
    min_font_size = forms.FloatField(initial=6.0, min_value=3, max_value=30,
                                     label="Smallest text (pt)")
    profile = forms.ChoiceField(required=False, choices=[
        ("", "none: sheets for home printing"),
        ("drivethru", "DriveThruCards: one card per page (PDF)"),
        ("gamecrafter", "The Game Crafter: PNG per card at 300 dpi (zip)"),
    ])
    strict = forms.BooleanField(required=False, label="Refuse missing translations")

    def __init__(self, *args: Any, game: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.game = game
        # the slogan game prints each market's deck too (en-GB: the cards known in the UK)
        self.fields["language"].choices = [(code, edition_label(code, markets=game == Game.SLOGAN))
                                           for code in editions_of_game(game)]
        versions = sorted(set(Release.objects.filter(game=game).values_list("version", flat=True)),
                          reverse=True)
        self.fields["release"].choices = [
            ("draft", "draft (current content)"), ("latest", "newest release"),
            *((str(v), f"release {v}") for v in versions),
        ]
        self.fields["release"].initial = "draft"

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        try:
            size = data["custom_size"] if data["size"] == "custom" else data["size"]
            size_name, size_mm = parse_size(size or "")
            sides = data["sides"]
            options = DeckOptions(
                size=size_mm, size_name=size_name, paper=data["paper"], bleed=data["bleed"],
                gap=data["gap"], crop_marks=data["crop_marks"], cut_lines=data["cut_lines"],
                duplex=sides.split("-")[1] if sides.startswith("duplex") else None,
                fold=sides == "fold", fronts_only=sides == "fronts",
                back_offset=parse_offset(data["back_offset"]),
                calibration=data["calibration"] and sides.startswith("duplex"),
                min_font_size=data["min_font_size"], strict=data["strict"],
            )
            data["options"] = apply_profile(options, data["profile"] or None)
        except OptionError as exc:
            raise forms.ValidationError(str(exc)) from None
        return data


def _require(request: HttpRequest, game: str) -> None:
    # Printing is for Curators (README, "Roles"): it needs the change permission of every
    # content type of the game, drafts and releases alike.
    require(request, print_permissions(game))


def _download(form: PrintForm, selection: Selection | None, stem: str,
              request: HttpRequest | None = None) -> HttpResponse | None:
    """The deck as a download, or None with the problems added to the form.

    With ``request`` (the print page, a whole deck) a big deck goes to the background worker
    instead, and the answer is a redirect to its job page.
    """
    data = form.cleaned_data
    options: DeckOptions = data["options"]
    if selection is not None:
        options = DeckOptions(**{**options.__dict__, "selection": selection})
    try:
        pack = deck_pack(form.game, data["language"], release=data["release"])
        renderer = DeckRenderer(pack, options)  # checks every text: problems show on the form
        if request is not None and selection is None and needs_job(options, renderer):
            job = queue_render(form.game, data["language"], data["release"], options,
                               renderer.report.cards, request.user)
            return HttpResponseRedirect(reverse("admin:exports_job", args=[job.pk]))
        if options.profile == "gamecrafter":
            from exports.pdf.printshop import gamecrafter_pngs, write_zip

            target = io.BytesIO()
            write_zip(gamecrafter_pngs(renderer), target)
            content, content_type, suffix = target.getvalue(), "application/zip", "zip"
        else:
            out = io.BytesIO()
            renderer.render(out)
            content, content_type, suffix = out.getvalue(), "application/pdf", "pdf"
    except DeckError as exc:
        for problem in exc.problems[:20]:
            form.add_error(None, problem)
        if len(exc.problems) > 20:
            form.add_error(None, f"… and {len(exc.problems) - 20} more.")
        return None
    except (PackError, OptionError, NoRoom, RasterError) as exc:
        form.add_error(None, str(exc))
        return None
    version = pack["content_version"]
    filename = f"{stem}-{data['language']}-{'draft' if version == 'draft' else f'release-{version}'}.{suffix}"
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Deck-Warnings"] = str(len(renderer.report.warnings))
    return response


def print_view(site: admin.AdminSite, request: HttpRequest, game: str) -> HttpResponse:
    """A game's print page: choose language, release or draft, and options; get the PDF."""
    if game not in Game.values:
        raise Http404("No such game.")
    _require(request, game)
    form = PrintForm(request.POST or None, game=game)
    if request.method == "POST" and form.is_valid():
        response = _download(form, None, game, request)
        if response is not None:
            return response
    context = {
        **site.each_context(request),
        "title": f"Print {Game(game).label}",
        "game": game,
        "game_label": Game(game).label,
        "form": form,
        "jobs": RenderJob.objects.filter(game=game).select_related("requested_by")[:10],
    }
    return TemplateResponse(request, "admin/exports/print.html", context)


@admin.action(description="Print selected cards", permissions=["print"])
def print_selected_action(modeladmin: admin.ModelAdmin, request: HttpRequest,
                          queryset: Any) -> HttpResponse | None:
    """Admin action: asks for language and options, then prints only the selected cards."""
    model = queryset.model
    kind = SELECTION_OF_MODEL.get(model._meta.model_name)
    game = getattr(model, "GAME", None)
    if kind is None or game is None:
        modeladmin.message_user(request, f"{model._meta.verbose_name_plural} cannot be printed.",
                                messages.ERROR)
        return None
    _require(request, game)
    keys = frozenset(queryset.values_list("key", flat=True))
    form = PrintForm(request.POST if "print" in request.POST else None, game=game)
    if "print" in request.POST and form.is_valid():
        response = _download(form, Selection(kind, keys), f"{game}-selected")
        if response is not None:
            return response
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": f"Print {len(keys)} selected {model._meta.verbose_name_plural}",
        "form": form,
        "objects": queryset.order_by("key")[:50],
        "count": len(keys),
        "opts": model._meta,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "selected": queryset.values_list("pk", flat=True),
        "action": "print_selected_action",
    }
    return TemplateResponse(request, "admin/exports/print_selected.html", context)


def job_view(site: admin.AdminSite, request: HttpRequest, pk: int) -> HttpResponse:
    """A background deck: progress while it renders (the page reloads itself), then the file."""
    job = get_object_or_404(RenderJob, pk=pk)
    _require(request, job.game)
    recent = RenderJob.objects.filter(game=job.game).exclude(pk=job.pk).select_related(
        "requested_by")[:10]
    context = {
        **site.each_context(request),
        "title": f"Print {job.get_game_display()}: job {job.pk}",
        "job": job,
        "recent": recent,
        "refresh": not job.finished,
    }
    return TemplateResponse(request, "admin/exports/job.html", context)


def job_download(site: admin.AdminSite, request: HttpRequest, pk: int) -> HttpResponse:
    """The finished file, read through the storage it was kept in (folder or object store)."""
    job = get_object_or_404(RenderJob, pk=pk)
    _require(request, job.game)
    if job.status != RenderJob.Status.DONE or not job.file:
        raise Http404("This job has no file (yet).")
    content_type = "application/zip" if job.kind == "zip" else "application/pdf"
    from exports.jobs import deck_storage

    return FileResponse(deck_storage().open(job.file.name, "rb"), as_attachment=True,
                        filename=job.filename,
                        content_type=content_type)
