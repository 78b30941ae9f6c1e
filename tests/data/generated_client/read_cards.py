"""Reads a pack's cards through the client that openapi-python-client generates from the
downloaded /api/openapi.json alone (package ``kartothek_api``). tests/test_generated_client.py
generates the client into a temporary folder, type-checks this file with mypy --strict and
runs it against a live test server:

    python read_cards.py BASE_URL GAME LANGUAGE

It prints the newest release's cards (key, then a tab, then the name or text), then a line
with the number of cards changed since the release before, read through ``?since=``.
"""

from __future__ import annotations

import sys

from kartothek_api import Client
from kartothek_api.api.default import get_release, list_packs
from kartothek_api.models import (
    ContentPackSauschwer,
    ContentPackSign,
    ContentPackSlogan,
    ContentPackSymbols,
    FullRelease,
    GetReleaseGame,
    Index,
    KartothekContentPack,
    KartothekPackDelta,
    KartothekPackDeltaLists,
)
from kartothek_api.types import Unset


def newest_version(client: Client, game: str, language: str) -> int:
    index = list_packs.sync(client=client)
    if not isinstance(index, Index):
        raise SystemExit(f"no index: {index!r}")
    for entry in index.games:
        if entry.game.value == game:
            for lang in entry.languages:
                if lang.language == language and lang.releases:
                    return max(release.version for release in lang.releases)
    raise SystemExit(f"{game} ({language}) has no release")


def card_lines(pack: KartothekContentPack) -> list[str]:
    body = pack.body
    if isinstance(body, ContentPackSauschwer):
        return [f"{card.key}\t{card.name} ({card.weight_g} g)" for card in body.cards]
    if isinstance(body, ContentPackSymbols):
        return [f"{concept.key}\t{concept.text}" for concept in body.concepts]
    if isinstance(body, ContentPackSign):
        return [f"{card.key}\t{card.symbol} {card.colour}" for card in body.cards]
    if isinstance(body, ContentPackSlogan):
        return [f"{card.key}\t{' / '.join(s.text for s in card.slogans)}" for card in body.cards]
    raise SystemExit(f"an unknown body: {body!r}")


def main(base_url: str, game: str, language: str) -> None:
    client = Client(base_url=base_url, raise_on_unexpected_status=True)
    version = newest_version(client, game, language)
    pack = get_release.sync(GetReleaseGame(game), language, version, client=client)
    if not isinstance(pack, KartothekContentPack):
        raise SystemExit(f"release {version} is not a pack: {pack!r}")
    for line in card_lines(pack):
        print(line)
    if version > 1:
        delta = get_release.sync(GetReleaseGame(game), language, version, client=client,
                                 since=version - 1)
        if isinstance(delta, KartothekPackDelta):
            lists = (delta.lists.additional_properties
                     if isinstance(delta.lists, KartothekPackDeltaLists) else {})
            changed = sum(len(change.changed) for change in lists.values()
                          if not isinstance(change.changed, Unset))
            print(f"changed since {version - 1}: {changed}")
        elif isinstance(delta, FullRelease):
            print(f"no delta since {version - 1}: {delta.reason}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
