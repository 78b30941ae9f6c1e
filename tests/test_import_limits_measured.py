"""Measured (slow): every hostile file at the real limits, in a child process, stays under 200 MB and 10 s."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests import hostile_files as hostile
from tests.import_limits_helpers import FORMAT, ROOT, concepts_csv

# --- measured: every hostile file through the real import paths, in a child process ----------

PROBE = r"""
import os, resource, sys, time
import django
django.setup()
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

path, fmt = sys.argv[1], sys.argv[2]
client = Client()
client.force_login(User.objects.get(username="measure"))
with open(path, "rb") as handle:
    upload = SimpleUploadedFile(os.path.basename(path), handle.read())
started = time.perf_counter()
response = client.post(reverse("admin:cards_conceptcard_import"),
                       {"format": fmt, "resource": "0", "import_file": upload})
elapsed = time.perf_counter() - started
page = response.content.decode()
print("MEASURED", response.status_code, round(elapsed, 3), len(page), sep="\t")
print(page)
"""
# A child's peak memory is read from /proc: its rusage would also count the memory of the
# test process it was forked from (Linux carries that high-water mark across exec).
PEAK = r"""
import atexit, runpy, sys

def peak():
    with open("/proc/self/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    print(f"PEAK\t{kb}", flush=True)

atexit.register(peak)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.slow
def test_no_hostile_file_takes_more_than_200_mb_or_10_s(tmp_path):
    """Each hostile file, at the real limits, through the admin import view and through
    ``import_content``; each run is a fresh child process whose peak RSS is measured."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings",
           "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "PYTHONPATH": str(ROOT),
           "ALLOWED_HOSTS": "testserver"}
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "-c", "import django; django.setup(); "
                    "from django.contrib.auth.models import User; "
                    "User.objects.create_superuser('measure', 'm@example.org', 'pw')"],
                   cwd=ROOT, env=env, check=True)
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    files = {name: build() for name, (build, _words) in hostile.HOSTILE.items()}
    files["valid-20000-rows"] = ("concepts.csv", concepts_csv(20_000))
    report = []
    problems: list[str] = []
    for label, (name, data) in files.items():
        path = tmp_path / name
        path.write_bytes(data)
        fmt = FORMAT[name.rsplit(".", 1)[1]]
        view = _measure(python, [str(probe), str(path), fmt], env)
        command = _measure(python, ["manage.py", "import_content", str(path)], env)
        words = hostile.HOSTILE[label][1] if label in hostile.HOSTILE else None
        measured = [line for line in view[3].splitlines() if line.startswith("MEASURED\t")]
        assert measured, (label, view[3][-3000:])
        status_line = measured[0].split("\t")[1:]
        page_bytes = int(status_line[2])
        view = (view[0], float(status_line[1]), view[2], view[3])  # the request alone
        report.append((label, len(data), view[1], view[2], command[1], command[2], page_bytes))
        problems.extend(_check(label, words, status_line, view, command, page_bytes))
    lines = [f"| {label} | {size / 1024:,.0f} KB | {vs:.2f} s, {vm} MB | {cs:.2f} s, {cm} MB | "
             f"{page / 1024:,.0f} KB |" for label, size, vs, vm, cs, cm, page in report]
    print("\n" + "\n".join(lines))
    assert not problems, problems


def _check(label, words, status_line, view, command, page_bytes) -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    if status_line[0] != "200":
        found.append(f"{label}: the view answered {status_line[0]}")
    if words is not None:
        if words not in view[3]:
            found.append(f"{label}: the page does not say “{words}”")
        if command[0] != 1 or words not in command[3] or "Traceback" in command[3]:
            found.append(f"{label}: import_content said {command[3][-500:]!r}")
        measured = [view[1:3], command[1:3]]
    else:
        # The largest valid file: imported, with a small preview page. Its time is the
        # import's own work (every row checked), reported, not part of the hostile bound.
        if command[0] != 0:
            found.append(f"{label}: import_content failed: {command[3][-500:]!r}")
        if page_bytes >= 1_000_000:
            found.append(f"{label}: the preview page has {page_bytes} bytes")
        measured = [view[1:3], command[1:3]]
    for seconds, megabytes in measured:
        if not (seconds < (10 if words else 60) and megabytes < 200):
            found.append(f"{label}: {seconds:.1f} s, {megabytes} MB")
    return found


def _measure(python: str, args: list[str], env: dict[str, str]) -> tuple[int, float, int, str]:
    """(exit status, seconds, peak RSS in MB, output) of one child process."""
    started = time.perf_counter()
    result = subprocess.run([python, "-c", PEAK, *args], cwd=ROOT, env=env, capture_output=True,
                            timeout=120)
    elapsed = time.perf_counter() - started
    output = (result.stdout + result.stderr).decode(errors="replace")
    peaks = [int(line.split("\t")[1]) for line in output.splitlines() if line.startswith("PEAK\t")]
    assert peaks, output[-3000:]
    return result.returncode, elapsed, peaks[-1] // 1024, output
