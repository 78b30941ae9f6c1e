"""``manage.py expire_render_jobs``: delete old finished render jobs and their deck files."""

from django.conf import settings
from django.core.management.base import BaseCommand

from exports.jobs import expire_render_jobs


class Command(BaseCommand):
    help = ("Delete finished render jobs older than KARTOTHEK_JOB_KEEP_DAYS with their files, "
            "and deck files no job names that are as old. The worker does this after each "
            "job; run this from cron where no worker runs.")

    def handle(self, *args, **options):
        expired = expire_render_jobs()
        self.stdout.write(f"Expired {expired.jobs} render jobs and {expired.files} files older "
                          f"than {settings.KARTOTHEK_JOB_KEEP_DAYS} days.")
