"""Kartothek's reference client: fetches packs, applies deltas, verifies sha256 and signature,
caches on disk. No Django: the standard library and ``cryptography`` only."""

from kartothek_client.client import Client, Pack
from kartothek_client.delta import DeltaError, apply_delta
from kartothek_client.errors import KartothekError, VerificationError
from kartothek_client.timestamp import Timestamp, TimestampError

__all__ = ["Client", "DeltaError", "KartothekError", "Pack", "Timestamp", "TimestampError",
           "VerificationError", "apply_delta"]
