"""The judging parts of `make load` / `make faults` (tools/load.py, tools/faults.py): cheap,
no server. The scripts themselves run outside the test suite (README: Proof under load)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> ModuleType:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        spec = importlib.util.spec_from_file_location(f"kartothek_tool_{name}", ROOT / "tools" / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "tools"))


def test_memory_counts_as_flat_only_when_the_second_half_grew_little():
    load = tool("load")
    sampler = load.MemorySampler(master=0)
    # A worker that fills its caches in the first minute, then stays; one that keeps growing.
    sampler.samples = {
        1: [(t, 80.0 + min(t, 60) / 2) for t in range(0, 301, 5)],
        2: [(t, 80.0 + t / 5) for t in range(0, 301, 5)],
    }
    lines, flat = sampler.report(settled_after=60, tolerance=0.05)
    assert not flat
    assert lines[0].endswith("flat") and lines[1].endswith("GREW")
    del sampler.samples[2]
    assert sampler.report(settled_after=60, tolerance=0.05)[1]


def test_locust_statistics_are_read_per_endpoint(tmp_path):
    load = tool("load")
    header = ("Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,"
              "Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,"
              "50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%")
    (tmp_path / "locust_stats.csv").write_text(
        header + "\nGET,GET /api/packs/,10,1,40,50,5,300,900,2.5,0.1,40,45,50,60,70,80,90,250,300,300,300\n"
        ",Aggregated,10,1,40,50,5,300,900,2.5,0.1,40,45,50,60,70,80,90,250,300,300,300\n")
    rows = load.read_stats(tmp_path)
    assert [(r.name, r.requests, r.failures, r.p50, r.p99) for r in rows] == [
        ("GET /api/packs/", 10, 1, 40.0, 250.0), ("Aggregated", 10, 1, 40.0, 250.0)]
    assert "| GET /api/packs/ | 10 | 1 | 40 | 250 | 2.5 |" in load.stats_table(rows)


def test_the_big_import_file_has_unique_short_keys_and_names(tmp_path):
    faults = tool("faults")
    import csv

    with faults.big_import_file(tmp_path).open(encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == faults.IMPORT_ROWS
    assert len({r["key"] for r in rows}) == len({r["name"] for r in rows}) == len(rows)
    assert max(len(r["key"]) for r in rows) <= 60
