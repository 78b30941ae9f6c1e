"""What the JS client's tests share: its build (tsc, once per session), a real Kartothek server
(uvicorn, kartothek.asgi) with a published catalogue, and the paths of clients/js."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.test import override_settings

from cards.models import SauschwerObject
from exports.packs import publish
from tests.play.core_helpers import all_releases
from tests.play.sse_helpers import Server

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "js"
TSC = CLIENT / "node_modules" / ".bin" / "tsc"


def need_node_modules() -> None:
    """clients/js's devDependencies come from `make install-js` (npm ci), which `make test` runs."""
    if shutil.which("node") is None or not TSC.exists():
        message = "clients/js is not installed: run `make install-js` (Node 20 and npm ci)."
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def build() -> None:
    """Compile the client (tsc --strict, clients/js/tsconfig.json) into clients/js/dist."""
    need_node_modules()
    done = subprocess.run([str(TSC), "-p", str(CLIENT / "tsconfig.json")], cwd=CLIENT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def publish_catalogue() -> None:
    """What the JS tests read: sauschwer (de) releases 1 and 2 (one weight changed, so a delta
    is smaller than release 2), symbols (en) release 1, and the engine packs (en) rooms use."""
    for i in range(100):
        SauschwerObject.objects.create(key=f"ding-{i:03}", name=f"Ding {i}", weight_g=i + 1,
                                       source="test")
    publish("sauschwer", "de")
    SauschwerObject.objects.filter(key="ding-005").update(weight_g=5555)
    publish("sauschwer", "de")
    publish("symbols", "en")
    all_releases()


@contextmanager
def kartothek_server(**settings: object) -> Iterator[Server]:
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "localhost"], **settings), \
            Server() as server:
        yield server
