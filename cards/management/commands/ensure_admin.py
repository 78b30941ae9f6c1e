"""``manage.py ensure_admin``: a first superuser with a random password, and how to log in."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.urls import reverse


class Command(BaseCommand):
    help = (
        "Create a superuser 'admin' with a random password if there is no superuser yet, "
        "and say how to log in (the password is kept in var/admin-password.txt)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")
        parser.add_argument("--base-url", default="http://127.0.0.1:8000",
                            help="where the site will be served (for the message); the admin's "
                                 "path (KARTOTHEK_ADMIN_PATH) is added to it")

    def handle(self, *args, username, base_url, **options):
        # The login page as the URLconf has it, so KARTOTHEK_ADMIN_PATH is honoured.
        url = base_url.rstrip("/") + reverse("admin:index")
        User = get_user_model()
        password_file = settings.VAR_DIR / "admin-password.txt"
        if not User.objects.filter(is_superuser=True).exists():
            password = secrets.token_urlsafe(12)
            User.objects.create_superuser(username=username, email="", password=password)
            password_file.parent.mkdir(parents=True, exist_ok=True)
            password_file.write_text(f"{username}\n{password}\n", encoding="utf-8")
            password_file.chmod(0o600)
            self.stdout.write(self.style.SUCCESS(f"Created the superuser '{username}'."))
        if password_file.exists():
            name, password = password_file.read_text(encoding="utf-8").split()[:2]
            self.stdout.write(
                f"Log in at {url} as '{name}' with the password "
                f"'{password}' (kept in {password_file})."
            )
        else:
            self.stdout.write(f"Log in at {url} with your superuser.")
