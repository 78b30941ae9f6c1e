"""The README's front part says what a newcomer needs that the Makefile takes (issue 37,
item 11: `PORT=` was not in the README)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_readme_says_how_to_run_on_another_port_and_the_makefile_takes_it():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    head = readme[:readme.index("## Curator's guide")]
    assert "make run PORT=" in head and "HOST=0.0.0.0" in head
    run = re.search(r"^run: \$\(STAMP\)\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert run and "--port $(PORT)" in run.group(1) and "--host $(HOST)" in run.group(1)
