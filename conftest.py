"""Test set-up shared by the whole suite (see tests/ for the tests themselves)."""

import os
import shutil

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests are deterministic: the same examples on every run (and no time limit per
# example on a shared, noisy machine).
hypothesis_settings.register_profile("kartothek", derandomize=True, deadline=None,
                                     database=None)
hypothesis_settings.load_profile("kartothek")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is not installed at {CHROMIUM}; .ci/run installs it.")
        pytest.skip(f"Chromium is not installed at {CHROMIUM} (apt-get install chromium).")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run",
        ],
    }
