"""A slogan card's two slogans as its change form holds them, saved or not: what the live
preview draws and what the answer checks read while the curator types.

The form is the slogan card page's ``SloganInline`` (``slogans-<n>-text``, ``-option_1`` …
``-option_4``, ``-correct``, ``-side``, ``-key``, ``-keep_german``, ``-source``). A side whose
text and first option are both left out of the data keeps what is stored; every typed text is
cut at :data:`MAX_TEXT` characters (the fields take far fewer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cards.models import Slogan, SloganCard
from cards.text import whole_number

MAX_TEXT = 2000


@dataclass
class TypedSlogan:
    """One side of the card as typed (``stored``: that side's saved slogan, if any)."""

    side: int
    key: str
    text: str
    keep_german: bool
    source: str
    options: list[tuple[str, bool]]  # (text, correct), positions 1–4
    stored: Slogan | None

    @property
    def correct(self) -> int:
        """The correct option's position (1–4), or 0 when none is chosen."""
        return next((n for n, (_text, right) in enumerate(self.options, 1) if right), 0)


def _side_number(post: Any, prefix: str, n: int) -> int:
    side = whole_number(post.get(prefix + "side") or n + 1)
    return side if side in (1, 2) else n + 1


def typed_slogans(post: Any, card: SloganCard | None) -> list[TypedSlogan]:
    """The card's two sides from ``post`` (the change form's data), in form order."""
    stored = {s.side: s for s in card.slogans.all()} if card is not None and card.pk else {}
    found = []
    for n in range(2):
        prefix = f"slogans-{n}-"
        side = _side_number(post, prefix, n)
        slogan = stored.get(side)
        if slogan is not None and not any(post.get(prefix + f) for f in ("text", "option_1")):
            found.append(TypedSlogan(
                side, slogan.key, slogan.text, slogan.keep_german, slogan.source,
                [(o.text, o.is_correct) for o in slogan.options.order_by("position")], slogan))
            continue
        correct = post.get(prefix + "correct", "")
        options = [(post.get(f"{prefix}option_{k}", "")[:MAX_TEXT], correct == str(k))
                   for k in range(1, 5)]
        # a saved slogan's key is fixed: its field is disabled and the POST may lack it
        key = slogan.key if slogan is not None else (post.get(prefix + "key", "")[:MAX_TEXT]
                                                     or f"slogan-{side}")
        found.append(TypedSlogan(side, key, post.get(prefix + "text", "")[:MAX_TEXT],
                                 bool(post.get(prefix + "keep_german")),
                                 post.get(prefix + "source", "")[:MAX_TEXT], options, slogan))
    return found
