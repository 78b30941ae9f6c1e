"""Rooms in the admin (read-only: rooms change through play only)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from curation.filters import SentenceChoicesFilter, language_filter
from games.models import ActionLog, Room, Seat


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
