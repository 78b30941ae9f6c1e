"""A per-client limit on requests a minute, counted in the database so that several app
servers share it (the default cache is per process)."""

from __future__ import annotations

import time

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import HttpRequest

from games.models import RateHit
from kartothek.security import client_ip


def client_key(request: HttpRequest) -> str:
    # The address the outermost trusted proxy saw (KARTOTHEK_PROXY_COUNT; REMOTE_ADDR without
    # one): the rest of a forwarded-for header is the client's to forge.
    return str(client_ip(request) or "unknown")[:60]


def allow(request: HttpRequest, bucket: str = "play") -> bool:
    """Count this request; False when the client is over ``KARTOTHEK_PLAY_RATE_LIMIT`` this minute."""
    limit = settings.KARTOTHEK_PLAY_RATE_LIMIT
    if not limit:
        return True
    key = f"{bucket}:{client_key(request)}"
    minute = int(time.time() // 60)
    with transaction.atomic():
        if not RateHit.objects.filter(key=key, minute=minute).update(count=F("count") + 1):
            try:
                with transaction.atomic():
                    RateHit.objects.create(key=key, minute=minute, count=1)
            except IntegrityError:  # another server counted the first one at the same moment
                RateHit.objects.filter(key=key, minute=minute).update(count=F("count") + 1)
        count = RateHit.objects.filter(key=key, minute=minute).values_list("count", flat=True).get()
    return count <= limit


def forget_old(before_minutes: int = 10) -> int:
    """Drop counts older than a few minutes (``expire_rooms`` calls it)."""
    deleted, _ = RateHit.objects.filter(minute__lt=int(time.time() // 60) - before_minutes).delete()
    return deleted
