"""What every play page shares: the player's language, the seats a browser holds, a room's regions.

A browser proves its seat with the cookie ``kt_seat_<CODE>``; a pass-and-play device also keeps
the tokens of every seat it holds in ``kt_pp_<CODE>`` and hands the seat cookie to whoever
holds the device. A room's screens are rendered from ``rooms.snapshot(room, seat)``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import engines, rooms
from games.clients import give_device
from games.models import Room, Seat
from games.ratelimit import allow_client, too_many
from games.screens import GAME_NAMES, present

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
        give_device(request, response)  # the browser's id for the statistics (games/clients.py)
        return response

    return wrapped


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    if (limited := allow_client(request)) is not None:  # every play POST has a write limit
        return too_many(limited, json=False)
    language = request.POST.get("language", "")
    back = request.POST.get("next") or reverse("play:lobby")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = reverse("play:lobby")
    response = HttpResponseRedirect(back)  # a path, never a view's name (redirect() would try)
    if language in dict(LANGUAGES):
        response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=365 * 24 * 3600,
                            samesite="Lax")
    return response


# --- seats and packs ---------------------------------------------------------------------


def seat_of(request: HttpRequest, room: Room) -> Seat | None:
    token = request.COOKIES.get(COOKIE_PREFIX + room.code)
    return rooms.seat_for_token(room, token) if token else None


def device_tokens(request: HttpRequest, room: Room) -> list[str]:
    raw = request.COOKIES.get(DEVICE_PREFIX + room.code, "")
    return [token for token in raw.split(".") if token][:12]


def device_seats(request: HttpRequest, room: Room) -> list[Seat]:
    """The seats this pass-and-play device holds (the host's first)."""
    seats = []
    for token in device_tokens(request, room):
        seat = rooms.seat_for_token(room, token)
        if seat is not None and seat not in seats:
            seats.append(seat)
    return seats


def give_seat(response: HttpResponse, room: Room, token: str) -> None:
    response.set_cookie(COOKIE_PREFIX + room.code, token, max_age=COOKIE_AGE, httponly=True,
                        samesite="Lax")


def add_device_token(request: HttpRequest, response: HttpResponse, room: Room, token: str) -> None:
    tokens = [*device_tokens(request, room), token]
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


def room_or_404(code: str) -> Room:
    try:
        return rooms.get_room(code)
    except rooms.NoRoom:
        raise RoomMissing(_("There is no room %(code)s (or it has expired).") % {"code": code}) from None


def _table_host(request: HttpRequest, room: Room) -> bool:
    """Whether this browser is the table device that opened a table-only room."""
    return rooms.is_table_token(room, request.COOKIES.get(TABLE_PREFIX + room.code))


# --- rendering a room ----------------------------------------------------------------------


def qr_svg(url: str) -> str:
    import segno

    qr = segno.make(url, error="m")
    # omitsize: a viewBox only, so the stylesheet sizes it (small on a phone, huge on a TV).
    svg: str = qr.svg_inline(scale=6, dark="#1b1a2e", light="#ffffff", border=2, omitsize=True,
                             title=_("QR code to join"))
    return svg


def _join_url(request: HttpRequest, room: Room) -> str:
    return request.build_absolute_uri(reverse("play:join", args=[room.code]))


def page_context(request: HttpRequest, room: Room, seat: Seat | None, snap: dict[str, Any]) -> dict[str, Any]:
    game_name = GAME_NAMES.get(room.game, room.game)
    engine = engines.get(room.game)
    seats = snap.get("seats", [])
    you_host = bool(seat and seat.host) or any(s.host for s in device_seats(request, room))
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


def screen_of(room: Room, snap: dict[str, Any]) -> dict[str, Any] | None:
    if not snap.get("view"):
        return None
    return present(room.game, snap, pack_of(room))


def seat_region(request: HttpRequest, room: Room, seat: Seat | None) -> tuple[str, dict[str, Any]]:
    """The live region of a seat's page (lobby or game) as HTML, and its context."""
    snap = rooms.snapshot(room, seat)
    context = page_context(request, room, seat, snap)
    context["screen"] = screen_of(room, snap)
    context["curator"] = is_curator(request.user)
    if snap["status"] == "lobby":
        context.update(_lobby_extras(request, room, snap))
        template = "play/room_lobby.html"
    else:
        template = f"play/{room.game}/seat.html"
    return render_to_string(template, context, request=request), context


def table_region(request: HttpRequest, room: Room) -> tuple[str, dict[str, Any]]:
    snap = rooms.snapshot(room, None)
    context = page_context(request, room, None, snap)
    context["screen"] = screen_of(room, snap)
    context["qr"] = qr_svg(context["join_url"])
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
    extras["device_seats"] = device_seats(request, room) if room.pass_and_play else []
    extras["qr"] = qr_svg(_join_url(request, room))
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
