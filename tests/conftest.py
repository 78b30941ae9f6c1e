from pathlib import Path

import pytest
from django.core.management import call_command

from cards.catalogue import import_catalogue

ROOT = Path(__file__).resolve().parent.parent
MINI = Path(__file__).parent / "data" / "mini"
STARTER = ROOT / "fixtures"


@pytest.fixture(autouse=True)
def _fresh_api_caches():
    """Test databases reuse release numbers for other content: forget what the API cached."""
    from exports import api

    for name in ("_release_sha", "_release_bytes", "_embedded_bytes"):
        getattr(api, name).cache_clear()


@pytest.fixture
def mini_catalogue(db):
    """The smallest catalogue that obeys every rule (tests/data/mini), loaded."""
    report = import_catalogue(MINI)
    assert not report.errors, report.errors
    return report


@pytest.fixture
def run_command():
    """Run a management command; returns (exit status, stdout, stderr)."""
    import io

    from django.core.management.base import CommandError

    def run(*args):
        out, err = io.StringIO(), io.StringIO()
        try:
            call_command(*args, stdout=out, stderr=err)
        except CommandError as exc:
            return exc.returncode, out.getvalue(), err.getvalue() + str(exc)
        except SystemExit as exc:
            return exc.code, out.getvalue(), err.getvalue()
        return 0, out.getvalue(), err.getvalue()

    return run
