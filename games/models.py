"""Rooms of the play mode: the engine state, its seats and the log of applied actions.

A room pins the pack it was opened with (a release, or the bytes of a curator's draft), so
publishing changes no running game. Every change to a room goes through ``games.rooms``.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import models

from cards.models import Game


class Room(models.Model):
    class Status(models.TextChoices):
        LOBBY = "lobby", "lobby"
        PLAYING = "playing", "playing"
        FINISHED = "finished", "finished"

    code = models.CharField(max_length=8, unique=True)
    game = models.CharField(max_length=20, choices=Game.choices)
    # The pack's edition: a language ("en"), or for the slogan game a language in one market
    # ("en-GB"), as releases name it.
    language = models.CharField(max_length=10)
    # The pinned pack: a release, or (a curator's playtest) the draft's canonical bytes.
    release = models.ForeignKey(
        "exports.Release", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    draft_pack = models.BinaryField(null=True, blank=True)
    seed = models.CharField(max_length=64)
    options = models.JSONField(default=dict, blank=True)
    # The engine state as text, not JSONField: PostgreSQL's jsonb would reorder dict keys,
    # and the engines iterate dicts in insertion order.
    state_json = models.TextField(blank=True, default="")
    version = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LOBBY)
    game_number = models.PositiveIntegerField(default=0, help_text="1 for the first game, 2 after play again")
    games = models.JSONField(
        default=list, blank=True,
        help_text="every game of this room: number, seed, players, options, result",
    )
    pass_and_play = models.BooleanField(default=False)
    turn_timer = models.PositiveIntegerField(default=0, help_text="seconds; 0 = no timer")
    # When a poll must take the lock: a bot (Sign: at a human pace) or the turn timer is due.
    due_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_activity = models.DateTimeField(auto_now_add=True, db_index=True)
    last_action_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    stats_recorded = models.PositiveIntegerField(default=0, help_text="last game counted in card stats")
    # A room opened "table only": the sha256 of the table device's host token (no seat; it
    # shows the table and hands the host controls to a phone). Empty for every other room.
    table_token_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-last_activity"]

    def __str__(self) -> str:
        return f"{self.code} ({self.get_game_display()}, {self.status})"

    @property
    def state(self) -> dict[str, Any] | None:
        return json.loads(self.state_json) if self.state_json else None

    @state.setter
    def state(self, value: dict[str, Any] | None) -> None:
        self.state_json = "" if value is None else json.dumps(value, separators=(",", ":"))

    @property
    def card_language(self) -> str:
        """The language of the cards ("en" for an "en-GB" room)."""
        return self.language.partition("-")[0]

    @property
    def market(self) -> str | None:
        """The market whose deck the room plays ("GB", "US"), or None (one deck per language)."""
        return self.language.partition("-")[2] or None

    @property
    def market_label(self) -> str:
        """Which slogans a Slogan room plays, for its lobby and header ("" where there is no
        choice): the English edition's decks differ between the UK and the US."""
        from django.utils.translation import gettext as _

        from cards.models import REGIONAL_MARKETS

        if self.game != Game.SLOGAN or self.card_language not in REGIONAL_MARKETS:
            return ""
        return {"GB": _("UK slogans"), "US": _("US slogans")}.get(
            self.market or "", _("Slogans known in the UK and the US"))


class Seat(models.Model):
    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="seats")
    seat = models.CharField(max_length=8, help_text="the engine's player id")
    position = models.PositiveSmallIntegerField(help_text="seating order, clockwise")
    name = models.CharField(max_length=40)
    token_hash = models.CharField(max_length=64, unique=True)
    host = models.BooleanField(default=False)
    bot = models.BooleanField(default=False)
    away = models.BooleanField(default=False)
    removed = models.BooleanField(default=False)
    # The host moved the seat to another device (a fresh token): how often, and the token it had
    # before the last move, so that the old device is told why it lost the seat.
    moved = models.PositiveSmallIntegerField(default=0)
    old_token_hash = models.CharField(max_length=64, blank=True, default="", db_index=True)
    # The client the seat joined from, then the client of its latest move (games/clients.py):
    # keyed hashes of the address's network and of the device cookie, never the values.
    client_hash = models.CharField(max_length=64, blank=True, default="")
    device_hash = models.CharField(max_length=64, blank=True, default="")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["room", "position"]
        constraints = [
            models.UniqueConstraint(fields=["room", "seat"], name="one_seat_id_per_room"),
        ]

    def __str__(self) -> str:
        return f"{self.room.code}/{self.seat} {self.name}"


class ActionLog(models.Model):
    """One applied action: who, what, the room's version after it, when."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="log")
    game_number = models.PositiveIntegerField()
    seat = models.CharField(max_length=8)
    action_id = models.CharField(max_length=64)
    action = models.JSONField()
    version = models.PositiveIntegerField(help_text="the room's version after this action")
    by = models.CharField(max_length=10, default="player", help_text="player, bot or timer")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["room", "version"]
        constraints = [
            models.UniqueConstraint(fields=["room", "action_id"], name="one_action_per_id"),
        ]

    def __str__(self) -> str:
        return f"{self.room_id} v{self.version} {self.seat} {self.action.get('type')}"


class StreamTicket(models.Model):
    """A short-lived, single-use pass to one seat's event stream, for a browser's EventSource
    on another origin (it cannot send the Bearer token, and the seat cookie is this site's):
    made with the seat's token (``POST …/stream-tickets``), redeemed once by
    ``GET …/events?ticket=…`` (games/tickets.py). Only the ticket's sha256 is kept, and the
    sha256 of the seat token it stands for (as ``Seat.token_hash`` holds it), so a ticket
    proves exactly what that token proved when the ticket was made."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="+")
    ticket_hash = models.CharField(max_length=64, unique=True)
    token_hash = models.CharField(max_length=64)
    expires_at = models.DateTimeField(db_index=True)
    used = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"ticket for room {self.room_id} until {self.expires_at:%H:%M:%S}"


class RateHit(models.Model):
    """Requests of one client in one minute (shared by every app server through the database)."""

    key = models.CharField(max_length=100)
    minute = models.PositiveBigIntegerField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "minute"], name="one_count_per_minute")]

    def __str__(self) -> str:
        return f"{self.key} @{self.minute}: {self.count}"


class StreamSlot(models.Model):
    """One open event stream of one client (games/stream_slots.py): a client holds at most
    ``KARTOTHEK_PLAY_STREAMS_PER_CLIENT`` numbered slots, shared by every app server through
    the database. Its server refreshes ``beat_at`` while the stream is open and deletes the
    slot when it ends; a slot whose server died is free once ``beat_at`` is stale."""

    key = models.CharField(max_length=100)
    number = models.PositiveSmallIntegerField()
    opened_at = models.DateTimeField()
    beat_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "number"], name="one_stream_per_slot")]

    def __str__(self) -> str:
        return f"{self.key} #{self.number}"


class CardPlayStat(models.Model):
    """How a card did in real play, summed over finished rooms (for the admin's difficulty)."""

    game = models.CharField(max_length=20, choices=Game.choices)
    key = models.CharField(max_length=100)
    played = models.PositiveIntegerField(default=0)
    right = models.PositiveIntegerField(
        default=0, help_text="slogans answered right, concepts solved, doubts won")
    wrong = models.PositiveIntegerField(
        default=0, help_text="slogans answered wrong, concepts missed, doubts lost")
    hints = models.PositiveIntegerField(default=0, help_text="symbols: hints before a solution")
    doubted = models.PositiveIntegerField(default=0, help_text="sauschwer: rounds doubted")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "key"], name="one_stat_per_card")]

    def __str__(self) -> str:
        return f"{self.game}/{self.key}"


class PlayStatsTally(models.Model):
    """Finished games per day (games/stats.py): per reason, how many counted in the card
    statistics and how many did not (``counted``, ``not:bots``, ``not:one_client``,
    ``not:daily_cap``), for the curators; and per client (``client:<address hash>``) how many
    of its games reached the daily cap's check that day (kept for a day)."""

    day = models.PositiveIntegerField(help_text="days since 1970-01-01 (UTC)")
    key = models.CharField(max_length=100)
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["day", "key"], name="one_tally_per_day")]

    def __str__(self) -> str:
        return f"{self.key} on day {self.day}: {self.count}"
