"""The play bench's own helpers, without timing anything: its SSE parser (bench/play_load.py)
reads what the events view writes, and its memory slope (bench/play_measure.py) is a
least-squares fit. The run itself: `python bench/play_speed.py --quick` (a few seconds of each
scenario)."""

import os
import sys
from pathlib import Path

from games.api import _event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
_environment = dict(os.environ)  # the bench sets its own variables when imported
try:
    from play_load import parse_events
    from play_measure import slope
finally:
    os.environ.clear()
    os.environ.update(_environment)


def test_the_bench_parser_reads_the_views_events_and_keeps_a_partial_one():
    body = {"version": 7, "code": "K7XQM", "you": "p2", "view": {"note": "a: b"}}
    raw = b"retry: 2000\n\n" + _event(body) + b": keep-alive\n\n" + _event({**body, "version": 8})[:20]
    found, rest = parse_events(raw)
    assert [(ident, kind) for ident, kind, _ in found] == [("7", "room")]
    assert rest == _event({**body, "version": 8})[:20]


def test_the_memory_slope_is_megabytes_a_minute():
    assert slope([(0, 100.0), (30, 100.5), (60, 101.0)]) == 1.0
    assert slope([(0, 100.0)]) == 0.0
