"""Which pack a deck is rendered from: a pack file, a release, or the draft."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cards.text import ascii_number
from exports.errors import PackError
from exports.packs import load_pack, pack_edition, read_pack_file


def deck_pack(game: str, language: str, *, pack_file: str | Path | None = None,
              release: int | str | None = None) -> dict[str, Any]:
    """The pack to print: ``pack_file`` if given (checked against the schema and its sha256,
    and against the game and language asked for), else ``load_pack`` (release number,
    "latest", "draft", or None: the newest release, or the draft when there is none)."""
    if pack_file is not None:
        pack = read_pack_file(Path(pack_file))
        if pack["game"] != game or pack_edition(pack) != language:
            raise PackError(f"{pack_file} is the {pack['game']} pack in '{pack_edition(pack)}', "
                            f"not {game} in '{language}'.")
        return pack
    if isinstance(release, str) and ascii_number(release):
        release = int(release)
    return load_pack(game, language, release=release)
