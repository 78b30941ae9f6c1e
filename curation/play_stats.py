"""How each card did in real play, where a curator looks: a list column, a list filter, and a
sentence on the card's own page saying what the figures are and what they mean.

The figures are games/stats.py's (counted as each finished game that people played ends);
the list gets them with its one query (a subquery per figure), not one query per row.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import F, OuterRef, Q, QuerySet, Subquery
from django.http import HttpRequest

from games.models import CardPlayStat
from games.stats import NOT_COUNTED, difficulty, not_counted

STAT_FIELDS = ("played", "right", "wrong", "hints", "doubted")

#: What every figure rests on, said once on each card's page.
COUNTED = ("Counted from finished games in which at least two people made moves of their own "
           "from different clients (games of bots never count, nor several seats played "
           "from one client, nor the games of a client past its daily cap), as each game ends.")


def uncounted_in_words() -> str:
    """How many finished games did not count, and why (games/stats.py's tally), or ""."""
    tally = not_counted()
    parts = [f"{tally[key]} {words}" for key, words in NOT_COUNTED.items() if tally.get(key)]
    if not parts:
        return ""
    total = sum(tally.get(key, 0) for key in NOT_COUNTED)
    counted = tally.get("counted", 0)
    return (f"Of {counted + total} finished games so far, {total} did not count: "
            f"{'; '.join(parts)}.")

#: Per game: what makes a card hard for players, as the filter offers it.
HARD = {
    "symbols": ("Hard: solved in fewer than half of its rounds",
                Q(play_right__lt=F("play_played") - F("play_right"))),
    "slogan": ("Hard: fewer than half of the answers right", Q(play_right__lt=F("play_wrong"))),
    "sauschwer": ("Misjudged: doubters won most doubts",
                  Q(play_doubted__gt=0, play_right__gt=F("play_doubted") - F("play_right"))),
}


def _percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)} %" if whole else "–"


def in_words(game: str, stat: CardPlayStat | None) -> str:
    """The card's figures as a sentence a curator reads on its page."""
    if stat is None or not stat.played:
        return "Not played yet in a finished game."
    if game == "symbols":
        text = (f"The secret concept in {stat.played} rounds: solved in {stat.right} "
                f"({_percent(stat.right, stat.played)}).")
        if stat.right:
            text += f" On average {stat.hints / stat.right:.1f} hints before it was solved."
        return text
    if game == "sauschwer":
        return (f"On the scale in {stat.played} rounds; doubted in {stat.doubted}, and the "
                f"doubter was right in {stat.right} of those.")
    if game == "slogan":
        answers = stat.right + stat.wrong
        return (f"In {stat.played} rounds: {stat.right} of {answers} answers right "
                f"({_percent(stat.right, answers)}).")
    return "Not counted for this game (a card has no difficulty of its own)."


class PlayedFilter(admin.SimpleListFilter):
    """Cards by how they did in play: played or not, and the ones players find hard."""

    title = "in play"
    parameter_name = "played"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        choices = [("yes", "Played"), ("no", "Not played yet")]
        hard = HARD.get(getattr(model_admin, "play_game", ""))
        if hard is not None:
            choices.append(("hard", hard[0]))
        return choices

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value == "yes":
            return queryset.filter(play_played__gt=0)
        if value == "no":
            return queryset.filter(Q(play_played__isnull=True) | Q(play_played=0))
        if value == "hard":
            hard = HARD.get(self._game)
            return queryset.filter(play_played__gt=0).filter(hard[1]) if hard else queryset.none()
        return queryset

    def __init__(self, request: HttpRequest, params: Any, model: Any, model_admin: Any) -> None:
        self._game = getattr(model_admin, "play_game", "")
        super().__init__(request, params, model, model_admin)


class PlayDifficultyMixin:
    """For a content admin: the ``play_difficulty`` column, the *in play* filter and the
    card's figures in words on its page (``play_game`` names the game)."""

    play_game: str = ""

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset: QuerySet = super().get_queryset(request)  # type: ignore[misc]
        stats = CardPlayStat.objects.filter(game=self.play_game, key=OuterRef("key"))
        return queryset.annotate(**{f"play_{name}": Subquery(stats.values(name)[:1])
                                    for name in STAT_FIELDS})

    def get_list_filter(self, request: HttpRequest) -> Any:
        return (*super().get_list_filter(request), PlayedFilter)  # type: ignore[misc]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_readonly_fields(request, obj)  # type: ignore[misc]
        return (*fields, "play_statistics") if obj is not None else fields

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_fields(request, obj))  # type: ignore[misc]
        if obj is not None and "play_statistics" not in fields:
            fields.append("play_statistics")
        return fields

    @admin.display(description="in play")
    def play_difficulty(self, obj: Any) -> str:
        played = getattr(obj, "play_played", None)
        if not played:
            return "not played yet"
        stat = CardPlayStat(game=self.play_game, key=obj.key,
                            **{name: getattr(obj, f"play_{name}") or 0 for name in STAT_FIELDS})
        return difficulty(self.play_game, obj.key, stat)

    @admin.display(description="in play")
    def play_statistics(self, obj: Any) -> str:
        stat = CardPlayStat.objects.filter(game=self.play_game, key=obj.key).first()
        return " ".join(filter(None, (in_words(self.play_game, stat), COUNTED,
                                      uncounted_in_words())))
