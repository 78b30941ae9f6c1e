"""Make a new release signing key, endorsed by the current one, and print the settings.

Clients pin the key they trust; they accept the new key only because the current (pinned)
key signed a statement naming it (exports/signing.py, v2): its one successor, the time of the
retirement and, for each pack, the last release it signed, which ``/api/keys`` then serves.
Clients hold the retired key to those releases, so stop publishing until the restart: a release
the old key signs after this command is refused by clients.

The command changes nothing itself: it prints the two lines to put into the environment file,
replacing the old ``KARTOTHEK_SIGNING_KEY`` and ``KARTOTHEK_PREVIOUS_SIGNING_KEYS``; after a
restart new releases are signed with the new key and old signatures still verify under the
retired keys. ``--restate OLD_KEY_FILE…`` turns a list in the v1 format (``PUBLIC:ENDORSEMENT``,
refused by the check exports.E002) into the v2 one, with the retired keys' private keys.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Max

from exports.models import ReleaseSignature
from exports.signing import (
    RetiredKey,
    SigningKeyError,
    configured_previous_keys,
    format_retired_at,
    key_id_of,
    parse_private_key,
    previous_entries,
    previous_keys,
    signing_key,
)


def _raw_public(private: Ed25519PrivateKey) -> bytes:
    return private.public_key().public_bytes(serialization.Encoding.Raw,
                                             serialization.PublicFormat.Raw)


def retire(private: Ed25519PrivateKey, successor_raw: bytes,
           retired_at: datetime | None = None) -> RetiredKey:
    """The retirement of ``private`` in favour of ``successor_raw``: its last signed release
    of each pack from the database, the time (now unless given), signed by the key itself."""
    key_id = key_id_of(_raw_public(private))
    rows = (ReleaseSignature.objects.filter(key_id=key_id)
            .values("release__game", "release__language")
            .annotate(last=Max("release__version")))
    last = tuple(sorted((f"{r['release__game']}/{r['release__language']}", r["last"])
                        for r in rows))
    moment = retired_at or datetime.now(UTC)
    unsigned = RetiredKey(_raw_public(private), b"", format_retired_at(moment), last)
    return RetiredKey(unsigned.public_raw, private.sign(unsigned.statement(successor_raw)),
                      unsigned.retired_at, last)


class Command(BaseCommand):
    help = ("Make a new signing key endorsed by the current one and print the new "
            "KARTOTHEK_SIGNING_KEY and KARTOTHEK_PREVIOUS_SIGNING_KEYS (with --first: a first "
            "key; with --restate: the v2 line of a list in the old format).")

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--first", action="store_true",
                            help="No key yet: print a new KARTOTHEK_SIGNING_KEY only.")
        parser.add_argument("--restate", nargs="+", metavar="OLD_KEY_FILE",
                            help="No new key: re-sign each retired key's statement in the v2 "
                                 "format with its private key (files: base64 seed or PEM).")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        if options["restate"]:
            self._restate(options["restate"])
            return
        new = Ed25519PrivateKey.generate()
        seed = new.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                 serialization.NoEncryption())
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
        now = retire(current.private, _raw_public(new))
        self.stderr.write(
            f"New key {key_id_of(_raw_public(new))}, endorsed by the current key "
            f"{current.key_id}, which retires now holding {len(now.last_releases)} pack(s) to "
            "their last release. Publish nothing until the restart; replace both lines in the "
            "environment file and restart; keep the old private key offline or destroy it.")
        self.stdout.write(f"KARTOTHEK_SIGNING_KEY={base64.b64encode(seed).decode()}")
        entries = [r.setting() for r in (*retired, now)]
        self.stdout.write(f"KARTOTHEK_PREVIOUS_SIGNING_KEYS={','.join(entries)}")

    def _restate(self, files: list[str]) -> None:
        try:
            current = signing_key()
            privates = {key_id_of(_raw_public(p)): p for p in (
                parse_private_key(Path(f).read_text(encoding="ascii")) for f in files)}
        except (SigningKeyError, OSError) as exc:
            raise CommandError(str(exc)) from None
        if current is None:
            raise CommandError("KARTOTHEK_SIGNING_KEY is not set: the chain ends at it.")
        publics = []
        for number, entry in enumerate(previous_entries(configured_previous_keys()), start=1):
            try:
                publics.append(base64.b64decode(entry.split(":")[0], validate=True))
            except ValueError:
                raise CommandError(f"KARTOTHEK_PREVIOUS_SIGNING_KEYS entry {number} has no "
                                   "base64 public key.") from None
        missing = [key_id_of(p) for p in publics if key_id_of(p) not in privates]
        if missing:
            raise CommandError(
                f"No private key given for {', '.join(missing)}: pass each retired key's file. "
                "A key whose private key is gone cannot restate its retirement: drop its entry "
                "(and every older one) from KARTOTHEK_PREVIOUS_SIGNING_KEYS; clients that pinned "
                "it must then pin the current key by hand.")
        following = [*publics[1:], current.public_raw]
        entries = []
        for public, successor in zip(publics, following, strict=True):
            stamp = ReleaseSignature.objects.filter(key_id=key_id_of(public)).aggregate(
                at=Max("signed_at"))["at"]  # retired when it last signed
            entries.append(retire(privates[key_id_of(public)], successor, stamp).setting())
        self.stderr.write(f"{len(entries)} retired key(s) restated in the v2 format.")
        self.stdout.write(f"KARTOTHEK_PREVIOUS_SIGNING_KEYS={','.join(entries)}")
