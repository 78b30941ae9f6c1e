"""Rooms in the admin (read-only: rooms change through play only), and the card difficulty
column that the content admins (curation/content_admin.py) show beside each card."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpRequest

from curation.filters import SentenceChoicesFilter, language_filter
from games.models import ActionLog, CardPlayStat, Room, Seat
from games.stats import difficulty

STAT_FIELDS = ("played", "right", "wrong", "hints", "doubted")


class PlayDifficultyMixin:
    """Adds ``play_difficulty``: how the card did in finished rooms (games/stats.py).

    The numbers come with the change list's one query (a subquery per figure), not one query
    per row."""

    play_game: str = ""

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset: QuerySet = super().get_queryset(request)  # type: ignore[misc]
        stats = CardPlayStat.objects.filter(game=self.play_game, key=OuterRef("key"))
        return queryset.annotate(**{f"play_{name}": Subquery(stats.values(name)[:1])
                                    for name in STAT_FIELDS})

    @admin.display(description="difficulty in play")
    def play_difficulty(self, obj: Any) -> str:
        played = getattr(obj, "play_played", None)
        if played is None:
            return "–"
        stat = CardPlayStat(game=self.play_game, key=obj.key,
                            **{name: getattr(obj, f"play_{name}") or 0 for name in STAT_FIELDS})
        return difficulty(self.play_game, obj.key, stat)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("seat", "name", "host", "bot", "away", "removed", "joined_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ActionLogInline(admin.TabularInline):
    model = ActionLog
    extra = 0
    fields = ("game_number", "version", "seat", "by", "action", "at")
    readonly_fields = fields
    can_delete = False
    ordering = ("game_number", "version")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Room)
class RoomAdmin(admin.ModelAdmin):
    list_display = ("code", "game", "language", "status", "game_number", "version", "last_activity")
    list_filter = ("game", ("status", SentenceChoicesFilter), language_filter())
    search_fields = ("code",)
    inlines = [SeatInline, ActionLogInline]
    exclude = ("state_json", "draft_pack")
    readonly_fields = ("code", "game", "language", "release", "seed", "options", "version", "status",
                       "game_number", "games", "pass_and_play", "turn_timer", "due_at", "created_at",
                       "last_activity", "last_action_at", "created_by", "stats_recorded")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
