"""Card previews in the admin: on every card's change page, as a list column, by URL.

``CardPreviewMixin`` (on ContentAdmin) mounts three views under each content admin, so
KARTOTHEK_ADMIN_PATH and the admin's login apply, and every one needs view permission on
that content type:

- GET  ``<model>/preview/<language>/<key>/?side=back&release=3&width=240``: the PNG of a
  saved card (``release``: as it was in that release, drawn from the release's pack);
- POST ``<model>/preview/``: the change form's unsaved data → JSON with the URLs of the
  previews and the "does not fit" messages. CSRF-protected; it never saves a form. A
  symbol tile's picture chosen on the form comes along once: checked as the save checks it
  and kept for an hour in a folder of its own (``cards.pictures.keep_preview_picture``),
  never among the tiles' pictures, for those who may add or change tiles;
- GET  ``<model>/preview/typed/?d=…``: the PNG of such unsaved data, signed by the POST
  (the Content-Security-Policy allows images from this site only: no data: or blob: URLs).
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import models
from django.db.models import Model
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_POST

from cards.text import whole_number
from exports import card_items, preview
from exports.card_items import GROUPS
from exports.preview import PreviewError

SALT = "kartothek.card-preview"
SIGNED_MAX_AGE = 24 * 3600
MAX_TEXT = 2000             # characters of a typed text that are drawn (fields allow far fewer)
MAX_SIGNED = 8000           # characters of a typed preview's signed data (a slogan card: ~1,500)
THUMB_WIDTH, LARGE_WIDTH, PAGE_WIDTH = 44, 240, 200
GROUP_OF_MODEL = {model: group for group, (_game, model, _label) in GROUPS.items()}
TRANSLATION_ROW = re.compile(
    r"^(?P<prefix>.*translation[^-]*(?:-content_type-object_id)?)-(?P<n>\d+)-"
    r"(?P<name>language|field|text|DELETE)$")


def _png(data: bytes, *, immutable: bool = False, etag: str = "") -> HttpResponse:
    """A preview PNG. Private: a draft card is staff-only. A URL whose content cannot change
    (a release, signed typed data) is kept by the browser; a saved card's URL names the card,
    not its content, so the browser asks again each time and gets a 304 while it is unchanged."""
    response = HttpResponse(data, content_type="image/png")
    response["Cache-Control"] = "private, max-age=86400, immutable" if immutable else "private, no-cache"
    if etag:
        response["ETag"] = etag
    response["X-Content-Type-Options"] = "nosniff"
    return response


def _problem(message: str, status: int = 404) -> HttpResponse:
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


def _languages(raw: list[str]) -> list[str]:
    known = settings.KARTOTHEK_LANGUAGES
    chosen = [code for code in raw if code in known] or known[:2]
    return list(dict.fromkeys(chosen))[:4]


def _typed_texts(entry: Any) -> list[str]:
    """The texts typed into a card's item (names, texts, slogans, options), the key aside."""
    if isinstance(entry, dict):
        return [t for name, value in entry.items() if name != "key" for t in (
            [value] if name in ("text", "name") and isinstance(value, str) and value.strip()
            else _typed_texts(value))]
    if isinstance(entry, list):
        return [t for value in entry for t in _typed_texts(value)]
    return []


LANGUAGE_NAMES = {"de": "German", "en": "English", "fr": "French", "it": "Italian",
                  "es": "Spanish", "nl": "Dutch", "pl": "Polish"}


def _card_markets(model: type[Model], obj: Model | None, post: Any) -> list[str] | None:
    """The markets of a slogan card's two slogans, as typed (``post``) or stored."""
    from cards.models import markets_or_source

    if model._meta.model_name != "slogancard":
        return None
    if post is not None and any(f"slogans-{n}-markets" in post for n in range(2)):
        return [markets_or_source(post.get(f"slogans-{n}-markets", "")) for n in range(2)]
    if obj is not None and obj.pk:
        return [s.markets for s in obj.slogans.all()]  # type: ignore[attr-defined]
    return None


def _known(markets: list[str]) -> str:
    from cards.models import market_list

    return "; ".join(f"slogan {n}: {', '.join(market_list(m)) or '—'}"
                     for n, m in enumerate(markets, start=1))


def not_in_deck(model: type[Model], obj: Model | None, language: str,
                post: Any = None) -> str | None:
    """Why a slogan card is drawn in no deck of ``language`` (its slogans are not both known
    in one market of it), or None. ``post``: the change form as typed (else the stored card)."""
    from cards.models import cards_in_market, editions_of, in_edition

    markets = _card_markets(model, obj, post)
    if markets is None or language == settings.KARTOTHEK_LANGUAGES[0]:
        return None
    shared = cards_in_market([("card", m) for m in markets]).get("card", set())
    if any(in_edition(shared, edition) for edition in editions_of(language)):
        return None
    name = LANGUAGE_NAMES.get(language, language.upper())
    return (f"Not in the {name} deck: a card is printed only where both its slogans are known "
            f"({_known(markets)}). Add “{language}” to both slogans' markets to print it in {name}.")


def decks_note(model: type[Model], obj: Model | None, language: str,
               post: Any = None) -> str | None:
    """Which markets' decks of ``language`` hold a slogan card when it is not all of them
    ("In the US deck only …"), or None (all of them, none, or a language of one market)."""
    from cards.models import MARKET_NAMES, REGIONAL_MARKETS, cards_in_market, in_edition

    markets = _card_markets(model, obj, post)
    regions = REGIONAL_MARKETS.get(language, ())
    if markets is None or not regions:
        return None
    shared = cards_in_market([("card", m) for m in markets]).get("card", set())
    inside = [r for r in regions if in_edition(shared, f"{language}-{r}")]
    if not inside or len(inside) == len(regions):
        return None
    names = " and ".join(MARKET_NAMES.get(r, r) for r in inside)
    outside = " and ".join(MARKET_NAMES.get(r, r) for r in regions if r not in inside)
    return (f"In the {names} deck only, not in the {outside} deck ({_known(markets)}); "
            f"mark both slogans “{language}” to print it in every market.")


def _picture_fields(model: Model | type[Model]) -> list[str]:
    """The names of a model's picture fields (a symbol tile's ``image``)."""
    return [f.name for f in model._meta.concrete_fields if isinstance(f, models.ImageField)]


def _drawn_picture(digest: str) -> bytes | None:
    """The bytes of a picture a typed preview names: one chosen on a form and kept for the
    preview, or a stored tile's (each checked against its sha256)."""
    from cards.pictures import preview_picture
    from exports.packs import picture_bytes

    return preview_picture(digest) or picture_bytes(digest)


def typed_overrides(post: Any) -> dict[tuple[str, str], str]:
    """Translations typed into the change page's translations inline: (field, language) →
    text (rows marked for deletion left out)."""
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for name in post:
        match = TRANSLATION_ROW.match(name)
        if match:
            rows.setdefault((match["prefix"], match["n"]), {})[match["name"]] = post.get(name, "")
    found: dict[tuple[str, str], str] = {}
    for row in rows.values():
        if row.get("DELETE") or not row.get("language") or not row.get("field"):
            continue
        found[(row["field"], row["language"])] = row.get("text", "")[:MAX_TEXT]
    return found


def item_from_form(model_admin: Any, request: HttpRequest, obj: Model | None, language: str,
                   picture: bytes | None = None) -> dict[str, Any] | None:
    """The pack-form item of a change form's unsaved data (``request.POST``, as the page
    would send it; ``obj`` the stored card or None on an add page), in ``language``;
    ``picture``: a tile's picture chosen on the form (checked, kept for the preview).
    Nothing is saved."""
    typed = CardPreviewMixin._typed_instance(model_admin, request, obj, picture)
    if model_admin.model._meta.model_name == "slogancard":
        return CardPreviewMixin._typed_slogans(model_admin, request, typed, language)
    return card_items.item_of(typed, language, typed_overrides(request.POST))


class CardPreviewMixin:
    """For a ContentAdmin: preview URLs, the change page's preview panel, a list column."""

    model: type[Model]
    admin_site: Any

    # Its own template, on top of import-export's (which keeps the change page's Export button).
    change_form_template = "admin/cards/change_form.html"

    class Media:
        css = {"all": ["curation/preview.css"]}
        js = ["curation/preview.js"]

    # --- URLs ------------------------------------------------------------------------

    def get_urls(self):  # type: ignore[no-untyped-def]
        info = f"{self.model._meta.app_label}_{self.model._meta.model_name}"
        wrap = self.admin_site.admin_view
        own = [
            path("preview/", wrap(self.form_preview_view), name=f"{info}_form_preview"),
            # cacheable: the PNGs set their own Cache-Control (the admin's never_cache would
            # make the browser fetch every thumbnail of a list again on each visit)
            path("preview/typed/", wrap(self.typed_preview_view, cacheable=True),
                 name=f"{info}_typed_preview"),
            path("preview/<str:language>/<str:key>/", wrap(self.card_preview_view, cacheable=True),
                 name=f"{info}_card_preview"),
        ]
        return own + super().get_urls()  # type: ignore[misc]

    def _may_view(self, request: HttpRequest) -> None:
        if not self.has_view_or_change_permission(request):  # type: ignore[attr-defined]
            raise PermissionDenied

    def _side_and_width(self, request: HttpRequest, default: int = preview.DEFAULT_WIDTH
                        ) -> tuple[str, int]:
        side = request.GET.get("side", "front")
        width = whole_number(request.GET.get("width", default))
        if width is None:
            raise PreviewError("The preview width must be a whole number of pixels.")
        return side, width

    @property
    def preview_group(self) -> str | None:
        return GROUP_OF_MODEL.get(self.model._meta.model_name or "")

    # --- a saved card, now or in a release ----------------------------------------------

    def card_preview_view(self, request: HttpRequest, language: str, key: str) -> HttpResponse:
        self._may_view(request)
        if request.method != "GET":
            return HttpResponse(status=405, headers={"Allow": "GET"})
        try:
            side, width = self._side_and_width(request)
            release = request.GET.get("release")
            game = str(self.model.GAME)  # type: ignore[attr-defined]
            if release:
                item = self._release_item(game, language, key, release)
            else:
                obj = self.model._default_manager.filter(key=key).first()
                if obj is None:
                    return _problem(f"There is no {self.model._meta.verbose_name} '{key}'.")
                item = card_items.item_of(obj, language)
            if item is None:
                return _problem(f"{self.model._meta.verbose_name} '{key}' is on no card yet.")
            etag = f'"{preview.content_hash(game, item, language, side, width)}"'
            if etag in request.headers.get("If-None-Match", ""):
                not_modified = HttpResponse(status=304)
                not_modified["ETag"] = etag
                not_modified["Cache-Control"] = "private, no-cache"
                return not_modified
            return _png(preview.card_preview(game, item, language, side=side, width_px=width),
                        immutable=bool(release), etag=etag)
        except PreviewError as exc:
            return _problem(str(exc), 422)

    def _release_item(self, game: str, language: str, key: str, release: str) -> dict[str, Any]:
        from exports.errors import PackError
        from exports.packs import load_pack

        group = self.preview_group
        if group is None:
            raise PreviewError(f"A release holds cards, not a {self.model._meta.verbose_name}.")
        try:
            number = int(release)
            pack = load_pack(game, language, release=number)
        except (ValueError, PackError) as exc:
            raise PreviewError(f"Release {release!r}: {exc}") from None
        item = card_items.item_from_pack(pack, key, group)
        if item is None:
            raise PreviewError(f"Release {number} of {game} ({language}) has no card '{key}'.")
        return item

    # --- unsaved form data -------------------------------------------------------------

    @staticmethod
    def _typed_instance(model_admin: Any, request: HttpRequest, obj: Model | None,
                        picture: bytes | None = None) -> Model:
        """The object with the form's typed values set on it (each field cleaned on its own;
        a value that does not clean keeps the stored one), and a tile with the picture
        chosen (or cleared) on the form. Never saved."""
        instance = obj if obj is not None else model_admin.model()
        form_class = model_admin.get_form(request, obj, change=obj is not None)
        form = form_class(instance=instance)
        model_fields = {f.name for f in instance._meta.concrete_fields if f.editable}
        for name, field in form.fields.items():
            if name not in model_fields or name not in request.POST:
                continue
            if getattr(field.widget, "input_type", "") == "file":
                continue
            raw = field.widget.value_from_datadict(request.POST, {}, name)
            try:
                value = field.clean(raw)
            except ValidationError:
                # A text the form will refuse (too long, say) is still drawn: seeing that
                # it does not fit is the point. Anything else keeps the stored value.
                if not (isinstance(raw, str) and instance._meta.get_field(name).get_internal_type()
                        in ("CharField", "TextField")):
                    continue
                value = raw.strip()[:MAX_TEXT]
            setattr(instance, name, value)
        if hasattr(instance, "show_picture"):
            if picture is not None:
                instance.show_picture(picture)
            elif any(request.POST.get(f"{name}-clear") for name in _picture_fields(instance)):
                instance.show_picture(None)
        return instance

    @staticmethod
    def _typed_slogans(model_admin: Any, request: HttpRequest, card: Model | None, language: str
                       ) -> dict[str, Any]:
        from curation.typed_slogans import typed_slogans

        slogans = [((s.key, s.text, s.keep_german, s.options, {}), s.stored)
                   for s in typed_slogans(request.POST, card)]  # type: ignore[arg-type]
        key = request.POST.get("key") or (getattr(card, "key", "") or "new-card")
        return card_items.slogan_card_item(key, slogans, language)

    def form_preview_view(self, request: HttpRequest) -> HttpResponse:
        """POST: the change form as typed → {"previews": [...], "problems": [...]}."""
        self._may_view(request)
        return require_POST(self._form_preview)(request)

    def _form_preview(self, request: HttpRequest) -> HttpResponse:
        post = request.POST
        object_id = post.get("_preview_object_id", "")
        obj = None
        if object_id:
            obj = self.get_object(request, object_id)  # type: ignore[attr-defined]
            if obj is None:
                return JsonResponse({"error": "This card is no longer there."}, status=404)
        width = whole_number(post.get("_preview_width", PAGE_WIDTH)) or PAGE_WIDTH
        width = max(preview.MIN_WIDTH, min(preview.MAX_WIDTH, width))
        picture, about_picture = self._chosen_picture(request, obj)
        answer = self.typed_answer(request, obj, _languages(post.getlist("_preview_language")),
                                   width, picture)
        return JsonResponse({**answer, **about_picture, **self.typed_extras(request, obj)})

    def _chosen_picture(self, request: HttpRequest, obj: Model | None
                        ) -> tuple[bytes | None, dict[str, str]]:
        """A tile's picture chosen on the form, not saved: the file sent with this request
        (checked as the save checks it, then kept for the preview under its sha256), or the
        sha256 of one kept before (``_preview_picture``). Returns its bytes and, for the
        page, its sha256 (``picture``) or why it cannot be drawn (``picture_error``)."""
        from cards.pictures import keep_preview_picture, preview_picture

        fields = _picture_fields(self.model)
        if not fields:
            return None, {}
        may_edit = (self.has_add_permission(request) if obj is None  # type: ignore[attr-defined]
                    else self.has_change_permission(request, obj))  # type: ignore[attr-defined]
        if not may_edit:
            return None, {}  # who may only look at a tile has no picture to try
        upload = next((request.FILES[name] for name in fields if name in request.FILES), None)
        if upload is not None:
            try:
                digest = keep_preview_picture(upload)
            except ValidationError as exc:
                return None, {"picture_error": f"The chosen picture cannot be used: {' '.join(exc.messages)}"}
            return preview_picture(digest), {"picture": digest}
        digest = request.POST.get("_preview_picture", "")
        if not digest:
            return None, {}
        data = preview_picture(digest)
        if data is None:
            return None, {"picture_error": "The chosen picture is no longer kept for the preview: "
                                           "choose the file again."}
        return data, {"picture": digest}

    def typed_extras(self, request: HttpRequest, obj: Model | None) -> dict[str, Any]:
        """More of the live preview's answer, for an admin that checks more while typing."""
        return {}

    def typed_answer(self, request: HttpRequest, obj: Model | None, languages: list[str],
                     width: int, picture: bytes | None = None) -> dict[str, Any]:
        """What the preview shows for the change form as ``request.POST`` holds it (``obj``:
        the stored card, None on an add page): {"previews", "problems", "notice", "absent",
        "decks"}. The live preview's answer, and a refused save's page, which starts from
        what was typed, not from the stored card."""
        post = request.POST
        game = str(self.model.GAME)  # type: ignore[attr-defined]
        url = reverse(f"admin:{self.model._meta.app_label}_{self.model._meta.model_name}_typed_preview")
        previews, problems, notices = [], [], []
        absent, decks = [], []
        for language in languages:
            item = item_from_form(self, request, obj, language, picture)
            if item is None:
                continue
            note = decks_note(self.model, obj, language, post)
            if note:
                decks.append({"language": language, "message": note})
            reason = not_in_deck(self.model, obj, language, post)
            if reason and _typed_texts(item["entry"]):
                # drawn, it would show German text as if it were the English card
                absent.append({"language": language, "message": reason})
                continue
            if obj is None and not _typed_texts(item["entry"]):
                # A new, empty form: nothing is wrong yet, there is just nothing to draw.
                notices.append("Fill in the card to see its preview.")
                continue
            problems += [{"language": language, "message": m}
                         for m in preview.item_problems(item, language)]
            for side in preview.SIDES:
                try:
                    preview.card_preview(game, item, language, side=side, width_px=width,
                                         pictures=_drawn_picture)
                except PreviewError as exc:
                    # Not a "does not fit": the card is incomplete, the same in every language.
                    notices.append(str(exc))
                    break
                signed = signing.dumps({"g": game, "i": item, "l": language, "s": side, "w": width},
                                       salt=SALT, compress=True)
                previews.append({"language": language, "side": side, "url": f"{url}?d={signed}",
                                 "alt": preview.alt_text(item, language, side)})
        notice = " ".join(dict.fromkeys(notices))  # each reason once, not once per language
        return {"previews": previews, "problems": problems, "notice": notice,
                "absent": absent, "decks": decks}

    def typed_preview_view(self, request: HttpRequest) -> HttpResponse:
        self._may_view(request)
        return require_GET(self._typed_png)(request)

    def _typed_png(self, request: HttpRequest) -> HttpResponse:
        raw = request.GET.get("d", "")
        if len(raw) > MAX_SIGNED:
            return HttpResponseBadRequest("This preview is too big.")
        try:
            data = signing.loads(raw, salt=SALT, max_age=SIGNED_MAX_AGE)
        except signing.BadSignature:
            return _problem("This preview has expired or was not made here; type again.", 400)
        if data.get("g") != str(self.model.GAME):  # type: ignore[attr-defined]
            return _problem("This preview belongs to another game.", 400)
        try:
            return _png(preview.card_preview(data["g"], data["i"], data["l"], side=data["s"],
                                             width_px=data["w"], pictures=_drawn_picture),
                        immutable=True)
        except PreviewError as exc:
            return _problem(str(exc), 422)

    # --- the change page ----------------------------------------------------------------

    def _preview_context(self, request: HttpRequest, obj: Model | None) -> dict[str, Any]:
        opts = self.model._meta
        shown = _languages(request.GET.getlist("preview_language"))
        if request.method == "POST":
            shots = self._typed_shots(request, obj, shown)
        else:
            shots = self._stored_shots(obj, shown)
        return {"card_preview": {
            "post_url": reverse(f"admin:{opts.app_label}_{opts.model_name}_form_preview"),
            "object_id": obj.pk if obj is not None else "",
            "languages": settings.KARTOTHEK_LANGUAGES, "shown": shown, **shots,
            "width": PAGE_WIDTH, "height": preview.height_for(PAGE_WIDTH),
        }}

    def _stored_shots(self, obj: Model | None, shown: list[str]) -> dict[str, Any]:
        """The card as it is stored: its saved previews' URLs and what does not fit."""
        opts = self.model._meta
        initial, problems, absent, decks = [], [], [], []
        if obj is not None and getattr(obj, "key", None):
            for language in shown:
                note = decks_note(self.model, obj, language)
                if note:
                    decks.append({"language": language, "message": note})
                reason = not_in_deck(self.model, obj, language)
                if reason:
                    absent.append({"language": language, "message": reason})
                    continue
                item = card_items.item_of(obj, language)
                if item is None:
                    continue
                problems += [{"language": language, "message": m}
                             for m in preview.item_problems(item, language)]
                for side in preview.SIDES:
                    initial.append({"language": language, "side": side,
                                    "url": reverse(f"admin:{opts.app_label}_{opts.model_name}_card_preview",
                                                   args=[language, obj.key])
                                    + f"?side={side}&width={PAGE_WIDTH}"})
        return {"initial": initial, "problems": problems, "absent": absent, "decks": decks,
                "notice": ""}

    def _typed_shots(self, request: HttpRequest, obj: Model | None, shown: list[str]
                     ) -> dict[str, Any]:
        """A refused save's page: the card as typed (the POST), as the live preview drew it."""
        if obj is not None and obj.pk:
            # the form's validation set the valid typed values on ``obj``: start from the row
            obj = self.model._default_manager.filter(pk=obj.pk).first()
        answer = self.typed_answer(request, obj, shown, PAGE_WIDTH)
        return {"initial": answer["previews"], "problems": answer["problems"],
                "absent": answer["absent"], "decks": answer["decks"], "notice": answer["notice"]}

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):  # type: ignore[no-untyped-def]
        # Here, not in change_view: only a page that is shown (a GET, or a refused save)
        # draws its preview, and a refused save draws what was typed.
        if add or obj is not None:
            context.update(self._preview_context(request, obj))
        return super().render_change_form(request, context, add, change, form_url, obj)  # type: ignore[misc]

    # --- the list column ---------------------------------------------------------------

    def get_list_display(self, request: HttpRequest):  # type: ignore[no-untyped-def]
        columns = list(super().get_list_display(request))  # type: ignore[misc]
        if self.preview_group is not None and "card_thumbnail" not in columns:
            columns.insert(0, "card_thumbnail")
        return columns

    def card_thumbnail(self, obj: Model):  # type: ignore[no-untyped-def]
        opts = self.model._meta
        base = reverse(f"admin:{opts.app_label}_{opts.model_name}_card_preview",
                       args=[settings.KARTOTHEK_LANGUAGES[0], obj.key])  # type: ignore[attr-defined]
        label = f"{opts.verbose_name} {obj.key}"  # type: ignore[attr-defined]
        return format_html(
            '<span class="card-thumb" tabindex="0" role="img" aria-label="Preview of {}">'
            '<img src="{}?width={}" alt="" width="{}" height="{}" loading="lazy" decoding="async">'
            '<img class="card-thumb-large" src="{}?width={}" alt="Preview of {} (front)" '
            'width="{}" height="{}" loading="lazy" decoding="async"></span>',
            # drawn at twice the size it is shown: sharp on high-density screens
            label, base, 2 * THUMB_WIDTH, THUMB_WIDTH, preview.height_for(THUMB_WIDTH),
            base, LARGE_WIDTH, label, LARGE_WIDTH, preview.height_for(LARGE_WIDTH),
        )

    card_thumbnail.short_description = "card"  # type: ignore[attr-defined]
