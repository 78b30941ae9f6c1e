"""Close rooms idle for longer than KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS, and finished ones after
KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS (their replays go with them; the card statistics stay),
and forget old rate-limit counts, expired stream tickets and stale stream slots. Rooms are
also closed lazily when someone opens an expired one; run this from cron to keep the table
small."""

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db.models import Q
from django.utils import timezone

from games.lookup import _expiry, _finished_expiry
from games.models import Room
from games.ratelimit import forget_old
from games.stream_slots import forget_stale
from games.tickets import forget_expired


class Command(BaseCommand):
    help = ("Delete rooms without activity for KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS hours (finished ones: "
            "KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS).")

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")

    def handle(self, *args, dry_run=False, **options):
        now = timezone.now()
        idle = Room.objects.filter(
            Q(last_activity__lt=now - _expiry()) & ~Q(status=Room.Status.FINISHED)
            | Q(status=Room.Status.FINISHED, last_activity__lt=now - _finished_expiry()))
        count = idle.count()
        if not dry_run:
            idle.delete()  # each room's event streams end (games/events.py: room_deleted)
            forget_old()
            forget_expired()  # stream tickets past their 30 s
            forget_stale()  # stream slots of a server that died (games/stream_slots.py)
        verb = "would close" if dry_run else "closed"
        self.stdout.write(f"{verb} {count} rooms idle for more than "
                          f"{settings.KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS} hours.")
