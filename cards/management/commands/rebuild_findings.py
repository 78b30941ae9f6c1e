"""``manage.py rebuild_findings``: run every translation check and store what it finds."""

from django.core.management.base import BaseCommand

from cards.findings import rebuild_findings


class Command(BaseCommand):
    help = (
        "Run every translation check over the whole catalogue and store what it finds (the "
        "progress page's counts). Needed only after an upgrade that changes the checks or the "
        "card layouts, or after changing KARTOTHEK_LANGUAGES; edits and imports keep them up "
        "to date themselves."
    )

    def handle(self, *args, **options):
        found = rebuild_findings()
        self.stdout.write(self.style.SUCCESS(f"Stored {found} open translation check findings."))
