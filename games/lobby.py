"""The play lobby (``/play/``): pick a game and a published pack, set the options, open a room;
and joining a room by its code.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from cards.text import whole_number
from games import rooms
from games.clients import client_of
from games.pages import (
    COOKIE_AGE,
    NAME_MAX,
    TABLE_PREFIX,
    add_device_token,
    give_seat,
    is_curator,
    player_language,
)
from games.ratelimit import allow
from games.screens import GAME_NAMES

# --- opening a room ------------------------------------------------------------------------


class FormError(Exception):
    """A field of the form is wrong; the message is for the player."""


def _int_field(post: Any, name: str, label: str, *, minimum: int = 1, maximum: int = 999) -> int | None:
    raw = (post.get(name) or "").strip()
    if not raw:
        return None
    value = whole_number(raw)
    if value is None:
        raise FormError(_("%(label)s must be a whole number.") % {"label": label})
    if not minimum <= value <= maximum:
        raise FormError(_("%(label)s must be between %(min)s and %(max)s.")
                        % {"label": label, "min": minimum, "max": maximum})
    return value


def options_from_form(game: str, post: Any, pack: dict[str, Any] | None) -> dict[str, Any]:
    """The engine options a room form asks for (the engine checks them again at the start)."""
    options: dict[str, Any] = {}
    if game == "symbols":
        if post.get("grey_markers"):
            options["grey_markers"] = True
        board = _symbols_board(post, pack)
        if board is not None:
            options["symbols"] = board
    elif game == "sauschwer":
        for name, label, maximum in (("rounds", _("Rounds"), 50),
                                     ("target_points", _("Target points"), 500)):
            value = _int_field(post, f"sauschwer_{name}", label, maximum=maximum)
            if value is not None:
                options[name] = value
        side = post.get("opening_side", "")
        if side in ("red", "violet"):
            options["opening_side"] = side
    elif game == "sign":
        length = post.get("sign_length", "points")
        if length == "rounds":
            value = _int_field(post, "sign_rounds", _("Rounds"), maximum=99)
            if value is not None:
                options["rounds"] = value
        else:
            value = _int_field(post, "sign_points", _("Target points"), maximum=99)
            if value is not None:
                options["target_points"] = value
    return options


def _symbols_board(post: Any, pack: dict[str, Any] | None) -> list[str] | None:
    """The extra-tiles variant: each chosen extra tile covers the base tile named beside it."""
    if pack is None:
        return None
    tiles = sorted(pack.get("body", {}).get("symbols", []), key=lambda t: t.get("position", 0))
    base = [t["key"] for t in tiles if not t.get("extra")]
    board = list(base)
    covered: set[str] = set()
    for tile in tiles:
        if not tile.get("extra"):
            continue
        target = post.get(f"cover_{tile['key']}", "")
        if not target:
            continue
        if target not in base:
            raise FormError(_("An extra tile can only cover a tile of the base board."))
        if target in covered:
            raise FormError(_("Two extra tiles cannot cover the same tile."))
        covered.add(target)
        board[board.index(target)] = tile["key"]
    return board if covered else None


def _releases() -> list[dict[str, Any]]:
    from exports.models import Release

    return [
        {"game": game, "language": language, "version": version}
        for game, language, version in Release.objects.order_by("game", "language", "-version")
        .values_list("game", "language", "version")
    ]


def _tiles_for_form(language: str) -> dict[str, list[dict[str, Any]]]:
    """The symbol tiles (base and extra) for the variant's choice, from the catalogue, named
    as the newest release in the page's language names them (the catalogue's names are German)."""
    from cards.models import SymbolTile
    from exports.errors import PackError
    from exports.packs import load_pack

    tiles = list(SymbolTile.objects.order_by("position", "key").values("key", "name", "is_extra"))
    try:
        pack = load_pack("symbols", language, release="latest")
    except (PackError, ValueError):
        pack = {}
    names = {t.get("key"): t.get("name") for t in pack.get("body", {}).get("symbols", [])}
    for tile in tiles:
        tile["name"] = names.get(tile["key"]) or tile["name"]
    return {"base": [t for t in tiles if not t["is_extra"]], "extra": [t for t in tiles if t["is_extra"]]}


GAMES = [
    ("symbols", 3, 6), ("sign", 4, 9), ("slogan", 2, 6), ("sauschwer", 2, 8),
]


@player_language
def lobby(request: HttpRequest) -> HttpResponse:
    """``/play/``: open a room, or join one by its code."""
    error = None
    status = 200
    if request.method == "POST" and not allow(request):
        error, status = _("Too many rooms or joins from here in a minute; wait a moment."), 429
    elif request.method == "POST":
        try:
            return _open_room(request)
        except (FormError, rooms.PlayError, ValueError) as exc:
            error = str(exc)
            status = getattr(exc, "status", 400)
    curator = is_curator(request.user)
    languages = list(getattr(settings, "KARTOTHEK_LANGUAGES", ["de", "en"]))
    return render(request, "play/lobby.html", {
        "games": [{"slug": slug, "name": GAME_NAMES[slug], "min": lo, "max": hi} for slug, lo, hi in GAMES],
        "languages": languages,
        "releases": _releases(),
        "curator": curator,
        "tiles": _tiles_for_form(request.LANGUAGE_CODE),
        "error": error,
        "form": request.POST if request.method == "POST" else {},
        "default_language": request.LANGUAGE_CODE if request.LANGUAGE_CODE in languages else languages[0],
        "markets": _market_choices(request),
    }, status=status)


def _market_choices(request: HttpRequest) -> list[dict[str, Any]]:
    """The English Slogan decks a host can choose, the browser's own market first chosen
    (en-GB in Accept-Language: the UK; otherwise the US)."""
    from cards.models import REGIONAL_MARKETS

    accepted = request.headers.get("Accept-Language", "").replace("_", "-").lower()
    default = "GB" if "en-gb" in accepted and ("en-us" not in accepted
                                               or accepted.index("en-gb") < accepted.index("en-us")) else "US"
    if request.method == "POST" and "market" in request.POST:  # the form again, as sent
        default = request.POST.get("market", "")
    names = {"GB": _("UK slogans (players in the UK)"), "US": _("US slogans (players in the US)")}
    choices = [{"language": language, "code": code, "label": names.get(code, code),
                "selected": code == default}
               for language, codes in REGIONAL_MARKETS.items() for code in codes]
    return [*choices, *({"language": language, "code": "", "selected": False,
                         "label": _("Slogans known in both (a smaller deck)")}
                        for language in REGIONAL_MARKETS)]


def _open_room(request: HttpRequest) -> HttpResponse:
    post = request.POST
    game = post.get("game", "")
    if game not in GAME_NAMES:
        raise FormError(_("Choose a game."))
    language = post.get("language", "")
    name = (post.get("name") or "").strip()
    table_only = bool(post.get("table_only")) and not post.get("pass_and_play")
    if table_only and not name:
        name = _("Table")
    if not name:
        raise FormError(_("Tell the others your name."))
    if len(name) > NAME_MAX:
        raise FormError(_("A name has at most %(n)s characters.") % {"n": NAME_MAX})
    release: int | str = post.get("release") or "latest"
    if release not in ("latest", "draft"):
        try:
            release = int(release)
        except (TypeError, ValueError):
            raise FormError(_("Choose a release.")) from None
    pack = None
    if game == "symbols":
        from exports.errors import PackError
        from exports.packs import load_pack

        try:
            pack = load_pack(game, language, release=release if release != "draft" else "draft")
        except (PackError, ValueError):
            pack = None
    options = options_from_form(game, post, pack)
    seed = None
    if is_curator(request.user):
        seed = (post.get("seed") or "").strip() or None
        stack = (post.get("stack") or "").strip()
        if stack:
            try:
                options["stack"] = json.loads(stack)
            except ValueError:
                raise FormError(_("The stack must be JSON, e.g. {\"cards\": [\"key\", …]}.")) from None
    timer = _int_field(post, "turn_timer", _("Turn timer"), minimum=0, maximum=3600) or 0
    # An English Slogan room plays the deck of the market the host chose (UK or US slogans).
    market = (post.get("market") or None) if game == "slogan" else None
    room, seat = rooms.open_room(
        game=game, language=language, release=release, options=options, name=name,
        user=request.user if request.user.is_authenticated else None, seed=seed,
        pass_and_play=bool(post.get("pass_and_play")), turn_timer=timer, seat=not table_only,
        market=market, client=client_of(request),
    )
    if table_only:
        # This device is the table: no seat; its host token lets it give the controls to a phone.
        response = redirect("play:table", code=room.code)
        response.set_cookie(TABLE_PREFIX + room.code, room.table_token,  # type: ignore[attr-defined]
                            max_age=COOKIE_AGE, httponly=True, samesite="Lax")
        return response
    response = redirect("play:room", code=room.code)
    give_seat(response, room, seat.token)
    if room.pass_and_play:
        add_device_token(request, response, room, seat.token)
    return response


@require_GET
def join_by_code(request: HttpRequest) -> HttpResponse:
    code = rooms.typed_code(request.GET.get("code") or "")  # one lookup: the join page's
    if not code:
        return redirect("play:lobby")
    return redirect("play:join", code=code)
