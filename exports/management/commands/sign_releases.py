"""``manage.py sign_releases``: sign the releases published before a signing key was configured."""

from django.core.management.base import BaseCommand, CommandError

from exports.models import Release
from exports.signing import SigningKeyError, sign_release, signing_key


class Command(BaseCommand):
    help = ("Sign the releases that have no signature yet (published before a signing key "
            "was configured). A signature once written is never changed.")

    def handle(self, *args, **options):
        try:
            key = signing_key()
        except SigningKeyError as exc:
            raise CommandError(str(exc)) from None
        if key is None:
            raise CommandError("No signing key: set KARTOTHEK_SIGNING_KEY first.")
        unsigned = Release.objects.filter(signature__isnull=True).order_by("game", "language",
                                                                           "version")
        count = 0
        for release in unsigned.iterator():
            sign_release(release)
            count += 1
        self.stdout.write(self.style.SUCCESS(
            f"Signed {count} release(s) with key {key.key_id}; signed ones were left as they were."))
