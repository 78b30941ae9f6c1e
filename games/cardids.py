"""Per-room card ids: views never name a card by its pack key.

The pack is public (``/api/packs/…``), and in it a key leads to everything about a card: a
Slogan's correct brand, a Sauschwer object's weight. So every answer of a room names its cards
by ids of that room only, ``c`` and 12 hex digits of an HMAC of the card's key under the
site's secret, the room's code and its secret seed: without the server's secret nobody can
turn an id back into a key, and the same card has other ids in every other room.

The engines stay keyed by pack keys: the room layer (``games.rooms``) translates on the way
out (views, legal actions, results, replays) and on the way in (actions), and the pages get the
room's pack with the same ids (``page_pack``), so the screens find texts and pictures as before.

What stays visible on purpose: the texts a player must read (an object's name, a slogan, the
options' brands, a concept). A determined player can search the public pack for such a text
(a slogan's text to find its correct brand, an object's name to find its weight); that is the
price of a public pack, see docs/engines.md ("Card ids").
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from typing import Any

from django.conf import settings

# The body lists whose items (and their own lists' items, e.g. a Slogan card's slogans) are
# cards of a game; tiles, symbols and colours are the board, public and not mapped.
COLLECTIONS = ("cards", "concepts", "alfons", "slogans")

Maps = tuple[dict[str, str], dict[str, str], dict[str, Any]]
# per room (pk, code): (its game's seed and release, that game's maps)
_MAPS: dict[tuple[Any, ...], tuple[tuple[Any, ...], Maps]] = {}
_MAX_MAPS = 256
_MAPS_LOCK = threading.Lock()


def _keys(items: Any, found: list[str]) -> None:
    if not isinstance(items, list):
        return
    for item in items:
        if not isinstance(item, dict):
            continue
        key = item.get("key")
        if isinstance(key, str):
            found.append(key)
        for name in COLLECTIONS:
            _keys(item.get(name), found)


def card_keys(pack: dict[str, Any]) -> list[str]:
    """Every card key of a pack (not the board's tiles, symbols or colours)."""
    content = pack.get("body", pack)
    found: list[str] = []
    for name in COLLECTIONS:
        _keys(content.get(name), found)
    return found


def card_id(code: str, seed: str, key: str) -> str:
    digest = hmac.new(settings.SECRET_KEY.encode(), f"card-id:{code}:{seed}:{key}".encode(),
                      hashlib.sha256).hexdigest()
    return f"c{digest[:12]}"


def translate(value: Any, table: dict[str, str]) -> Any:
    """``value`` with every string (and dict key) found in ``table`` replaced; a new object."""
    if isinstance(value, str):
        return table.get(value, value)
    if isinstance(value, dict):
        return {table.get(k, k) if isinstance(k, str) else k: translate(v, table) for k, v in value.items()}
    if isinstance(value, list):
        return [translate(v, table) for v in value]
    return value


def maps(room: Any, pack: dict[str, Any]) -> tuple[dict[str, str], dict[str, str], dict[str, Any]]:
    """(key → id, id → key, the pack with ids) for a room, kept per room for its current game
    only: a rematch (a new seed) replaces the room's maps rather than adding a second set, so
    the memory follows the rooms being played, not the games they have had."""
    room_key, game_key = (room.pk, room.code), (room.seed, room.release_id)
    kept = _MAPS.get(room_key)
    if kept is not None and kept[0] == game_key:
        return kept[1]
    to_id = {key: card_id(room.code, room.seed, key) for key in card_keys(pack)}
    to_key = {value: key for key, value in to_id.items()}
    if len(to_key) != len(to_id):  # two keys on one id (2⁻⁴⁸ per pair): never silently
        raise RuntimeError("Two cards of this room got the same id.")
    found = (to_id, to_key, translate(pack, to_id))
    with _MAPS_LOCK:  # the event streams build answers on several threads at once
        _MAPS.pop(room_key, None)  # stored again at the end: the oldest stored goes first when full
        while len(_MAPS) >= _MAX_MAPS:
            _MAPS.pop(next(iter(_MAPS)))
        _MAPS[room_key] = (game_key, found)
    return found
