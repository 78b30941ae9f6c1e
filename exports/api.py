"""The pack API: read-only JSON for clients outside the project (see /api/openapi.json).

A release never changes, so it is served with its sha256 as ETag and cached for a year;
``If-None-Match`` is answered with 304 from the sha256 alone, without reading the pack.
Released bytes (read from the release storage, checked against their sha256) and their gzip
are kept in a small in-process cache keyed by sha256, which needs no invalidation because
the bytes behind a sha256 cannot change; a missing or changed file is a JSON 503 or 409.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache, wraps
from pathlib import Path
from urllib.parse import unquote_plus

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt

from cards.models import Game, split_edition
from cards.permissions import draft_permissions
from cards.text import ascii_number
from common.permissions import has_all
from exports.deltas import MAX_SPAN, make_delta
from exports.errors import PackError
from exports.models import Release, ReleaseSignature
from exports.packs import (
    DELTA_SCHEMA_PATH,
    SCHEMA_PATH,
    build_pack,
    canonical,
    editions_of_game,
    picture_bytes,
    sha256,
    with_embedded_pictures,
)
from exports.release_files import ReleaseFileError, read_release
from exports.serialise import gzip_bytes
from exports.signing import ALGORITHM, public_keys
from exports.timestamps import signed_timestamp

OPENAPI_PATH = Path(__file__).parent / "schema" / "openapi.json"
IMMUTABLE = "public, max-age=31536000, immutable"
LATEST_MAX_AGE = 60  # seconds a client may keep the "latest" redirect


def error(status: int, message: str, **extra: object) -> JsonResponse:
    return JsonResponse({"error": message, "status": status, **extra}, status=status)


def read_only(view):  # type: ignore[no-untyped-def]
    """GET and HEAD only; anything else is a JSON 405 (the API changes nothing).

    Exempt from CSRF so that an unsafe method reaches this check and gets the documented
    JSON 405 instead of Django's HTML CSRF page: safe, because the wrapper refuses every
    method but GET and HEAD before the view runs, so no request can write through it.
    """

    @csrf_exempt
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):  # type: ignore[no-untyped-def]
        if request.method not in ("GET", "HEAD"):
            response = error(405, f"{request.method} is not allowed: the pack API is read-only.")
            response["Allow"] = "GET, HEAD"
            return response
        try:
            return view(request, *args, **kwargs)
        except (RequestDataTooBig, TooManyFieldsSent):  # a hostile query string: JSON, not HTML
            return error(400, "The request is too large (too many query fields).")

    return wrapper


def _check(game: str, language: str) -> JsonResponse | None:
    """``language`` is the pack's edition: a language, or for the slogan game a language in
    one market (en-GB, en-US)."""
    if game not in Game.values:
        return error(404, f"There is no game '{game}'.", games=Game.values)
    if language not in editions_of_game(game):
        known = language.partition("-")[0] in settings.KARTOTHEK_LANGUAGES
        return error(404, f"There is no language '{language}'" + (
            f" for {game}: only the slogan game has a pack per market." if known else "."),
            languages=editions_of_game(game))
    return None


def _etag_matches(request: HttpRequest, etag: str) -> bool:
    header = request.headers.get("If-None-Match", "")
    if not header:
        return False
    tags = [t.strip() for t in header.split(",")]
    return "*" in tags or any(t.removeprefix("W/") == etag for t in tags)


def _accepts_gzip(request: HttpRequest) -> bool:
    """Whether Accept-Encoding allows gzip (by name, else by '*'), honouring q=0."""
    qualities: dict[str, float] = {}
    for part in request.headers.get("Accept-Encoding", "").split(","):
        name, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        qualities[name.strip().lower()] = quality
    return qualities.get("gzip", qualities.get("*", 0.0)) > 0


def _pack_response(request: HttpRequest, data: bytes, compressed: bytes, etag: str,
                   cache_control: str) -> HttpResponse:
    gzip_it = _accepts_gzip(request)
    response = HttpResponse(compressed if gzip_it else data, content_type="application/json")
    if gzip_it:
        response["Content-Encoding"] = "gzip"
    response["Content-Length"] = str(len(response.content))
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    response["Vary"] = "Accept-Encoding"
    return response


def _not_modified(etag: str, cache_control: str) -> HttpResponse:
    response = HttpResponse(status=304)
    response["ETag"] = etag
    response["Cache-Control"] = cache_control
    response["Vary"] = "Accept-Encoding"
    return response


@lru_cache(maxsize=1024)
def _release_sha(game: str, language: str, version: int) -> str:
    """The sha256 of a release (raises Release.DoesNotExist, which is not cached).

    A release never changes or goes away, so a process may keep the answer for good.
    """
    return Release.objects.filter(game=game, language=language, version=version).values_list(
        "sha256", flat=True).get()


@lru_cache(maxsize=64)
def _release_bytes(release_sha: str) -> tuple[bytes, bytes]:
    """A release's bytes from the release storage, checked against the sha256, and their gzip.

    Raises ReleaseFileError (not cached: a restored file is served at the next request).
    """
    game, language, version = Release.objects.filter(sha256=release_sha).values_list(
        "game", "language", "version").get()
    data = read_release(release_sha, label=f"Release {version} of {game} ({language})")
    return data, gzip_bytes(data)


def _release_file_error(exc: ReleaseFileError) -> JsonResponse:
    response = error(exc.status, str(exc))
    if exc.status == 503:
        response["Retry-After"] = "60"
    return response


@lru_cache(maxsize=16)
def _embedded_bytes(release_sha: str) -> tuple[bytes, bytes, str]:
    data, _ = _release_bytes(release_sha)
    embedded = canonical(with_embedded_pictures(json.loads(data)))
    return embedded, gzip_bytes(embedded), sha256(embedded)


def _release_url(game: str, language: str, version: int) -> str:
    return reverse("api:release", args=[game, language, version])


def _release_entries(releases: QuerySet[Release]) -> list[tuple[str, str, dict[str, object]]]:
    """(game, language, entry) for each release of a queryset, as the index lists them."""
    entries = []
    # The release notes' counts only (a first release lists every card, too much for an index).
    for game, language, version, digest, content, size, published, note, since, counts in (
        releases.values_list(
            "game", "language", "version", "sha256", "body_sha256", "size", "published_at",
            "note", "changes__since", "changes__counts")):
        entries.append((game, language, {
            "version": version, "sha256": digest, "content_sha256": content, "size": size,
            "published_at": published.isoformat(),
            "url": _release_url(game, language, version),
            "note": note,
            "changes": None if counts is None else {"since": since, **counts},
        }))
    return entries


@read_only
def index(request: HttpRequest) -> JsonResponse:
    """Every game and language with its releases, newest first."""
    releases: dict[tuple[str, str], list[dict[str, object]]] = {}
    for game, language, entry in _release_entries(
            Release.objects.order_by("game", "language", "-version")):
        releases.setdefault((game, language), []).append(entry)
    games = []
    for game, label in Game.choices:
        languages = []
        for language in editions_of_game(game):
            found = releases.get((game, language), [])
            market = split_edition(language)[1]
            languages.append({
                "language": language,
                **({"market": market} if market else {}),
                "latest": reverse("api:latest", args=[game, language]) if found else None,
                "releases": found,
            })
        games.append({"game": game, "name": label, "languages": languages})
    response = JsonResponse({"format_version": 1, "games": games,
                             "schema": reverse("api:schema")})
    # The index changes with every publish: its ETag is its bytes' digest, so a client that
    # polls it with If-None-Match gets a 304 until something is published.
    etag = f'"{sha256(response.content)}"'
    if _etag_matches(request, etag):
        return _not_modified(etag, f"public, max-age={LATEST_MAX_AGE}")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={LATEST_MAX_AGE}"
    return response


def _latest_query(request: HttpRequest) -> tuple[str | None, str]:
    """(the ``redirect`` parameter, the rest of the query string as sent).

    The rest goes into the redirect unchanged (``latest?since=N`` asks the newest release
    for what changed since N); ``redirect`` only chooses the answer's form.
    """
    redirect, kept = None, []
    for part in request.META.get("QUERY_STRING", "").split("&"):
        name, _, value = part.partition("=")
        if name == "redirect":
            redirect = unquote_plus(value).lower()  # Python's urlencode writes False
        elif part:
            kept.append(part)
    return redirect, "&".join(kept)


@read_only
def latest(request: HttpRequest, game: str, language: str) -> HttpResponse:
    """302 to the newest release; with ``?redirect=false`` that release as JSON (200), for
    clients that follow no redirects (generated clients on httpx do not by default; a
    browser's ``fetch(url, {redirect: "manual"})`` cannot read the Location)."""
    problem = _check(game, language)
    if problem:
        return problem
    redirect, query = _latest_query(request)
    if redirect not in (None, "true", "false"):
        return error(400, f"redirect={redirect[:20]!r} is neither true nor false: give "
                          "redirect=false for the newest release as JSON, or leave it out "
                          "for the redirect.")
    releases = Release.objects.filter(game=game, language=language)
    newest = releases.order_by("-version").values_list("version", "sha256").first()
    if newest is None:
        return error(404, f"No release of {game} ({language}) has been published yet.")
    version, digest = newest
    if request.GET.get("since") == str(version):
        # The client holds the newest release: nothing to send (the ETag is that release's).
        return _not_modified(f'"{digest}"', f"public, max-age={LATEST_MAX_AGE}")
    location = _release_url(game, language, version) + (f"?{query}" if query else "")
    if redirect == "false":  # the index's entry of that release (a second query: rarely asked)
        [(_, _, entry)] = _release_entries(releases.filter(version=version))
        response: HttpResponse = JsonResponse(
            {"game": game, "language": language, **entry, "location": location})
    else:
        response = HttpResponse(status=302)
        response["Location"] = location
    response["Cache-Control"] = f"public, max-age={LATEST_MAX_AGE}"
    return response


@read_only
def release(request: HttpRequest, game: str, language: str, version: int) -> HttpResponse:
    problem = _check(game, language)
    if problem:
        return problem
    since = request.GET.get("since")
    if since is not None:
        # The delta path's answer, served here (no redirect: one round trip, and generated
        # clients that follow no redirects get it too): the same bytes and ETag as
        # N..VERSION.delta.json, or the same 303 to the full release.
        if not ascii_number(since, 9) or int(since) < 1:
            return error(400, f"since={since[:20]!r} is not a release number; give the "
                              "version the client holds (a whole number from 1).")
        response = _delta_answer(request, game, language, int(since), version)
        if response.status_code in (200, 304):
            response["Content-Location"] = reverse("api:delta", kwargs={
                "game": game, "language": language, "since": int(since), "version": version})
        return response
    try:
        digest = _release_sha(game, language, version)
    except Release.DoesNotExist:
        return error(404, f"There is no release {version} of {game} ({language}).")
    if request.GET.get("pictures") == "embedded":
        try:
            data, compressed, embedded_sha = _embedded_bytes(digest)
        except ReleaseFileError as exc:
            return _release_file_error(exc)
        except PackError as exc:  # a picture no longer matches its sha256: refuse, never guess
            return error(409, str(exc))
        etag = f'"{embedded_sha}"'
        if _etag_matches(request, etag):
            return _not_modified(etag, IMMUTABLE)
    else:
        etag = f'"{digest}"'
        if _etag_matches(request, etag):
            return _not_modified(etag, IMMUTABLE)  # answered from the sha256 alone
        try:
            data, compressed = _release_bytes(digest)
        except ReleaseFileError as exc:  # missing or changed: never serve other bytes
            return _release_file_error(exc)
    response = _pack_response(request, data, compressed, etag, IMMUTABLE)
    if request.GET.get("pictures") != "embedded":  # the signature covers the release bytes only
        signed = _signature_of(digest)
        if signed is not None:
            response["X-Kartothek-Signature"] = f"keyid={signed[0]}, {ALGORITHM}={signed[1]}"
    return response


_signatures: dict[str, tuple[str, str]] = {}


def _signature_of(release_sha: str) -> tuple[str, str] | None:
    """(key id, base64 signature) of a release, or None while it has none.

    Only found signatures are kept: they never change, while a missing one may be written
    later by ``manage.py sign_releases``.
    """
    if release_sha not in _signatures:
        found = ReleaseSignature.objects.filter(release__sha256=release_sha).values_list(
            "key_id", "signature").first()
        if found is None:
            return None
        if len(_signatures) > 4096:
            _signatures.clear()
        _signatures[release_sha] = found
    return _signatures[release_sha]


@read_only
def release_signature(request: HttpRequest, game: str, language: str,
                      version: int) -> HttpResponse:
    """The Ed25519 signature of a release's exact bytes, for clients that got it elsewhere."""
    problem = _check(game, language)
    if problem:
        return problem
    try:
        digest = _release_sha(game, language, version)
    except Release.DoesNotExist:
        return error(404, f"There is no release {version} of {game} ({language}).")
    signed = _signature_of(digest)
    if signed is None:
        return error(404, f"Release {version} of {game} ({language}) has not been signed: the "
                          "server had no signing key when it was published.")
    response = JsonResponse({
        "release": _release_url(game, language, version), "sha256": digest,
        "algorithm": ALGORITHM, "key_id": signed[0], "signature": signed[1],
    })
    response["ETag"] = f'"{digest}.sig"'
    response["Cache-Control"] = IMMUTABLE
    return response


_signature_of.cache_clear = _signatures.clear  # type: ignore[attr-defined]


@read_only
def keys(request: HttpRequest) -> JsonResponse:
    """The public keys releases are signed with."""
    response = JsonResponse({"algorithm": ALGORITHM, "keys": public_keys()})
    response["Cache-Control"] = "public, max-age=3600"
    return response


@read_only
def timestamp(request: HttpRequest) -> HttpResponse:
    """The signed, dated list of the newest release of every pack (exports/timestamps.py):
    cached like ``latest``, its ETag the digest of its bytes."""
    stamp = signed_timestamp()
    if stamp is None:
        return error(404, "The server has no signing key: it signs no timestamp (and no "
                          "release), so there is nothing a client could check.")
    response = JsonResponse(stamp)
    etag = f'"{sha256(response.content)}"'
    if _etag_matches(request, etag):
        return _not_modified(etag, f"public, max-age={LATEST_MAX_AGE}")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={LATEST_MAX_AGE}"
    return response


@read_only
def draft(request: HttpRequest, game: str, language: str) -> HttpResponse:
    """The pack of the current content: for staff who may see every card of the game
    (README, "Roles"), never cached."""
    problem = _check(game, language)
    if problem:
        return problem
    if not (request.user.is_authenticated and request.user.is_staff
            and has_all(request, draft_permissions(game))):
        return error(403, "Drafts are only served to logged-in curators (staff who may see "
                          "every card of the game); use a release.")
    try:
        pack = build_pack(game, language)
        if request.GET.get("pictures") == "embedded":
            pack = with_embedded_pictures(pack)
    except PackError as exc:
        return error(409, str(exc))
    data = canonical(pack)
    return _pack_response(request, data, gzip_bytes(data), f'"{sha256(data)}"',
                          "private, no-store")


@lru_cache(maxsize=4)
def _file_with_etag(path: Path) -> tuple[bytes, str]:
    data = path.read_bytes()  # files of the source tree: read once per process
    return data, f'"{sha256(data)}"'


def _static_json(path: Path, content_type: str) -> HttpResponse:
    data, etag = _file_with_etag(path)
    response = HttpResponse(data, content_type=content_type)
    response["Cache-Control"] = "public, max-age=3600"
    response["ETag"] = etag
    return response


@read_only
def pack_schema(request: HttpRequest) -> HttpResponse:
    return _static_json(SCHEMA_PATH, "application/schema+json")


@read_only
def delta_schema(request: HttpRequest) -> HttpResponse:
    return _static_json(DELTA_SCHEMA_PATH, "application/schema+json")


@read_only
def openapi(request: HttpRequest) -> HttpResponse:
    return _static_json(OPENAPI_PATH, "application/json")


@read_only
def picture(request: HttpRequest, digest: str) -> HttpResponse:
    etag = f'"{digest}"'
    if _etag_matches(request, etag):
        return _not_modified(etag, IMMUTABLE)
    try:
        data = picture_bytes(digest)
    except PackError as exc:  # stored bytes that do not match the sha256 are never served
        return error(409, str(exc))
    if data is None:
        return error(404, f"There is no picture {digest}.")
    response = HttpResponse(data, content_type="image/png")
    response["ETag"] = etag
    response["Cache-Control"] = IMMUTABLE
    return response


@read_only
def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    return error(404, f"There is nothing at /api/{path}; the API is described at /api/openapi.json.")



@lru_cache(maxsize=256)
def _delta_bytes(from_sha: str, to_sha: str, embedded: bool) -> tuple[bytes, bytes] | None:
    """(canonical delta, its gzip) between two releases, or None when the delta would not be
    smaller than the target release. Kept by the two sha256s: both sides never change."""
    if embedded:
        old_data, _, old_sha = _embedded_bytes(from_sha)
        new_data, new_gzip, new_sha = _embedded_bytes(to_sha)
    else:
        (old_data, _), (new_data, new_gzip) = _release_bytes(from_sha), _release_bytes(to_sha)
        old_sha, new_sha = from_sha, to_sha
    delta = make_delta(json.loads(old_data), json.loads(new_data), from_sha256=old_sha,
                       to_sha256=new_sha)
    data = canonical(delta)
    compressed = gzip_bytes(data)
    if len(data) >= len(new_data) or len(compressed) >= len(new_gzip):
        return None
    return data, compressed


def _to_full_release(game: str, language: str, version: int, embedded: bool,
                     why: str) -> JsonResponse:
    full = _release_url(game, language, version) + ("?pictures=embedded" if embedded else "")
    response = JsonResponse({"full": full, "reason": why}, status=303)
    response["Location"] = full
    response["Cache-Control"] = IMMUTABLE  # the same pair always gets the same answer
    return response


@read_only
def delta(request: HttpRequest, game: str, language: str, since: int,
          version: int) -> HttpResponse:
    """What changed from release ``since`` to release ``version`` (exports/deltas.py)."""
    problem = _check(game, language)
    if problem:
        return problem
    return _delta_answer(request, game, language, since, version)


def _delta_answer(request: HttpRequest, game: str, language: str, since: int,
                  version: int) -> HttpResponse:
    """The delta, a 303 to the full release, or the error: for the path and ``?since=``."""
    if since >= version:
        return error(400, f"A delta goes from an older release to a newer one; {since} is not "
                          f"older than {version}.")
    try:
        from_sha = _release_sha(game, language, since)
        to_sha = _release_sha(game, language, version)
    except Release.DoesNotExist:
        return error(404, f"Releases {since} and {version} of {game} ({language}) do not both "
                          "exist.")
    embedded = request.GET.get("pictures") == "embedded"
    if version - since > MAX_SPAN:
        return _to_full_release(game, language, version, embedded,
                                f"more than {MAX_SPAN} releases behind")
    etag = '"' + hashlib.sha256(
        f"{from_sha}..{to_sha}{'+pictures' if embedded else ''}".encode()).hexdigest() + '"'
    if _etag_matches(request, etag):
        return _not_modified(etag, IMMUTABLE)  # from the two sha256s alone
    try:
        found = _delta_bytes(from_sha, to_sha, embedded)
    except ReleaseFileError as exc:
        return _release_file_error(exc)
    except PackError as exc:  # an embedded picture no longer matches its sha256
        return error(409, str(exc))
    if found is None:
        return _to_full_release(game, language, version, embedded,
                                "the delta would not be smaller than the release")
    return _pack_response(request, found[0], found[1], etag, IMMUTABLE)
