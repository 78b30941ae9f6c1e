"""Make a new release signing key, endorsed by the current one, and print the settings.

Clients pin the key they trust; they accept the new key only because the current (pinned)
key signed an endorsement of it, which ``/api/keys`` then serves beside it. The command
changes nothing itself: it prints the two lines to put into the environment file, replacing
the old ``KARTOTHEK_SIGNING_KEY`` and ``KARTOTHEK_PREVIOUS_SIGNING_KEYS``; after a restart new
releases are signed with the new key and old signatures still verify under the retired keys.
"""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management.base import BaseCommand, CommandError

from exports.signing import (
    SigningKeyError,
    endorsement_statement,
    key_id_of,
    previous_keys,
    signing_key,
)


class Command(BaseCommand):
    help = ("Make a new signing key endorsed by the current one and print the new "
            "KARTOTHEK_SIGNING_KEY and KARTOTHEK_PREVIOUS_SIGNING_KEYS (with --first: a first key).")

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--first", action="store_true",
                            help="No key yet: print a new KARTOTHEK_SIGNING_KEY only.")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        new = Ed25519PrivateKey.generate()
        seed = new.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
        new_public = new.public_key().public_bytes(serialization.Encoding.Raw,
                                                   serialization.PublicFormat.Raw)
        if options["first"]:
            self.stdout.write(f"KARTOTHEK_SIGNING_KEY={base64.b64encode(seed).decode()}")
            return
        try:
            current = signing_key()
            retired = previous_keys()
        except SigningKeyError as exc:
            raise CommandError(str(exc)) from None
        if current is None:
            raise CommandError("There is no current signing key to endorse a new one: set "
                               "KARTOTHEK_SIGNING_KEY (or use --first for a first key).")
        endorsement = current.sign(endorsement_statement(new_public))
        entries = [f"{base64.b64encode(r.public_raw).decode()}:{base64.b64encode(r.endorsement).decode()}"
                   for r in retired]
        entries.append(f"{base64.b64encode(current.public_raw).decode()}:"
                       f"{base64.b64encode(endorsement).decode()}")
        self.stderr.write(f"New key {key_id_of(new_public)}, endorsed by the current key "
                          f"{current.key_id}. Replace both lines in the environment file and "
                          "restart; keep the old private key offline or destroy it.")
        self.stdout.write(f"KARTOTHEK_SIGNING_KEY={base64.b64encode(seed).decode()}")
        self.stdout.write(f"KARTOTHEK_PREVIOUS_SIGNING_KEYS={','.join(entries)}")
