"""The games app (play mode): every saved room version reaches the event streams."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Play mode"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from games import events
        from games.models import Room

        # Every saved room version reaches the event streams of every server (games/events.py).
        post_save.connect(events.room_saved, sender=Room, dispatch_uid="games.events.room_saved")
        # And a deleted room ends them (admin, expire_rooms, a room closed on its next visit).
        post_delete.connect(events.room_deleted, sender=Room,
                            dispatch_uid="games.events.room_deleted")
