"""Translation memory from the catalogue itself: for a German text, the approved
translations of the same or similar German texts, best first (as Weblate and Crowdin offer).

The memory of a language is every *approved* translation with the German it was made from
(``Translation.source_text``). It is read once into an index (exact: the German with case
and spacing ignored; fuzzy: its words) and kept in the process until a translation of that
language changes (the stamp of the stored counts tells, ``cards.findings.translations_stamp``:
one small query whatever the catalogue's size), so an
editor page costs the same whatever the catalogue's size: each text looks only at the
entries sharing one of its rarer words, at most :data:`MAX_CANDIDATES` of them, and scores
those with :class:`difflib.SequenceMatcher`.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

#: A fuzzy suggestion must be at least this similar (0–100) to be offered.
MIN_SCORE = 60
#: At most this many suggestions per text.
MAX_SUGGESTIONS = 3
#: At most this many entries are scored per text (those sharing the most words).
MAX_CANDIDATES = 40
#: A word in more entries than this says little about similarity and is not looked up.
COMMON_WORD = 400
#: Words that make two texts alike without making them similar: articles, prepositions. A
#: short name shares little else with another ("Ein Star", "Ein Stern": 71 % alike through
#: "Ein"), so texts are paired only through their other words ("Die Liebe" and "Liebe" still).
FILLER_WORDS = frozenset((
    "der", "die", "das", "den", "dem", "des", "ein", "eine", "einer", "eines", "einem", "einen",
    "und", "oder", "mit", "von", "vom", "zu", "zum", "zur", "im", "in", "am", "an", "auf", "aus",
    "bei", "für", "über", "unter", "nach", "vor",
    "the", "of", "and", "or", "to", "on", "at", "for", "with", "by", "from",
))

_WORD = re.compile(r"\w{2,}")


def normalise(text: str) -> str:
    return " ".join(text.casefold().split())


def words(text: str) -> set[str]:
    """The words of a text, and the first five letters of a long one (a crude stem: German
    inflects at the end, Kleiderschrank, Kleiderschränke)."""
    found = set(_WORD.findall(text.casefold()))
    return found | {word[:5] + "…" for word in found if len(word) > 6}


@dataclass(frozen=True)
class Entry:
    source: str      # the German the approved translation was made from
    text: str        # the approved translation
    owner: tuple[int, int, str]  # content type id, object id, field


@dataclass(frozen=True)
class Suggestion:
    text: str
    source: str
    score: int       # 100: the same German (case and spacing aside)
    exact: bool
    uses: int = 1    # how many approved texts say the same for this German


@dataclass
class Memory:
    entries: list[Entry] = field(default_factory=list)
    exact: dict[str, list[int]] = field(default_factory=dict)
    by_word: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, rows: Any) -> Memory:
        memory = cls()
        for type_id, object_id, field_name, source, text in rows:
            if not source.strip() or not text.strip():
                continue
            index = len(memory.entries)
            memory.entries.append(Entry(source, text, (type_id, object_id, field_name)))
            memory.exact.setdefault(normalise(source), []).append(index)
            for word in words(source):
                memory.by_word.setdefault(word, []).append(index)
        return memory

    def suggest(self, source: str, *, exclude: tuple[int, int, str] | None = None,
                limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
        """Approved translations of ``source`` (exact first), then of similar German texts
        with their similarity; ``exclude``: the text's own translation."""
        key = normalise(source)
        if not key:
            return []
        found: dict[str, Suggestion] = {}
        for index in self.exact.get(key, ()):
            entry = self.entries[index]
            if entry.owner == exclude:
                continue
            have = found.get(entry.text)
            found[entry.text] = Suggestion(entry.text, entry.source, 100, True,
                                           have.uses + 1 if have else 1)
        exact = sorted(found.values(), key=lambda s: -s.uses)
        if len(exact) >= limit:
            return exact[:limit]
        shared: Counter[int] = Counter()
        for word in words(source) - FILLER_WORDS:
            holders = self.by_word.get(word, ())
            if len(holders) > COMMON_WORD:
                continue
            shared.update(holders)
        scored: dict[str, Suggestion] = {}
        matcher = SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)
        for index, _count in shared.most_common(MAX_CANDIDATES):
            entry = self.entries[index]
            if entry.owner == exclude or entry.text in found:
                continue
            matcher.set_seq1(normalise(entry.source))
            if matcher.real_quick_ratio() * 100 < MIN_SCORE or matcher.quick_ratio() * 100 < MIN_SCORE:
                continue
            score = int(matcher.ratio() * 100)
            if score < MIN_SCORE or score >= 100:
                continue
            best = scored.get(entry.text)
            if best is None or best.score < score:
                scored[entry.text] = Suggestion(entry.text, entry.source, score, False)
        fuzzy = sorted(scored.values(), key=lambda s: (-s.score, s.text))
        return (exact + fuzzy)[:limit]


_lock = threading.Lock()
_cache: dict[str, tuple[tuple[Any, ...], Memory]] = {}


def memory_for(language: str) -> Memory:
    """The memory of ``language``, read again only when one of its translations changed."""
    from django.db.models import Count, Max

    from cards.findings import translations_stamp
    from cards.models import Translation, TranslationState

    approved = Translation.objects.filter(language=language, state=TranslationState.APPROVED)
    signature: tuple[Any, ...]
    stored = translations_stamp(language)  # grows with every change of the language's texts
    if stored is not None:
        signature = ("stored", stored)
    else:  # a language without stored counts: an aggregate over its approved translations
        stamp = approved.aggregate(n=Count("pk"), newest=Max("updated_at"), top=Max("pk"))
        signature = (stamp["n"], stamp["newest"], stamp["top"])
    with _lock:
        cached = _cache.get(language)
        if cached is not None and cached[0] == signature:
            return cached[1]
    rows = approved.exclude(text="").values_list(
        "content_type_id", "object_id", "field", "source_text", "text").iterator(chunk_size=5000)
    memory = Memory.build(rows)
    with _lock:
        _cache[language] = (signature, memory)
    return memory
