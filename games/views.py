"""The play mode's pages (mounted at ``/play/``): open a room, join, the seat and table screens.

The pages are thin over ``games.rooms``: every screen is rendered from
``rooms.snapshot(room, seat)`` (``None`` for the table), and the script on the page plays
through the JSON API (``/api/play/…``) like any other client. A browser proves its seat with
the cookie ``kt_seat_<CODE>``; a pass-and-play device also keeps the tokens of every seat it
holds in ``kt_pp_<CODE>`` and hands the seat cookie to whoever holds the device.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games import engines, rooms
from games.models import Room, Seat
from games.ratelimit import allow, allow_write, too_many
from games.screens import GAME_NAMES, describe_events, present

COOKIE_PREFIX = "kt_seat_"
DEVICE_PREFIX = "kt_pp_"
TABLE_PREFIX = "kt_table_"  # a table-only room's host token on the table device
COOKIE_AGE = 7 * 24 * 3600
LANGUAGES = (("en", "English"), ("de", "Deutsch"))
NAME_MAX = 40


# --- language ----------------------------------------------------------------------------


def player_language(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Render in the player's language (cookie, then the browser's), German or English.

    Only the play pages switch language: the admin keeps its own setting.
    """

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) or ""
        if language not in dict(LANGUAGES):
            language = translation.get_language_from_request(request)
            language = language if language in dict(LANGUAGES) else "en"
        with translation.override(language):
            request.LANGUAGE_CODE = language
            try:
                response = view(request, *args, **kwargs)
            except RoomMissing as missing:
                # A wrong or expired code: a play page with the way back, never Django's 404
                # (the same with DEBUG on and off).
                response = render(request, "play/not_found.html", {"message": str(missing)}, status=404)
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response.render()
        response.headers.setdefault("Content-Language", language)
        return response

    return wrapped


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    language = request.POST.get("language", "")
    back = request.POST.get("next") or reverse("play:lobby")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = reverse("play:lobby")
    response = redirect(back)
    if language in dict(LANGUAGES):
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=365 * 24 * 3600,
                            samesite="Lax")
    return response


# --- seats and packs ---------------------------------------------------------------------


def _seat_of(request: HttpRequest, room: Room) -> Seat | None:
    token = request.COOKIES.get(COOKIE_PREFIX + room.code)
    return rooms.seat_for_token(room, token) if token else None


def _device_tokens(request: HttpRequest, room: Room) -> list[str]:
    raw = request.COOKIES.get(DEVICE_PREFIX + room.code, "")
    return [token for token in raw.split(".") if token][:12]


def _device_seats(request: HttpRequest, room: Room) -> list[Seat]:
    """The seats this pass-and-play device holds (the host's first)."""
    seats = []
    for token in _device_tokens(request, room):
        seat = rooms.seat_for_token(room, token)
        if seat is not None and seat not in seats:
            seats.append(seat)
    return seats


def _give_seat(response: HttpResponse, room: Room, token: str) -> None:
    response.set_cookie(COOKIE_PREFIX + room.code, token, max_age=COOKIE_AGE, httponly=True,
                        samesite="Lax")


def _add_device_token(request: HttpRequest, response: HttpResponse, room: Room, token: str) -> None:
    tokens = [*_device_tokens(request, room), token]
    response.set_cookie(DEVICE_PREFIX + room.code, ".".join(tokens), max_age=COOKIE_AGE,
                        httponly=True, samesite="Lax")


def pack_of(room: Room) -> dict[str, Any]:
    """The pack the room was opened with (a release, or a curator's pinned draft), its cards
    keyed by the room's card ids as in the room's views (games/cardids.py)."""
    return rooms.card_maps(room)[2]


def is_curator(user: Any) -> bool:
    return bool(user.is_authenticated and user.is_active and user.is_staff and rooms.is_curator(user))


class RoomMissing(Http404):
    """No room has that code (or it expired): the play pages answer with play/not_found.html."""


def _room_or_404(code: str) -> Room:
    try:
        return rooms.get_room(code)
    except rooms.NoRoom:
        raise RoomMissing(_("There is no room %(code)s (or it has expired).") % {"code": code}) from None


def _table_host(request: HttpRequest, room: Room) -> bool:
    """Whether this browser is the table device that opened a table-only room."""
    return rooms.is_table_token(room, request.COOKIES.get(TABLE_PREFIX + room.code))


# --- rendering a room ----------------------------------------------------------------------


def _qr_svg(url: str) -> str:
    import segno

    qr = segno.make(url, error="m")
    # omitsize: a viewBox only, so the stylesheet sizes it (small on a phone, huge on a TV).
    svg: str = qr.svg_inline(scale=6, dark="#1b1a2e", light="#ffffff", border=2, omitsize=True,
                             title=_("QR code to join"))
    return svg


def _join_url(request: HttpRequest, room: Room) -> str:
    return request.build_absolute_uri(reverse("play:join", args=[room.code]))


def _common(request: HttpRequest, room: Room, seat: Seat | None, snap: dict[str, Any]) -> dict[str, Any]:
    game_name = GAME_NAMES.get(room.game, room.game)
    engine = engines.get(room.game)
    seats = snap.get("seats", [])
    you_host = bool(seat and seat.host) or any(s.host for s in _device_seats(request, room))
    return {
        "room": room,
        "snap": snap,
        "game_name": game_name,
        "seat": seat,
        "you": snap.get("you"),
        "you_host": you_host,
        "seats": seats,
        "humans": [s for s in seats if not s.get("bot")],
        "min_players": engine.MIN_PLAYERS,
        "max_players": engine.MAX_PLAYERS,
        "full": len(seats) >= engine.MAX_PLAYERS,
        "can_start": engine.MIN_PLAYERS <= len(seats) <= engine.MAX_PLAYERS,
        "join_url": _join_url(request, room),
        "api_url": f"/api/play/rooms/{room.code}",
    }


def _screen(room: Room, snap: dict[str, Any]) -> dict[str, Any] | None:
    if not snap.get("view"):
        return None
    return present(room.game, snap, pack_of(room))


def _seat_region(request: HttpRequest, room: Room, seat: Seat | None) -> tuple[str, dict[str, Any]]:
    """The live region of a seat's page (lobby or game) as HTML, and its context."""
    snap = rooms.snapshot(room, seat)
    context = _common(request, room, seat, snap)
    context["screen"] = _screen(room, snap)
    context["curator"] = is_curator(request.user)
    if snap["status"] == "lobby":
        context.update(_lobby_extras(request, room, snap))
        template = "play/room_lobby.html"
    else:
        template = f"play/{room.game}/seat.html"
    return render_to_string(template, context, request=request), context


def _table_region(request: HttpRequest, room: Room) -> tuple[str, dict[str, Any]]:
    snap = rooms.snapshot(room, None)
    context = _common(request, room, None, snap)
    context["screen"] = _screen(room, snap)
    context["qr"] = _qr_svg(context["join_url"])
    context["table_host"] = _table_host(request, room)
    context["host_name"] = next((s["name"] for s in context["seats"] if s.get("host")), None)
    template = "play/table_lobby.html" if snap["status"] == "lobby" else f"play/{room.game}/table.html"
    return render_to_string(template, context, request=request), context


def _lobby_extras(request: HttpRequest, room: Room, snap: dict[str, Any]) -> dict[str, Any]:
    extras: dict[str, Any] = {"divisions": [], "first_option": FIRST_OPTION.get(room.game)}
    seats = snap.get("seats", [])
    if room.game == "sign":
        extras["divisions"] = sign_divisions(len(seats))
        teams = (room.options or {}).get("teams")
        chosen: dict[str, int] = {}
        if teams:
            for number, team in enumerate(teams):
                for seat_id in team:
                    chosen[seat_id] = number
        extras["team_of"] = chosen
        extras["team_numbers"] = list(range(max((len(d) for d in extras["divisions"]), default=2)))
    extras["device_seats"] = _device_seats(request, room) if room.pass_and_play else []
    extras["qr"] = _qr_svg(_join_url(request, room))
    return extras


# The option that names who begins, per game (set in the lobby, where the seats are known).
FIRST_OPTION = {
    "symbols": "first_candidate",
    "sign": "first_dealer",
    "slogan": "first_player",
    "sauschwer": "first_player",
}

# The rulebook's team divisions for Sign (players → team sizes).
SIGN_DIVISIONS = {
    4: [[2, 2]], 5: [[3, 2]], 6: [[3, 3], [2, 2, 2]], 7: [[4, 3], [3, 2, 2]],
    8: [[4, 4]], 9: [[3, 3, 3]],
}


def sign_divisions(players: int) -> list[list[int]]:
    return SIGN_DIVISIONS.get(players, [])


# --- opening a room ------------------------------------------------------------------------


class FormError(Exception):
    """A field of the form is wrong; the message is for the player."""


def _int_field(post: Any, name: str, label: str, *, minimum: int = 1, maximum: int = 999) -> int | None:
    raw = (post.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise FormError(_("%(label)s must be a whole number.") % {"label": label}) from None
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
    from exports.packs import PackError, load_pack

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
        from exports.packs import PackError, load_pack

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
        market=market,
    )
    if table_only:
        # This device is the table: no seat; its host token lets it give the controls to a phone.
        response = redirect("play:table", code=room.code)
        response.set_cookie(TABLE_PREFIX + room.code, room.table_token,  # type: ignore[attr-defined]
                            max_age=COOKIE_AGE, httponly=True, samesite="Lax")
        return response
    response = redirect("play:room", code=room.code)
    _give_seat(response, room, seat.token)
    if room.pass_and_play:
        _add_device_token(request, response, room, seat.token)
    return response


@require_GET
def join_by_code(request: HttpRequest) -> HttpResponse:
    code = "".join(ch for ch in (request.GET.get("code") or "").upper() if ch.isalnum())
    if not code:
        return redirect("play:lobby")
    return redirect("play:join", code=code)


# --- joining and the room's pages ------------------------------------------------------------


@player_language
def join(request: HttpRequest, code: str) -> HttpResponse:
    """Join by code or QR: a name, then a seat (a device that has a seat goes straight to it)."""
    room = _room_or_404(code)
    if room.code != code:
        return redirect("play:join", code=room.code)
    seat = _seat_of(request, room)
    if seat is not None and not room.pass_and_play:
        return redirect("play:room", code=room.code)
    error, status = None, 200
    if request.method == "POST" and not allow(request):
        error, status = _("Too many rooms or joins from here in a minute; wait a moment."), 429
    elif request.method == "POST":
        name = (request.POST.get("name") or "").strip()
        if not name or len(name) > NAME_MAX:
            error, status = _("Your name: 1 to %(n)s characters.") % {"n": NAME_MAX}, 400
        else:
            try:
                new = rooms.join(room, name=name)
            except rooms.PlayError as exc:
                error, status = str(exc), exc.status
            else:
                response = redirect("play:room", code=room.code)
                if room.pass_and_play:
                    _add_device_token(request, response, room, new.token)
                else:
                    _give_seat(response, room, new.token)
                return response
    engine = engines.get(room.game)
    seats = rooms.snapshot(room, None)["seats"]
    return render(request, "play/join.html", {
        "room": room, "game_name": GAME_NAMES[room.game], "error": error, "seats": seats,
        "full": len(seats) >= engine.MAX_PLAYERS, "started": room.status != "lobby",
        "max_players": engine.MAX_PLAYERS,
    }, status=status)


@player_language
@require_GET
def room_page(request: HttpRequest, code: str) -> HttpResponse:
    """A seat's page: the lobby while the room waits, then the seat's screen of the game."""
    room = _room_or_404(code)
    if room.code != code:
        return redirect("play:room", code=room.code)
    if room.pass_and_play:
        return _device_page(request, room)
    seat = _seat_of(request, room)
    if seat is None:
        moved = rooms.moved_away(room.code, request.COOKIES.get(COOKIE_PREFIX + room.code, ""))
        if moved is not None:  # the host moved this seat to another device
            return render(request, "play/no_seat.html", {
                "room": room, "game_name": GAME_NAMES[room.game],
                "message": rooms.moved_message(moved)}, status=403)
        if room.status == "lobby":
            return redirect("play:join", code=room.code)
        return render(request, "play/no_seat.html", {"room": room, "game_name": GAME_NAMES[room.game]},
                      status=403)
    region, context = _seat_region(request, room, seat)
    context.update(region=region, page="seat", fragment_url=reverse("play:fragment", args=[room.code]))
    return render(request, "play/room.html", context)


@player_language
@require_GET
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """The shared screen (a TV, a laptop): the table view only, with the join code and QR."""
    room = _room_or_404(code)
    if room.code != code:
        return redirect("play:table", code=room.code)
    region, context = _table_region(request, room)
    context.update(region=region, page="table",
                   fragment_url=reverse("play:fragment", args=[room.code]) + "?table=1")
    return render(request, "play/table.html", context)


@player_language
@require_GET
def fragment(request: HttpRequest, code: str) -> HttpResponse:
    """The live region of a page as HTML, for the script to swap in after a new version."""
    room = _room_or_404(code)
    if request.GET.get("table"):
        region, context = _table_region(request, room)
    elif room.pass_and_play:
        region, context = _device_region(request, room)
    else:
        seat = _seat_of(request, room)
        if seat is None:
            return HttpResponse(_("You have no seat in this room."), status=403)
        region, context = _seat_region(request, room, seat)
    response = HttpResponse(region)
    response["X-Room-Version"] = str(context["snap"]["version"])
    response["Cache-Control"] = "no-store"
    return response


@player_language
def rejoin(request: HttpRequest, code: str) -> HttpResponse:
    """A seat's rejoin link (another device), ``/play/CODE/rejoin#TOKEN``: the token is in the
    fragment, which browsers never send, so it stays out of URLs, access logs and Referers.
    GET shows a form the page's script fills from the fragment and POSTs; the POST exchanges
    the token for this browser's seat cookie (without script the token can be pasted)."""
    room = _room_or_404(code)
    if request.method == "POST":
        return _rejoin_exchange(request, room, request.POST.get("token", "").strip())
    response = render(request, "play/rejoin_exchange.html",
                      {"room": room, "game_name": GAME_NAMES[room.game]})
    response["Cache-Control"] = "no-store"
    return response


def _rejoin_exchange(request: HttpRequest, room: Room, token: str) -> HttpResponse:
    seat = rooms.seat_for_token(room, token) if token else None
    if seat is None:
        return render(request, "play/no_seat.html", {"room": room, "game_name": GAME_NAMES[room.game],
                                                     "bad_link": True}, status=403)
    response = redirect("play:room", code=room.code)
    _give_seat(response, room, token)
    return response


# --- host controls ---------------------------------------------------------------------------


@player_language
@require_POST
def table_host(request: HttpRequest, code: str) -> HttpResponse:
    """A table-only room's table gives the host controls to a phone (a joined seat)."""
    room = _room_or_404(code)
    token = request.COOKIES.get(TABLE_PREFIX + room.code, "")
    try:
        rooms.give_host_from_table(room, token, request.POST.get("seat", ""))
    except rooms.PlayError as exc:
        return HttpResponse(str(exc), status=exc.status, content_type="text/plain; charset=utf-8")
    if request.headers.get("X-Requested-With") == "fetch":
        return HttpResponse(status=204)
    return redirect("play:table", code=room.code)


def _acting_seat(request: HttpRequest, room: Room) -> Seat | None:
    """The seat that a host control comes from: this browser's seat, or on a pass-and-play
    device the host among the seats it holds."""
    seat = _seat_of(request, room)
    if room.pass_and_play:
        hosts = [s for s in _device_seats(request, room) if s.host]
        return hosts[0] if hosts else seat
    return seat


@player_language
@require_POST
def host_control(request: HttpRequest, code: str, control: str) -> HttpResponse:
    """The host's buttons in the lobby and during the game (plain forms: work without script)."""
    room = _room_or_404(code)
    limited = allow_write(request, room.code, game=control in ("start", "again"))
    if limited is not None:
        return too_many(limited, json=False)
    by = _acting_seat(request, room)
    if by is None:
        return render(request, "play/no_seat.html", {"room": room, "game_name": GAME_NAMES[room.game]},
                      status=403)
    target = request.POST.get("seat") or None
    try:
        if control == "start":
            rooms.start(room, by, options=_start_options(room, request.POST))
        elif control == "bot":
            rooms.give_to_bot(room, by, target)
        elif control == "remove" and target:
            rooms.remove_seat(room, by, target)
        elif control == "away" and target:
            rooms.set_away(room, by, target, request.POST.get("away") != "0")
        elif control == "host" and target:
            rooms.give_host(room, by, target)
        elif control == "teams":
            rooms.set_teams(room, by, _teams_from_form(room, request.POST))
        elif control == "again":
            rooms.play_again(room, by)
        elif control == "rejoin" and target:
            return _rejoin_link(request, room, by, target)
        else:
            raise Http404(_("There is no such control."))
    except (rooms.PlayError, FormError, ValueError) as exc:
        room = _room_or_404(code)
        return _room_with_error(request, room, str(exc), getattr(exc, "status", 400))
    return redirect("play:room", code=room.code)


def _room_with_error(request: HttpRequest, room: Room, message: str, status: int) -> HttpResponse:
    if room.pass_and_play:
        response = _device_page(request, room, error=message)
        response.status_code = status
        return response
    seat = _seat_of(request, room)
    region, context = _seat_region(request, room, seat)
    context.update(region=region, page="seat", error=message,
                   fragment_url=reverse("play:fragment", args=[room.code]))
    return render(request, "play/room.html", context, status=status)


def _start_options(room: Room, post: Any) -> dict[str, Any]:
    options: dict[str, Any] = {}
    first = post.get("first")
    name = FIRST_OPTION.get(room.game)
    if first and name:
        options[name] = first
    return options


def _teams_from_form(room: Room, post: Any) -> list[list[str]]:
    """Sign's teams from one select per seat (team 1, 2, 3)."""
    seats = [s["seat"] for s in rooms.snapshot(room, None)["seats"]]
    teams: dict[int, list[str]] = {}
    for seat_id in seats:
        try:
            number = int(post.get(f"team_{seat_id}", ""))
        except ValueError:
            raise FormError(_("Put every player in a team.")) from None
        teams.setdefault(number, []).append(seat_id)
    return [teams[number] for number in sorted(teams)]


def _token_held(request: HttpRequest, room: Room, target: str) -> str | None:
    """The plain token of seat ``target`` if this browser holds it (its own seat, or a seat of
    this pass-and-play device): the server keeps only hashes of tokens."""
    tokens = [request.COOKIES.get(COOKIE_PREFIX + room.code, ""), *_device_tokens(request, room)]
    for token in tokens:
        seat = rooms.seat_for_token(room, token) if token else None
        if seat is not None and seat.seat == target:
            return token
    return None


def _rejoin_link(request: HttpRequest, room: Room, by: Seat, target: str) -> HttpResponse:
    """A seat's link for another device (a phone's battery dies, a player moves to the TV).

    A player may show their own seat's link; so may a pass-and-play device for the seats it
    holds. For any other seat the host gets a fresh token from the rooms service (the old
    device loses the seat).
    """
    token = _token_held(request, room, target)
    if token is None:
        if not by.host:
            raise rooms.NotAllowed(_("Only the host can show a rejoin link."))
        token = rooms.new_token(room, by, target)  # the seat's old token stops working
    url = request.build_absolute_uri(reverse("play:rejoin", args=[room.code])) + "#" + token
    name = next((s["name"] for s in rooms.snapshot(room, None)["seats"] if s["seat"] == target), target)
    response = render(request, "play/rejoin.html", {
        "room": room, "game_name": GAME_NAMES[room.game], "url": url, "qr": _qr_svg(url), "name": name,
    })
    response["Cache-Control"] = "no-store"
    return response


# --- pass and play: one device, handed round ---------------------------------------------------

# Actions anyone may take at any moment are not a reason to hand the device over.
OPTIONAL = {"replace", "stop", "challenge"}


def next_holder(room: Room, seats: list[Seat]) -> Seat | None:
    """The device seat that must act next (in seating order), or None when none must."""
    state = rooms.room_state(room) if room.status == "playing" else None
    if state is None:
        return None
    engine = engines.get(room.game)
    for seat in sorted(seats, key=lambda s: s.position):
        if seat.bot or seat.removed:
            continue
        actions = engine.legal_actions(state, seat.seat)
        if any(action.get("type") not in OPTIONAL for action in actions):
            return seat
    return None


def _device_region(request: HttpRequest, room: Room) -> tuple[str, dict[str, Any]]:
    """A pass-and-play device shows the current holder's seat; when the next private step
    belongs to someone else, only a "hand the device to …" screen (nothing private in it)."""
    seats = _device_seats(request, room)
    holder = _seat_of(request, room)
    if holder is not None and holder not in seats:
        holder = None
    due = next_holder(room, seats)
    if room.status == "lobby":
        return _seat_region(request, room, holder or (seats[0] if seats else None))
    if due is not None and due != holder:
        snap = rooms.snapshot(room, None)
        context = _common(request, room, None, snap)
        context.update(screen=_screen(room, snap), due=due)
        return render_to_string("play/handoff.html", context, request=request), context
    if due is None:
        region, context = _table_region(request, room)
        context["device"] = True
        return region, context
    return _seat_region(request, room, holder)


def _device_page(request: HttpRequest, room: Room, error: str | None = None) -> HttpResponse:
    seats = _device_seats(request, room)
    if not seats:
        if room.status == "lobby":
            return redirect("play:join", code=room.code)
        return render(request, "play/no_seat.html", {"room": room, "game_name": GAME_NAMES[room.game]},
                      status=403)
    region, context = _device_region(request, room)
    context.update(region=region, page="device", error=error,
                   fragment_url=reverse("play:fragment", args=[room.code]))
    return render(request, "play/room.html", context)


@require_POST
def hand_over(request: HttpRequest, code: str) -> HttpResponse:
    """The player named on the hand-over screen tapped: the device becomes their seat."""
    room = _room_or_404(code)
    wanted = request.POST.get("seat", "")
    for token in _device_tokens(request, room):
        seat = rooms.seat_for_token(room, token)
        if seat is not None and seat.seat == wanted:
            # The script asks for no redirect: it fetches the new holder's region itself.
            scripted = request.headers.get("X-Requested-With") == "fetch"
            response = HttpResponse(status=204) if scripted else redirect("play:room", code=room.code)
            _give_seat(response, room, token)
            return response
    return HttpResponse(status=403)


# --- after the game: replay; for curators: every seat side by side ----------------------------


@player_language
@require_GET
def replay_page(request: HttpRequest, code: str) -> HttpResponse:
    """A finished game step by step (``?step=N``), from the room's action log."""
    room = _room_or_404(code)
    try:
        steps = rooms.replay(room)
    except rooms.PlayError as exc:
        return render(request, "play/no_seat.html", {"room": room, "game_name": GAME_NAMES[room.game],
                                                     "message": str(exc)}, status=exc.status)
    try:
        number = min(max(int(request.GET.get("step", "0")), 0), len(steps) - 1)
    except ValueError:
        number = 0
    step = steps[number]
    seats = rooms.snapshot(room, None)["seats"]
    snap = {"seats": seats, "you": None, "view": step["view"], "legal_actions": [],
            "result": step["view"].get("result") if number == len(steps) - 1 else None,
            "version": step.get("version"), "status": "finished"}
    names = {s["seat"]: s["name"] for s in seats}
    context = _common(request, room, None, snap)
    screen = present(room.game, snap, pack_of(room))
    context.update(
        screen=screen, step=step, number=number,
        last=len(steps) - 1, who=names.get(step.get("seat") or "", ""), replay=True,
        said=_step_words(room, steps, number, screen, names),
    )
    region = render_to_string(f"play/{room.game}/table.html", context, request=request)
    context["region"] = region
    return render(request, "play/replay.html", context)


def _step_words(room: Room, steps: list[dict[str, Any]], number: int, screen: dict[str, Any],
                names: dict[str, str]) -> list[str]:
    """A replay step in words: the log lines that step added (the game's own sentences, in the
    page's language), or the action with the player's name when it added none."""
    if number == 0:
        return [_("The cards are dealt.")]
    before = len((steps[number - 1]["view"] or {}).get("log") or [])
    events = (steps[number]["view"] or {}).get("log") or []
    lines: list[str] = []
    if len(events) > before:
        lines = describe_events(room.game, events[before:], names, pack_of(room))
    if lines:
        return lines
    action = steps[number].get("action") or {}
    who = names.get(steps[number].get("seat") or "", "")
    from games.screens import generic_label

    said = _("Stop!") if action.get("type") == "stop" else generic_label(action)
    return [f"{who}: {said}" if who else said]


@player_language
@require_GET
def seats_page(request: HttpRequest, code: str) -> HttpResponse:
    """For curators: every seat's view of the room side by side (playtesting a draft)."""
    if not is_curator(request.user):
        return redirect(f"{reverse('admin:login')}?next={request.path}")
    room = _room_or_404(code)
    region = _all_seats_region(request, room)
    if request.GET.get("fragment"):
        response = HttpResponse(region)
        response["Cache-Control"] = "no-store"
        return response
    snap = rooms.snapshot(room, None)
    context = _common(request, room, None, snap)
    context.update(region=region, page="seats",
                   fragment_url=reverse("play:seats", args=[room.code]) + "?fragment=1")
    return render(request, "play/seats.html", context)


def _all_seats_region(request: HttpRequest, room: Room) -> str:
    panels = []
    for seat in Seat.objects.filter(room=room, removed=False).order_by("position"):
        snap = rooms.snapshot(room, seat)
        context = _common(request, room, seat, snap)
        context.update(screen=_screen(room, snap), peek=True)
        template = "play/room_lobby.html" if snap["status"] == "lobby" else f"play/{room.game}/seat.html"
        panels.append({"name": seat.name, "seat": seat.seat, "bot": seat.bot,
                       "html": render_to_string(template, context, request=request)})
    return render_to_string("play/_seat_panels.html", {"panels": panels}, request=request)


@require_GET
def sign_colours(request: HttpRequest, code: str) -> HttpResponse:
    """The colours of the room's Sign pack as a stylesheet (the pages carry no inline style,
    which the Content-Security-Policy forbids). The pack is pinned, so the answer never
    changes for a room."""
    from games.screens.sign import colour_css

    room = _room_or_404(code)
    css = colour_css(rooms.room_pack(room)) if room.game == "sign" else ""
    response = HttpResponse(css, content_type="text/css; charset=utf-8")
    response["Cache-Control"] = "public, max-age=3600"
    return response


ASSET_TYPES = {"play.css": "text/css; charset=utf-8", "play.js": "text/javascript; charset=utf-8",
               "favicon.svg": "image/svg+xml"}


@require_GET
def asset(request: HttpRequest, name: str) -> HttpResponse:
    """The play pages' stylesheet and script, served by the app (no build step, no CDN, and
    nothing else to configure under gunicorn); a versioned URL may be cached for a year."""
    from games.templatetags.play import ASSETS

    if name not in ASSET_TYPES:
        raise Http404(name)
    response = HttpResponse((ASSETS / name).read_bytes(), content_type=ASSET_TYPES[name])
    response["Cache-Control"] = "public, max-age=31536000, immutable" if request.GET.get("v") else "no-cache"
    return response
