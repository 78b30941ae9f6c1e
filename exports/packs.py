"""Content packs: built from the content tables, checked against the schema, published.

Everything downstream of the catalogue (PDF decks, the play mode, the pack API, clients
outside the project) reads packs made here and never the content tables. A pack is built
with a fixed number of queries whatever the size of the catalogue, and serialised
canonically (sorted keys, no whitespace, UTF-8), so the same content gives the same bytes.
The format is described in ``docs/content-pack.md`` and ``exports/schema/content-pack.json``.
"""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from cards.files import load_json
from cards.models import (
    Game,
    SymbolTile,
    editions_of,
    normal_market,
    split_edition,
)
from cards.pictures import PictureError, read_stored_picture
from cards.text import REASON_MAX_CHARS
from exports.changes import pack_changes, untranslated
from exports.errors import PackError
from exports.models import PackPicture, Release
from exports.pack_bodies import BODIES, slogan_body
from exports.serialise import canonical, sha256
from exports.signing import SigningKeyError, sign_release

logger = logging.getLogger("kartothek.pictures")

FORMAT = "kartothek-content-pack"
FORMAT_VERSION = 1
SCHEMA_PATH = Path(__file__).parent / "schema" / "content-pack.json"
DELTA_SCHEMA_PATH = SCHEMA_PATH.with_name("content-pack-delta.json")
DRAFT = "draft"


# --- schema -------------------------------------------------------------------------------


@cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@cache
def _validator():  # type: ignore[no-untyped-def]
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())


def validate(pack: Any) -> None:
    """Raise PackError naming what is wrong: first incomplete cards (by key), then the first
    schema error, where in the pack it is (cards named by key) and what the rule wants."""
    check_complete(pack)
    errors = sorted(_validator().iter_errors(pack), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        where = "/".join(str(p) for p in error.absolute_path) or "(the pack itself)"
        named = _named(pack, error.absolute_path)
        raise PackError(
            f"The pack does not match the schema at {where}: {_schema_message(error)}"
            + (f" (in {named})" if named else "") + more
        )
    if sha256(canonical(pack["body"])) != pack["sha256"]:
        raise PackError("The pack's sha256 does not match its body: the file was changed.")


MAX_NAMED = 10


def incomplete_cards(pack: Any) -> list[str]:
    """Every card of a pack that lacks a part, as "slogan card KEY: what is missing".

    Read defensively: this runs before the schema check, on any JSON at all."""
    from cards.validation import slogan_card_problems

    body = pack.get("body") if isinstance(pack, dict) else None
    if not isinstance(body, dict) or pack.get("game") != Game.SLOGAN:
        return []
    found = []
    for card in body.get("cards") or []:
        if not isinstance(card, dict):
            continue
        slogans = card.get("slogans")
        slogans = slogans if isinstance(slogans, list) else []
        sides = {}
        for side, slogan in enumerate(slogans, start=1):
            slogan = slogan if isinstance(slogan, dict) else {}
            options = slogan.get("options")
            options = [o for o in options if isinstance(o, dict)] if isinstance(options, list) else []
            sides[side] = (slogan.get("key", "?"), [(str(o.get("text", "")), o.get("correct") is True)
                                                   for o in options])
        found.extend(f"slogan card {card.get('key', '?')}: {problem}"
                     for problem in slogan_card_problems(sides))
    return found


def check_complete(pack: Any) -> None:
    """Raise PackError naming every incomplete card (the first ten, and how many more)."""
    problems = incomplete_cards(pack)
    if problems:
        shown = "; ".join(problems[:MAX_NAMED])
        more = f"; and {len(problems) - MAX_NAMED} more" if len(problems) > MAX_NAMED else ""
        raise PackError(f"Some cards are incomplete: {shown}{more}. Correct them in the admin (a "
                        "slogan card needs both slogans, each with four options, one correct).")


def _named(pack: Any, path: Any) -> str:
    """The keys of the cards a schema path goes through: "karte-001 › just-do-it"."""
    keys: list[str] = []
    node = pack
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(step, int) and isinstance(node, dict) and isinstance(node.get("key"), str):
            keys.append(node["key"])
    return " › ".join(keys)


def _short(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return "an object" + (f" with the key '{value['key']}'" if isinstance(value.get("key"), str) else "")
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _schema_message(error: Any) -> str:
    """jsonschema's message without the dump of the value it is about."""
    message = str(error.message)
    shown = repr(error.instance)
    if len(shown) > 40:
        message = message.replace(shown, _short(error.instance))
    return message if len(message) <= 300 else message[:297] + "…"


def editions_of_game(game: str) -> list[str]:
    """What a game's packs are built for: each configured language and, for the slogan game
    (whose players know different slogans in the UK and the US), each market of a language."""
    if game != Game.SLOGAN:
        return list(settings.KARTOTHEK_LANGUAGES)
    return [e for language in settings.KARTOTHEK_LANGUAGES for e in editions_of(language)]


def check_game_and_language(game: str, language: str) -> None:
    """``language`` is a configured language, or for the slogan game a language in one of its
    markets ("en-GB"), as releases, rooms and the API name an edition."""
    if game not in BODIES:
        raise PackError(f"There is no game '{game}'; the games are: {', '.join(BODIES)}.")
    try:
        base, market = split_edition(language)
    except ValueError as exc:
        raise PackError(str(exc)) from None
    if base not in settings.KARTOTHEK_LANGUAGES:
        raise PackError(
            f"'{language}' is not a configured language; configured: "
            f"{', '.join(settings.KARTOTHEK_LANGUAGES)}."
        )
    if market and game != Game.SLOGAN:
        raise PackError(f"Only the slogan game has markets; a {game} pack is built for a "
                        f"language ('{base}'), not '{language}'.")


MARKET_HELP = ("slogan game only: the deck of one market of the language, GB (the UK) or US "
               "(the United States); without it, the cards known in both")


def edition_option(game: str, language: str, market: str | None) -> str:
    """The edition a command's ``--lang LANG [--market GB|US]`` names ("en-GB"), checked."""
    if market is None or not market.strip():
        check_game_and_language(game, language)
        return language
    if game != Game.SLOGAN:
        raise PackError(f"Only the slogan game has markets (GB, US); {game} has one deck per "
                        "language.")
    base, own = split_edition(language) if "-" in language else (language, None)
    try:
        code = normal_market(base, market)
    except ValueError as exc:
        raise PackError(str(exc)) from None
    if own and own != code:
        raise PackError(f"--lang {language} and --market {market} name two markets; give one.")
    edition = f"{base}-{code}"
    check_game_and_language(game, edition)
    return edition


def pack_edition(pack: dict[str, Any]) -> str:
    """The edition a pack was built for: its language, and its market when it has one."""
    market = pack.get("market")
    return f"{pack['language']}-{market}" if market else str(pack["language"])


def build_pack(game: str, language: str, *, strict: bool = False,
               content_version: int | str = DRAFT) -> dict[str, Any]:
    """The pack of a game in a language (for the slogan game also "en-GB", "en-US": the deck
    of one market, with ``market`` in the pack), from the current content tables."""
    check_game_and_language(game, language)
    base, market = split_edition(language)
    missing: list[str] = []
    body = (slogan_body(base, missing, language) if game == Game.SLOGAN
            else BODIES[game](base, missing))
    if strict and missing:
        shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
        raise PackError(f"{len(missing)} texts have no '{base}' translation: {shown}.")
    # "market" only in a market's pack: the packs of a whole language keep their bytes
    pack: dict[str, Any] = {"market": market} if market else {}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game,
        "language": base,
        **pack,
        "source_language": settings.KARTOTHEK_LANGUAGES[0],
        "content_version": content_version,
        "sha256": sha256(canonical(body)),
        "body": body,
    }


def pictures_of(pack: dict[str, Any]) -> list[dict[str, Any]]:
    if pack["game"] != Game.SYMBOLS:
        return []
    return [s["picture"] for s in pack["body"]["symbols"] if s.get("picture")]


def picture_bytes(sha: str) -> bytes | None:
    """A picture by its sha256: from the stored pack pictures or a current symbol tile.

    None when no picture has this sha256. The bytes are checked against the sha256 before
    they leave here; a mismatch (a file or row changed after it was stored) is a PackError
    naming the tile, never other bytes under this sha256.
    """
    stored = PackPicture.objects.filter(sha256=sha).values_list("data", flat=True).first()
    if stored is not None and sha256(bytes(stored)) == sha:
        return bytes(stored)
    tile = SymbolTile.objects.filter(image_sha256=sha).exclude(image="").order_by("key").first()
    if tile is None:
        if stored is not None:
            raise PackError(_refused(f"The stored copy of picture {sha} does not match its "
                                     "sha256 and no symbol tile holds the picture any more."))
        return None
    try:
        return read_stored_picture(tile.image.name, sha, label=f"symbol tile '{tile.key}'")
    except PictureError as exc:
        raise PackError(str(exc)) from None


def _refused(message: str) -> str:
    logger.error("Picture refused: %s", message)
    return message


def with_embedded_pictures(pack: dict[str, Any]) -> dict[str, Any]:
    """The same pack with every picture's bytes inside (for clients without network)."""
    embedded = json.loads(canonical(pack))
    for picture in pictures_of(embedded):
        data = picture_bytes(picture["sha256"])
        if data is None:
            raise PackError(f"The picture {picture['sha256']} is missing.")
        picture["data"] = base64.b64encode(data).decode("ascii")
    embedded["sha256"] = sha256(canonical(embedded["body"]))
    return embedded


# --- releases ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Published:
    release: Release
    created: bool  # False: the content had not changed, the latest release stands


class PublishConflict(PackError):
    """What the curator reviewed is not what would be published any more."""


NOTE_MAX_CHARS = REASON_MAX_CHARS


def clean_note(note: str) -> str:
    """The curator's note as it is kept: trimmed, plain lines, at most 2,000 characters."""
    text = note.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(text) > NOTE_MAX_CHARS:
        raise PackError(f"The note has {len(text):,} characters; at most {NOTE_MAX_CHARS:,} "
                        "are kept with a release.")
    if any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 for c in text):
        raise PackError("The note holds a control character; write plain text.")
    return text


def publish(game: str, language: str, *, user: Any = None, note: str = "",
            reviewed_version: int | None = None, reviewed_sha256: str | None = None) -> Published:
    """Publish the current content as the next release, unless nothing changed.

    The release keeps what changed since the previous one (exports/changes.py) and ``note``.
    ``reviewed_version`` (0: none yet) and ``reviewed_sha256`` (the draft's) are what a
    curator saw before confirming: a release published meanwhile, or content changed since,
    raises PublishConflict instead of publishing something nobody reviewed.
    """
    check_game_and_language(game, language)
    note = clean_note(note)
    draft = build_pack(game, language)
    if reviewed_sha256 is not None and draft["sha256"] != reviewed_sha256:
        raise PublishConflict("The content changed while you were reviewing it: nothing was "
                              "published. Review the changes again.")
    for _attempt in range(3):
        latest = Release.objects.latest_of(game, language)
        if reviewed_version is not None and (latest.version if latest else 0) != reviewed_version:
            if latest is None:  # only a forged form says so: releases never go away
                raise PublishConflict(f"There is no release {reviewed_version} to publish after.")
            who = f" by {latest.published_by}" if latest.published_by else ""
            raise PublishConflict(f"{latest} was published{who} while you were reviewing: "
                                  "nothing was published. Review the changes since it.")
        if latest is not None and latest.body_sha256 == draft["sha256"]:
            return Published(latest, created=False)
        version = (latest.version if latest else 0) + 1
        pack = {**draft, "content_version": version}
        validate(pack)
        data = canonical(pack)
        changes = pack_changes(json.loads(bytes(latest.data)) if latest else None, pack)
        try:
            with transaction.atomic():
                for picture in pictures_of(pack):
                    # Checked against the sha256 whether or not an earlier release stored it:
                    # a release must never point at bytes other than the ones it names.
                    digest = picture["sha256"]
                    content = picture_bytes(digest)
                    if content is None:
                        raise PackError(f"The picture of a symbol ({digest}) is missing.")
                    kept = PackPicture.objects.filter(sha256=digest).values_list(
                        "data", flat=True).first()
                    if kept is None:
                        PackPicture.objects.create(sha256=digest, media_type=picture["media_type"],
                                                   data=content)
                    elif bytes(kept) != content:  # a damaged copy: put the true bytes back
                        PackPicture.objects.filter(sha256=digest).update(data=content)
                release = Release.objects.create(
                    game=game, language=language, version=version, sha256=sha256(data),
                    body_sha256=pack["sha256"], size=len(data), data=data,
                    published_by=user if getattr(user, "is_authenticated", False) else None,
                    note=note, changes=changes,
                )
                # Signed in the same transaction: a release is never seen without the
                # signature it will always have (none only when no key is configured).
                try:
                    sign_release(release)
                except SigningKeyError as exc:  # a key that cannot be read: publish nothing
                    raise PackError(f"Not published: {exc}") from None
            return Published(release, created=True)
        except IntegrityError:
            continue  # someone published the same version a moment ago: look again
    raise PackError("Could not publish: other releases were being published at the same time.")


# --- loading (for the PDF renderer, the play mode, the simulations) -----------------------


@dataclass(frozen=True)
class Pending:
    """What publishing now would release: the newest release, the draft, and the changes."""

    latest: Release | None
    draft: dict[str, Any]
    changes: dict[str, Any]

    @property
    def version(self) -> int:
        """The version publishing would make."""
        return (self.latest.version if self.latest else 0) + 1

    @property
    def empty(self) -> bool:
        return self.latest is not None and self.latest.body_sha256 == self.draft["sha256"]

    @property
    def untranslated(self) -> list[dict[str, str]]:
        return untranslated(self.draft)


def pending(game: str, language: str) -> Pending:
    """The changes since the newest release of a game and language (all added if none)."""
    latest = Release.objects.latest_of(game, language)
    draft = build_pack(game, language)
    old = json.loads(bytes(latest.data)) if latest is not None else None
    return Pending(latest, draft, pack_changes(old, draft))


def load_pack(game: str, language: str, *, release: int | str | None = None) -> dict[str, Any]:
    """A pack as a dict: a release by number, the newest release ("latest"), or the draft.

    ``release=None`` means the newest release, or the draft when nothing is published yet.
    """
    check_game_and_language(game, language)
    if release == DRAFT:
        return _complete(build_pack(game, language))
    queryset = Release.objects.filter(game=game, language=language)
    if release in (None, "latest"):
        found = queryset.order_by("-version").first()
        if found is None:
            if release is None:
                return _complete(build_pack(game, language))
            raise PackError(f"No release of {game} ({language}) has been published yet.")
    else:
        try:
            number = int(release)
        except (TypeError, ValueError):
            raise PackError(f"'{release}' is not a release number, 'latest' or 'draft'.") from None
        found = queryset.filter(version=number).first()
        if found is None:
            raise PackError(f"There is no release {number} of {game} ({language}).")
    return json.loads(bytes(found.data))


def _complete(pack: dict[str, Any]) -> dict[str, Any]:
    # Print and play read what load_pack gives them: an incomplete draft stops here, with
    # the cards named, instead of failing somewhere downstream.
    check_complete(pack)
    return pack


def read_pack_file(path: Path) -> dict[str, Any]:
    """A pack from a file, checked against the schema and its own sha256."""
    try:
        pack = load_json(Path(path).read_bytes(), "the file")
    except (OSError, ValueError) as exc:
        raise PackError(f"{path}: not a JSON file ({exc}).") from None
    try:
        validate(pack)
    except RecursionError:  # nesting under the parser's limit can still be too deep to check
        raise PackError(f"{path}: not a content pack (lists or objects nested too deeply).") from None
    return pack
