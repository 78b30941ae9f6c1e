"""The play mode's room pages (mounted at ``/play/CODE/…``): join, the seat and table screens,
the host's controls, pass and play, the replay and the curators' view of every seat.

The pages are thin over ``games.rooms``: every screen is rendered from
``rooms.snapshot(room, seat)`` (``None`` for the table), and the script on the page plays
through the JSON API (``/api/play/…``) like any other client. What the pages share (the
player's language, seats held by cookies, a room's regions) is in games/pages.py; the lobby
that opens rooms in games/lobby.py.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cards.text import whole_number
from games import engines, rooms
from games.clients import client_of
from games.lobby import FormError
from games.models import Room, Seat
from games.pages import (
    COOKIE_PREFIX,
    FIRST_OPTION,
    NAME_MAX,
    TABLE_PREFIX,
    add_device_token,
    device_seats,
    device_tokens,
    give_seat,
    is_curator,
    pack_of,
    page_context,
    player_language,
    qr_svg,
    room_or_404,
    screen_of,
    seat_of,
    seat_region,
    table_region,
)
from games.ratelimit import allow, allow_client, allow_room, too_many
from games.screens import GAME_NAMES, describe_events, present

# --- joining and the room's pages ------------------------------------------------------------


@player_language
def join(request: HttpRequest, code: str) -> HttpResponse:
    """Join by code or QR: a name, then a seat (a device that has a seat goes straight to it)."""
    room = room_or_404(code)
    if room.code != code:
        return redirect("play:join", code=room.code)
    seat = seat_of(request, room)
    if seat is not None and not room.pass_and_play:
        return redirect("play:room", code=room.code)
    error, status = None, 200
    if request.method == "POST" and not allow(request):  # joins: KARTOTHEK_PLAY_RATE_LIMIT
        error, status = _("Too many rooms or joins from here in a minute; wait a moment."), 429
    elif request.method == "POST":
        name = (request.POST.get("name") or "").strip()
        if not name or len(name) > NAME_MAX:
            error, status = _("Your name: 1 to %(n)s characters.") % {"n": NAME_MAX}, 400
        else:
            try:
                new = rooms.join(room, name=name, client=client_of(request))
            except rooms.PlayError as exc:
                error, status = str(exc), exc.status
            else:
                response = redirect("play:room", code=room.code)
                if room.pass_and_play:
                    add_device_token(request, response, room, new.token)
                else:
                    give_seat(response, room, new.token)
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
    room = room_or_404(code)
    if room.code != code:
        return redirect("play:room", code=room.code)
    if room.pass_and_play:
        return _device_page(request, room)
    seat = seat_of(request, room)
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
    region, context = seat_region(request, room, seat)
    context.update(region=region, page="seat", fragment_url=reverse("play:fragment", args=[room.code]))
    return render(request, "play/room.html", context)


@player_language
@require_GET
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """The shared screen (a TV, a laptop): the table view only, with the join code and QR."""
    room = room_or_404(code)
    if room.code != code:
        return redirect("play:table", code=room.code)
    region, context = table_region(request, room)
    context.update(region=region, page="table",
                   fragment_url=reverse("play:fragment", args=[room.code]) + "?table=1")
    return render(request, "play/table.html", context)


@player_language
@require_GET
def fragment(request: HttpRequest, code: str) -> HttpResponse:
    """The live region of a page as HTML, for the script to swap in after a new version."""
    room = room_or_404(code)
    if request.GET.get("table"):
        region, context = table_region(request, room)
    elif room.pass_and_play:
        region, context = _device_region(request, room)
    else:
        seat = seat_of(request, room)
        if seat is None:
            return HttpResponse(_("You have no seat in this room."), status=403)
        region, context = seat_region(request, room, seat)
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
    room = room_or_404(code)
    if request.method == "POST":
        if (limited := allow_client(request)) is not None:  # a token guessed is a write too
            return too_many(limited, json=False)
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
    give_seat(response, room, token)
    return response


# --- host controls ---------------------------------------------------------------------------


@player_language
@require_POST
def table_host(request: HttpRequest, code: str) -> HttpResponse:
    """A table-only room's table gives the host controls to a phone (a joined seat)."""
    room = room_or_404(code)
    if (limited := allow_client(request)) is not None:
        return too_many(limited, json=False)
    token = request.COOKIES.get(TABLE_PREFIX + room.code, "")
    try:
        if rooms.is_table_token(room, token) and (limited := allow_room(room.code)) is not None:
            return too_many(limited, json=False)  # the room's budget: only once the table is proved
        rooms.give_host_from_table(room, token, request.POST.get("seat", ""))
    except rooms.PlayError as exc:
        return HttpResponse(str(exc), status=exc.status, content_type="text/plain; charset=utf-8")
    if request.headers.get("X-Requested-With") == "fetch":
        return HttpResponse(status=204)
    return redirect("play:table", code=room.code)


def _acting_seat(request: HttpRequest, room: Room) -> Seat | None:
    """The seat that a host control comes from: this browser's seat, or on a pass-and-play
    device the host among the seats it holds."""
    seat = seat_of(request, room)
    if room.pass_and_play:
        hosts = [s for s in device_seats(request, room) if s.host]
        return hosts[0] if hosts else seat
    return seat


CONTROLS = ("start", "bot", "remove", "away", "host", "teams", "again", "rejoin")


@player_language
@require_POST
def host_control(request: HttpRequest, code: str, control: str) -> HttpResponse:
    """The host's buttons in the lobby and during the game (plain forms: work without script)."""
    room = room_or_404(code)
    limited = allow_client(request)
    if limited is not None:
        return too_many(limited, json=False)
    if control not in CONTROLS:
        raise Http404(_("There is no such control."))
    by = _acting_seat(request, room)
    if by is None:
        return render(request, "play/no_seat.html", {"room": room, "game_name": GAME_NAMES[room.game]},
                      status=403)
    # the room's budgets: only for a seat of the room, a game's start only for the host
    game = control in ("start", "again")
    if game and not by.host:
        return _room_with_error(request, room, _("Only the host can do that."), 403)
    limited = allow_room(room.code, game=game)
    if limited is not None:
        return too_many(limited, json=False)
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
        room = room_or_404(code)
        return _room_with_error(request, room, str(exc), getattr(exc, "status", 400))
    return redirect("play:room", code=room.code)


def _room_with_error(request: HttpRequest, room: Room, message: str, status: int) -> HttpResponse:
    if room.pass_and_play:
        response = _device_page(request, room, error=message)
        response.status_code = status
        return response
    seat = seat_of(request, room)
    region, context = seat_region(request, room, seat)
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
        number = whole_number(post.get(f"team_{seat_id}", ""))
        if number is None:
            raise FormError(_("Put every player in a team."))
        teams.setdefault(number, []).append(seat_id)
    return [teams[number] for number in sorted(teams)]


def _token_held(request: HttpRequest, room: Room, target: str) -> str | None:
    """The plain token of seat ``target`` if this browser holds it (its own seat, or a seat of
    this pass-and-play device): the server keeps only hashes of tokens."""
    tokens = [request.COOKIES.get(COOKIE_PREFIX + room.code, ""), *device_tokens(request, room)]
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
        "room": room, "game_name": GAME_NAMES[room.game], "url": url, "qr": qr_svg(url), "name": name,
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
    seats = device_seats(request, room)
    holder = seat_of(request, room)
    if holder is not None and holder not in seats:
        holder = None
    due = next_holder(room, seats)
    if room.status == "lobby":
        return seat_region(request, room, holder or (seats[0] if seats else None))
    if due is not None and due != holder:
        snap = rooms.snapshot(room, None)
        context = page_context(request, room, None, snap)
        context.update(screen=screen_of(room, snap), due=due)
        return render_to_string("play/handoff.html", context, request=request), context
    if due is None:
        region, context = table_region(request, room)
        context["device"] = True
        return region, context
    return seat_region(request, room, holder)


def _device_page(request: HttpRequest, room: Room, error: str | None = None) -> HttpResponse:
    seats = device_seats(request, room)
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
    room = room_or_404(code)
    if (limited := allow_client(request)) is not None:
        return too_many(limited, json=False)
    wanted = request.POST.get("seat", "")
    for token in device_tokens(request, room):
        seat = rooms.seat_for_token(room, token)
        if seat is not None and seat.seat == wanted:
            # The script asks for no redirect: it fetches the new holder's region itself.
            scripted = request.headers.get("X-Requested-With") == "fetch"
            response = HttpResponse(status=204) if scripted else redirect("play:room", code=room.code)
            give_seat(response, room, token)
            return response
    return HttpResponse(status=403)


# --- after the game: replay; for curators: every seat side by side ----------------------------


@player_language
@require_GET
def replay_page(request: HttpRequest, code: str) -> HttpResponse:
    """A finished game step by step (``?step=N``), from the room's action log: ``?game=N`` is
    the room's game number N (every finished game keeps its replay after *Play again*); without
    it the newest finished game."""
    room = room_or_404(code)
    game = whole_number(request.GET.get("game") or "")
    try:
        steps = rooms.replay(room, game or None)
    except rooms.PlayError as exc:
        return render(request, "play/no_seat.html", {"room": room, "game_name": GAME_NAMES[room.game],
                                                     "message": str(exc)}, status=exc.status)
    number = min(whole_number(request.GET.get("step")) or 0, len(steps) - 1)
    step = steps[number]
    seats = rooms.snapshot(room, None)["seats"]
    snap = {"seats": seats, "you": None, "view": step["view"], "legal_actions": [],
            "result": step["view"].get("result") if number == len(steps) - 1 else None,
            "version": step.get("version"), "status": "finished"}
    names = {s["seat"]: s["name"] for s in seats}
    context = page_context(request, room, None, snap)
    screen = present(room.game, snap, pack_of(room))
    context.update(
        screen=screen, step=step, number=number, game=rooms.finished_game(room, game or None)["number"],
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
    room = room_or_404(code)
    region = _all_seats_region(request, room)
    if request.GET.get("fragment"):
        response = HttpResponse(region)
        response["Cache-Control"] = "no-store"
        return response
    snap = rooms.snapshot(room, None)
    context = page_context(request, room, None, snap)
    context.update(region=region, page="seats",
                   fragment_url=reverse("play:seats", args=[room.code]) + "?fragment=1")
    return render(request, "play/seats.html", context)


def _all_seats_region(request: HttpRequest, room: Room) -> str:
    panels = []
    for seat in Seat.objects.filter(room=room, removed=False).order_by("position"):
        snap = rooms.snapshot(room, seat)
        context = page_context(request, room, seat, snap)
        context.update(screen=screen_of(room, snap), peek=True)
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

    room = room_or_404(code)
    css = colour_css(rooms.room_pack(room)) if room.game == "sign" else ""
    response = HttpResponse(css, content_type="text/css; charset=utf-8")
    response["Cache-Control"] = "public, max-age=3600"
    return response
