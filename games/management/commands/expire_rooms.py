"""Close rooms idle for longer than KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS (finished games stay for
their replays and the card statistics), and forget old rate-limit counts. Rooms are also
closed lazily when someone opens an expired one; run this from cron to keep the table small."""

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from games.models import Room
from games.ratelimit import forget_old
from games.rooms import _expiry


class Command(BaseCommand):
    help = "Delete unfinished rooms without activity for KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS hours."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")

    def handle(self, *args, dry_run=False, **options):
        idle = Room.objects.exclude(status=Room.Status.FINISHED).filter(
            last_activity__lt=timezone.now() - _expiry())
        count = idle.count()
        if not dry_run:
            idle.delete()
            forget_old()
        verb = "would close" if dry_run else "closed"
        self.stdout.write(f"{verb} {count} rooms idle for more than "
                          f"{settings.KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS} hours.")
