"""The play mode's JSON API (mounted at /api/play/; described in /api/openapi.json).

Thin over ``games.rooms``: parse, prove the seat, call the service, answer JSON. The pages use
it like any other client.

A seat is proved by ``Authorization: Bearer TOKEN`` or by the browser's ``kt_seat_<CODE>``
cookie (HttpOnly, SameSite=Lax, set when the seat is made unless the request says
``"cookie": false``). A request that carries a session or seat cookie must carry Django's CSRF
token (``X-CSRFToken``); a client without cookies needs none, so no other site can act for a
player through the browser's cookies.

``GET /api/play/rooms/CODE`` answers ``If-None-Match`` with 304 from one query on the version
(and the token's seat), without reading the state, unless a bot or the turn timer is due.

Host controls, each a POST answered with the room as the caller sees it (403 for others):
``rooms/CODE/seats/SEAT/remove`` (the seat's token stops working; mid-game a bot takes the
place), ``…/away`` ``{"away": true|false}`` (also a player for their own seat; a bot plays while
away), ``…/host`` (hand the host role on), ``…/bot`` (a bot plays the seat for good),
``rooms/CODE/bots`` (a bot takes a new seat in the lobby), ``rooms/CODE/teams``
``{"teams": [[…], …]}`` (Sign, the rulebook's divisions only), ``rooms/CODE/again`` (play
again with the same seats). ``GET rooms/CODE/replay[?game=N]`` steps through a finished game.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextlib import aclosing
from functools import wraps
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse, RawPostDataException, StreamingHttpResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from cards.text import ascii_number
from common.threads import process_pool
from exports.api import _etag_matches, error
from games import events as room_events
from games import rooms, stream_slots, tickets
from games.clients import client_of
from games.lookup import _expired
from games.models import Room, Seat
from games.prepared import Prepared
from games.ratelimit import allow, allow_client, allow_room, allow_write, too_many

COOKIE_PREFIX = "kt_seat_"
COOKIE_MAX_AGE = 30 * 24 * 3600
_csrf = CsrfViewMiddleware(lambda request: HttpResponse())
# Every POST to a room counts against its client's write limit before anything is checked
# (games.ratelimit) but a join, which KARTOTHEK_PLAY_RATE_LIMIT counts with room creations, and
# an action, counted in its transaction; the room's budgets only once a seat (or the table's
# host token) of the room is proved (``_charge_room``).
UNCOUNTED = {"join", "actions"}  # join: its own limit; actions: counted in their transaction


def cookie_name(code: str) -> str:
    return f"{COOKIE_PREFIX}{code}"


def _needs_csrf(request: HttpRequest) -> bool:
    return settings.SESSION_COOKIE_NAME in request.COOKIES or any(
        name.startswith(COOKIE_PREFIX) for name in request.COOKIES)


def api_view(methods: tuple[str, ...]) -> Callable[..., Any]:
    """JSON errors, the allowed methods, and CSRF for requests that carry cookies."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = error(405, f"{request.method} is not allowed here; use {' or '.join(methods)}.")
                response["Allow"] = ", ".join(methods)
                return response
            if request.method == "POST" and _needs_csrf(request):
                try:
                    rejected = _csrf.process_view(request, None, (), {})  # type: ignore[arg-type]
                except (RequestDataTooBig, TooManyFieldsSent):
                    return error(413, "The request is too large.")
                if rejected is not None:
                    return error(403, "This request carries cookies but no valid CSRF token: "
                                      "send the page's token as X-CSRFToken, or use a Bearer "
                                      "token without cookies.")
            if request.method == "POST" and "code" in kwargs and view.__name__ not in UNCOUNTED:
                reason = allow_client(request)
                if reason is not None:
                    return too_many(reason, json=True)
            try:
                return view(request, *args, **kwargs)
            except (RequestDataTooBig, TooManyFieldsSent) as exc:
                return error(413 if isinstance(exc, RequestDataTooBig) else 400,
                             "The request is too large (its body or its query string).")
            except rooms.PlayError as exc:
                if isinstance(exc, rooms.TooManyWrites):
                    return too_many(str(exc), json=True)
                if isinstance(exc, rooms.Stale):
                    # the fresh room as it is ("status" stays the room's status) plus the message
                    return _json_response({**exc.body, "error": str(exc)}, 409)
                return error(exc.status, str(exc))

        return wrapper

    return decorate


class BadRequest(rooms.PlayError):
    status = 400


class TooBig(rooms.PlayError):
    status = 413


# No play body nests deeper than a few levels (an action's fields, Sign's teams); a deeper one
# is refused before the parser recurses (Python's json recursion would end in a 500).
MAX_NESTING = 32


def _too_deep(raw: bytes) -> bool:
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_NESTING:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def _raw_body(request: HttpRequest) -> bytes:
    try:
        return request.body
    except RequestDataTooBig:
        raise TooBig(f"The request body is larger than "
                     f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1_048_576 or 1} MB.") from None
    except RawPostDataException:  # a multipart form, already read as one: not JSON
        raise BadRequest("The request body is a JSON object, not a form.") from None


def _body(request: HttpRequest) -> dict[str, Any]:
    raw = _raw_body(request)
    if not raw:
        return {}
    if _too_deep(raw):
        raise BadRequest(f"The request body nests deeper than {MAX_NESTING} levels.")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise BadRequest(f"The request body is not JSON: {str(exc)[:200]}.") from None
    if not isinstance(data, dict):
        raise BadRequest("The request body is a JSON object.")
    return data


def _token(request: HttpRequest, code: str) -> str | None:
    header = request.headers.get("Authorization", "")
    if header[:7].lower() == "bearer ":
        return header[7:].strip()
    return request.COOKIES.get(cookie_name(code))


def _seat(request: HttpRequest, room: Room, *, required: bool) -> Seat | None:
    token = _token(request, room.code)
    if not token:
        if required:
            raise rooms.NotASeat("Only a seat of this room can do that: send its token.")
        return None
    seat = rooms.seat_for_token(room, token)
    if seat is None:
        _refuse_token(room.code, rooms.hash_token(token))
    return seat


def _charge_room(found: Room, seat: Seat | None, *, game: bool = False) -> None:
    """Count a write against the room's budgets, for a request that has proved ``seat`` of it
    (``None``: the table's host token). A game's start (``game``) is the host's alone: anyone
    else gets 403 before the room's budgets are touched."""
    if game and (seat is None or not seat.host):
        raise rooms.NotAllowed("Only the host can do that.")
    reason = allow_room(found.code, game=game)
    if reason is not None:
        raise rooms.TooManyWrites(reason)


def _refuse_token(code: str, token_hash: str) -> None:
    """403 for a token (by its sha256) that proves no seat; says so when the host moved the
    seat away."""
    moved = rooms.moved_away_hashed(code, token_hash)
    if moved is not None:
        raise rooms.NotASeat(rooms.moved_message(moved))
    raise rooms.NotASeat(f"This token is not a seat of room {code} (the seat may have "
                         "been removed or given to a bot).")


def _etag(version: int, seat: str | None) -> str:
    return f'"{version}.{seat or "table"}"'


def _json_response(body: dict[str, Any], status: int = 200) -> JsonResponse:
    response = JsonResponse(body, status=status, json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "private, no-cache"
    return response


def _room_response(body: dict[str, Any], status: int = 200) -> JsonResponse:
    response = _json_response(body, status)
    response["ETag"] = _etag(body["version"], body["you"])
    return response


def _check_cookie_flag(data: dict[str, Any]) -> None:
    """``"cookie"`` is true or false (checked before anything is made)."""
    if not isinstance(data.get("cookie", True), bool):
        raise BadRequest("\"cookie\" is true or false (false: no seat cookie).")


def _set_seat_cookie(request: HttpRequest, response: HttpResponse, data: dict[str, Any],
                     code: str, token: str) -> None:
    if data.get("cookie", True) is not False:
        response.set_cookie(cookie_name(code), token, max_age=COOKIE_MAX_AGE, httponly=True,
                            samesite="Lax", secure=request.is_secure(), path="/")


def _limited() -> JsonResponse:
    response = error(429, "Too many rooms or joins from here in a minute; wait a moment.")
    response["Retry-After"] = "60"
    return response


# --- rooms -----------------------------------------------------------------------------------


@api_view(("POST",))
def create_room(request: HttpRequest) -> HttpResponse:
    data = _body(request)
    _check_cookie_flag(data)
    if not isinstance(data.get("seat", True), bool):
        raise BadRequest("\"seat\" is true or false (false: open the room as the table only).")
    if not allow(request):
        return _limited()
    user = request.user if request.user.is_authenticated else None
    if data.get("seat", True) is False:
        return _create_table_room(data, user)
    room, seat = rooms.open_room(
        game=data.get("game"), language=data.get("language"),  # type: ignore[arg-type]
        release=data.get("release", "latest"), options=data.get("options"),
        name=data.get("name"), user=user, seed=data.get("seed"),  # type: ignore[arg-type]
        pass_and_play=bool(data.get("pass_and_play", False)),
        turn_timer=data.get("turn_timer", 0), market=data.get("market"), client=client_of(request),
    )
    token: str = seat.token  # type: ignore[attr-defined]
    response = _json_response({"code": room.code, "seat": seat.seat, "token": token,
                               "version": room.version}, 201)
    response["Location"] = f"/api/play/rooms/{room.code}"
    _set_seat_cookie(request, response, data, room.code, token)
    return response


def _create_table_room(data: dict[str, Any], user: Any) -> HttpResponse:
    """``"seat": false``: the opener is the table (no seat, no cookie); it gets ``host_token``,
    which gives the host controls to a seat (``POST …/seats/SEAT/host`` with it as Bearer).
    Until then the first seat that joins is the host."""
    room, _none = rooms.open_room(
        game=data.get("game"), language=data.get("language"),  # type: ignore[arg-type]
        release=data.get("release", "latest"), options=data.get("options"),
        name=data.get("name") or "Table", user=user, seed=data.get("seed"),  # type: ignore[arg-type]
        turn_timer=data.get("turn_timer", 0), seat=False,
        pass_and_play=bool(data.get("pass_and_play", False)), market=data.get("market"),
    )
    response = _json_response({"code": room.code, "seat": None, "token": None,
                               "host_token": room.table_token,  # type: ignore[attr-defined]
                               "version": room.version}, 201)
    response["Location"] = f"/api/play/rooms/{room.code}"
    return response


POLL_FIELDS = ("version", "due_at", "status", "last_activity")


def _poll(code: str, token_hash: str | None) -> tuple[Seat | None, dict[str, Any]]:
    """One query: the seat of the token with this sha256, with its room's version, due time,
    status and activity (or the room's alone for the table). 404 for an unknown room, 403 for
    a token that is no seat of it (saying so when the host moved the seat away). The GET and
    the stream share it (a stream opened with a ticket knows only the token's sha256)."""
    if token_hash:
        seat = rooms.find_seat_hashed(code, token_hash)
        if seat is None:
            found = rooms.get_room(code)
            _refuse_token(found.code, token_hash)
        return seat, seat.poll  # type: ignore[union-attr]
    row = _TABLE_POLL.first(code)
    if row is None:
        raise rooms.NoRoom(f"There is no room {code}. Check the code.")
    return None, dict(zip(POLL_FIELDS, row, strict=True))


_TABLE_POLL = Prepared(lambda code: Room.objects.order_by().filter(code=code).values_list(*POLL_FIELDS))


def _read_room(code: str, seat: Seat | None) -> Room:
    """The room a poll or a stream answers with: the seat's, as its lookup read it (no query),
    or the table's (one query with its release's digest); expired rooms are ``NoRoom``."""
    found = rooms.seat_room(seat) if seat is not None else rooms.find_room(code)
    if found is None:
        raise rooms.NoRoom(f"There is no room {code}. Check the code.")
    rooms.check_expiry(found)
    return found


@api_view(("GET", "HEAD"))
def room(request: HttpRequest, code: str) -> HttpResponse:
    # One query decides a 304: the token's seat with its room's version (or the room's
    # version alone for the table). Only a changed room (or a due bot or timer) reads more.
    code = code.upper()
    token = _token(request, code)
    seat, poll = _poll(code, rooms.hash_token(token) if token else None)
    now = timezone.now()
    etag = _etag(poll["version"], seat.seat if seat else None)
    fresh = not _expired(poll["status"], poll["last_activity"], now)
    if fresh and (poll["due_at"] is None or poll["due_at"] > now) and _etag_matches(request, etag):
        response = HttpResponse(status=304)
        response["ETag"] = etag
        response["Cache-Control"] = "private, no-cache"
        return response
    found = rooms.step_bots(_read_room(code, seat))
    return _room_response(rooms.snapshot(found, seat))


# --- pushed updates (Server-Sent Events; DESIGN.md: Pushed updates) ---------------------------


def _look(code: str, token_hash: str | None, sent: int | None) -> tuple[dict[str, Any] | None, Any]:
    """What a stream sends next: ``(body, due_at)``, the body ``None`` when the room is still
    at version ``sent`` and no bot or timer is due (one query, as a 304 poll). The caller is
    the seat of the token with sha256 ``token_hash`` (``None``: the table). Raises the
    play errors (404, 403) like the GET. Runs on the look pool (``KARTOTHEK_PLAY_LOOK_THREADS``:
    a few threads per process, each keeping its database connection: opening one costs more
    than the look); a waiting stream holds neither a thread nor a connection."""
    try:
        seat, poll = _poll(code, token_hash)
        now = timezone.now()
        due = poll["due_at"] is not None and poll["due_at"] <= now
        if poll["version"] == sent and not due and \
                not _expired(poll["status"], poll["last_activity"], now):
            return None, poll["due_at"]
        found = rooms.step_bots(_read_room(code, seat))
        body = rooms.snapshot(found, seat)
        if body["version"] == sent:
            body = None  # a due bot that had nothing to do
        return body, found.due_at
    except BaseException:
        connection.close()  # it may be broken: the next look opens a new one
        raise


def _event(body: dict[str, Any]) -> bytes:
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return f"id: {body['version']}\nevent: room\ndata: {data}\n\n".encode()


def _ping(sent: int | None, every: float) -> bytes:
    """``event: ping``: the version this stream last sent and the seconds to the next ping."""
    return f'event: ping\ndata: {{"version":{json.dumps(sent)},"every":{every:g}}}\n\n'.encode()


def _last_event_id(request: HttpRequest) -> int | None:
    """``Last-Event-ID`` (a reconnecting EventSource), else ``?last_event_id=`` (a client that
    opens a new EventSource with a new ticket and so cannot set the header)."""
    raw = (request.headers.get("Last-Event-ID") or request.GET.get("last_event_id") or "").strip()
    return int(raw) if ascii_number(raw) else None


async def _stream(code: str, token_hash: str | None, sent: int | None,
                  first: dict[str, Any] | None, due_at: Any, slot: int = 0) -> Any:
    # the client's stream slot (games/stream_slots.py): refreshed while open, freed at the end
    stream_slots.hold(slot)
    try:
        async with aclosing(_events(code, token_hash, sent, first, due_at)) as sending:
            async for event in sending:
                yield event
                del event  # a waiting stream holds no body
    finally:
        stream_slots.let_go(slot)


async def _events(code: str, token_hash: str | None, sent: int | None,
                  first: dict[str, Any] | None, due_at: Any) -> Any:
    # the looks' own pool: on the loop's default one (six threads on two cores) a move's fan-out
    # ran six looks at once, taking turns at the GIL while the next move's request waited
    look = sync_to_async(_look, thread_sensitive=False,
                         executor=process_pool("look", settings.KARTOTHEK_PLAY_LOOK_THREADS))
    heartbeat = float(settings.KARTOTHEK_PLAY_EVENTS_HEARTBEAT)
    every = float(settings.KARTOTHEK_PLAY_EVENTS_PING)
    yield b"retry: 2000\n\n"
    if first is not None:
        sent = first["version"]
        event, first = _event(first), None  # a waiting stream holds no body (1,000 streams)
        yield event
        del event
    async with room_events.subscribe(code) as subscription:
        loop = asyncio.get_running_loop()
        beat_at = loop.time() + heartbeat
        ping_at = loop.time() + every if every > 0 else None
        while True:
            now = loop.time()
            wait = beat_at - now if ping_at is None else min(beat_at, ping_at) - now
            if due_at is not None:  # a bot's move or the turn timer: look when it is due
                wait = min(wait, max(0.0, (due_at - timezone.now()).total_seconds()) + 0.01)
            heard = await subscription.next(max(0.0, wait))
            if ping_at is not None and loop.time() >= ping_at:
                # a named event a page can see (a comment it cannot): its watchdog takes a stream
                # silent for longer than a ping and a half for dead and polls (play-link.js)
                ping_at = loop.time() + every
                yield _ping(sent, every)
                if heard is None and loop.time() < beat_at and (due_at is None or due_at > timezone.now()):
                    continue  # only the ping was due
            if heard is None and loop.time() >= beat_at:
                # and a look (one query when nothing changed, as a 304 poll): a room deleted or
                # closed without a word reaching this process still ends its streams
                beat_at = loop.time() + heartbeat
                yield b": keep-alive\n\n"
            elif heard is not None and 0 <= heard <= (sent if sent is not None else -1) and \
                    (due_at is None or due_at > timezone.now()):
                continue  # a version this stream has already sent
            try:
                body, due_at = await look(code, token_hash, sent)
            except rooms.PlayError as exc:
                message = json.dumps({"error": str(exc), "status": exc.status}, ensure_ascii=False)
                yield f"event: closed\ndata: {message}\n\n".encode()
                return
            if body is not None:
                sent = body["version"]
                beat_at = loop.time() + heartbeat
                event, body = _event(body), None
                yield event
                del event


def _open(code: str, token: str | None, ticket: str | None, sent: int | None,
          key: str | None = None) -> tuple[int, str | None, tuple[dict[str, Any] | None, Any]]:
    """A new stream's slot of client ``key`` (games/stream_slots.py; taken first, so a refused
    stream spends no ticket; ``StreamsFull`` over the cap; none for ``None``, a HEAD), its
    caller as the sha256 of its seat's token (a ticket is redeemed for it, once; ``None``: the
    table), and its first look."""
    slot = stream_slots.take(key) if key is not None else 0
    try:
        if ticket is not None:
            token_hash: str | None = tickets.redeem(code, ticket)
        else:
            token_hash = rooms.hash_token(token) if token else None
        return slot, token_hash, _look(code, token_hash, sent)
    except BaseException:
        stream_slots.release(slot)
        raise


@csrf_exempt
async def events(request: HttpRequest, code: str) -> HttpResponse:
    """``GET rooms/CODE/events``: the room's body (as ``GET rooms/CODE`` gives this caller) as
    Server-Sent Events, one per new version; ``Last-Event-ID`` (or ``?last_event_id=``)
    resumes. ``?as=table`` asks for the table's view whatever cookie the browser sends (the
    table screen); ``?ticket=`` is a seat's stream ticket (games/tickets.py)."""
    if request.method not in ("GET", "HEAD"):
        response = error(405, f"{request.method} is not allowed here; use GET.")
        response["Allow"] = "GET, HEAD"
        return response
    if not isinstance(request, ASGIRequest):
        # A WSGI server (manage.py runserver, a test's live server) would give each stream a
        # thread for as long as it stays open: the pages poll instead.
        return error(503, "Event streams are served through ASGI only (make run, make serve); "
                          "poll GET /api/play/rooms/CODE with If-None-Match instead.")
    code = code.upper()
    try:
        table = request.GET.get("as") == "table"
        ticket = None if table else request.GET.get("ticket")
        token = None if table or ticket is not None else _token(request, code)
        sent = _last_event_id(request)
    except TooManyFieldsSent:
        return error(400, "The request is too large (its query string).")
    try:
        slot, token_hash, (first, due_at) = await sync_to_async(_open, thread_sensitive=False)(
            code, token, ticket, sent, stream_slots.key_of(request) if request.method == "GET" else None)
    except stream_slots.StreamsFull:
        return stream_slots.refused()
    except rooms.PlayError as exc:
        return error(exc.status, str(exc))
    if request.method == "HEAD":
        response = HttpResponse(content_type="text/event-stream")
    else:
        response = StreamingHttpResponse(_stream(code, token_hash, sent, first, due_at, slot),
                                         content_type="text/event-stream")
    response["Cache-Control"] = "private, no-cache"
    response["X-Accel-Buffering"] = "no"  # a proxy in front must pass each event on at once
    return response


@api_view(("POST",))
def stream_tickets(request: HttpRequest, code: str) -> HttpResponse:
    """``POST rooms/CODE/stream-tickets`` with a seat's token: a ticket that opens that seat's
    event stream once, within ``tickets.TICKET_SECONDS`` (for a browser's EventSource, which
    sends no Authorization header). Counted as a play write of its client (games.ratelimit),
    not of the room: a ticket changes nothing in it."""
    _body(request)  # none needed; {} is fine, malformed JSON is a 400 as everywhere
    found = rooms.get_room(code)
    seat = _seat(request, found, required=True)
    assert seat is not None
    ticket = tickets.issue(found, seat.token_hash)
    response = _json_response({"ticket": ticket, "expires_in": tickets.TICKET_SECONDS,
                               "events_url": f"/api/play/rooms/{found.code}/events?ticket={ticket}"},
                              201)
    response["Cache-Control"] = "no-store"  # a secret, if a short-lived one
    return response


def _acting_seat(request: HttpRequest, code: str) -> Seat:
    """The seat the request's token proves (one query), for an action."""
    code = code.upper()
    token = _token(request, code)
    if not token:
        rooms.get_room(code)  # 404 first for an unknown room
        raise rooms.NotASeat("Only a seat of this room can do that: send its token.")
    seat = rooms.find_seat(code, token)
    if seat is None:
        found = rooms.get_room(code)  # 404 for an unknown room, else the token is wrong
        _refuse_token(found.code, rooms.hash_token(token))
    if _expired(seat.poll["status"], seat.poll["last_activity"]):  # type: ignore[attr-defined]
        rooms.check_expiry(rooms.load_room(seat.room_id))
    return seat


@api_view(("POST",))
def join(request: HttpRequest, code: str) -> HttpResponse:
    data = _body(request)
    _check_cookie_flag(data)
    found = rooms.get_room(code)
    if not allow(request):
        return _limited()
    seat = rooms.join(found, name=data.get("name"), client=client_of(request))  # type: ignore[arg-type]
    token: str = seat.token  # type: ignore[attr-defined]
    response = _json_response({"seat": seat.seat, "token": token}, 201)
    _set_seat_cookie(request, response, data, found.code, token)
    return response


@api_view(("POST",))
def start(request: HttpRequest, code: str) -> HttpResponse:
    data = _body(request)
    found = rooms.get_room(code)
    seat = _seat(request, found, required=True)
    assert seat is not None
    _charge_room(found, seat, game=True)
    user = request.user if request.user.is_authenticated else None
    started = rooms.start(found, seat, options=data.get("options"), user=user)
    return _json_response({"version": started.version})


@api_view(("POST",))
def actions(request: HttpRequest, code: str) -> HttpResponse:
    try:
        data = _body(request)
        seat = _acting_seat(request, code)
    except (rooms.PlayError, RequestDataTooBig, TooManyFieldsSent):
        # a request refused before its move counts as a write of its client all the same (not
        # of the room: it proved no seat of it)
        if (reason := allow_client(request)) is not None:
            return too_many(reason, json=True)
        raise
    body = rooms.act(code.upper(), seat, action_id=data.get("id"),  # type: ignore[arg-type]
                     version=data.get("version"), action=data.get("action"),  # type: ignore[arg-type]
                     count_write=lambda: allow_write(request, code), client=client_of(request))
    return _room_response(body)


# --- host controls (each answers with the room as the caller sees it) -------------------------


def _control(request: HttpRequest, code: str,
             change: Callable[[Room, Seat, dict[str, Any]], Room], *, game: bool = False) -> HttpResponse:
    data = _body(request)
    found = rooms.get_room(code)
    seat = _seat(request, found, required=True)
    assert seat is not None
    _charge_room(found, seat, game=game)
    changed = change(found, seat, data)
    fresh = changed.seats.filter(pk=seat.pk, removed=False, bot=False).first()
    return _room_response(rooms.snapshot(changed, fresh))


@api_view(("POST",))
def remove_seat(request: HttpRequest, code: str, seat_id: str) -> HttpResponse:
    return _control(request, code, lambda r, s, d: rooms.remove_seat(r, s, seat_id))


@api_view(("POST",))
def away(request: HttpRequest, code: str, seat_id: str) -> HttpResponse:
    def change(r: Room, s: Seat, d: dict[str, Any]) -> Room:
        value = d.get("away", True)
        if not isinstance(value, bool):
            raise BadRequest("\"away\" is true or false.")
        return rooms.set_away(r, s, seat_id, value)

    return _control(request, code, change)


@api_view(("POST",))
def give_host(request: HttpRequest, code: str, seat_id: str) -> HttpResponse:
    found = rooms.get_room(code)
    token = _token(request, found.code)
    if rooms.is_table_token(found, token):  # a table-only room's table hands the controls on
        assert token is not None
        _charge_room(found, None)
        return _room_response(rooms.snapshot(rooms.give_host_from_table(found, token, seat_id), None))
    return _control(request, code, lambda r, s, d: rooms.give_host(r, s, seat_id))


@api_view(("POST",))
def seat_to_bot(request: HttpRequest, code: str, seat_id: str) -> HttpResponse:
    return _control(request, code, lambda r, s, d: rooms.give_to_bot(r, s, seat_id))


@api_view(("POST",))
def add_bot(request: HttpRequest, code: str) -> HttpResponse:
    return _control(request, code, lambda r, s, d: rooms.give_to_bot(r, s, None))


@api_view(("POST",))
def teams(request: HttpRequest, code: str) -> HttpResponse:
    return _control(request, code, lambda r, s, d: rooms.set_teams(r, s, d.get("teams")))  # type: ignore[arg-type]


@api_view(("POST",))
def again(request: HttpRequest, code: str) -> HttpResponse:
    return _control(request, code, lambda r, s, d: rooms.play_again(r, s), game=True)


@api_view(("GET", "HEAD"))
def replay(request: HttpRequest, code: str) -> HttpResponse:
    found = rooms.get_room(code)
    number = request.GET.get("game")
    if number is not None and not ascii_number(number, 9):
        raise BadRequest("game is the number of a game of this room (1, 2, …).")
    steps = rooms.replay(found, int(number) if number else None)
    return _json_response({"code": found.code, "game": found.game, "steps": steps})


@csrf_exempt
def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    return error(404, f"There is nothing at /api/play/{path}; see /api/openapi.json.")
