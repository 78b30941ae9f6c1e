"""Import speed: import_content against django-import-export's default resource and a plain
bulk_create (the floor), on a generated 10,000-row Sauschwer CSV, in one run.

    python bench/import_speed.py [--rows 10000] [--changed 1000]

Each way imports into an empty table, then re-imports the file with --changed rows edited;
the best of --repeat runs counts.
Targets (issue 3): import_content at least 5x the rows/s of the default resource and at most
5x the bulk_create time, with every row validated and history written.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-")
os.environ.pop("DATABASE_URL", None)


def make_csv(path: Path, rows: int, changed: int = 0) -> None:
    lines = ["key,name,weight_g,source"]
    for i in range(rows):
        suffix = " (neu)" if i < changed else ""
        lines.append(f"ding-{i},Ding Nummer {i}{suffix},{(i * 7919) % 10_000_000 + 1},Waage {i}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--changed", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per way")
    args = parser.parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import tablib
    from django.db import connection, transaction
    from import_export import resources

    from cards.catalogue import import_file
    from cards.models import SauschwerObject

    folder = Path(os.environ["KARTOTHEK_VAR_DIR"])
    first, second = folder / "objects.csv", folder / "objects-changed.csv"
    make_csv(first, args.rows)
    make_csv(second, args.rows, args.changed)

    def empty() -> None:
        SauschwerObject.objects.all().delete()
        SauschwerObject.history.all().delete()

    def ours(path: Path) -> None:
        _, report = import_file(path)
        assert not report.errors, report.errors[:3]

    class DefaultResource(resources.ModelResource):
        class Meta:
            model = SauschwerObject
            import_id_fields = ("key",)
            fields = ("key", "name", "weight_g", "source")

    def default(path: Path) -> None:
        dataset = tablib.Dataset().load(path.read_text(encoding="utf-8"), format="csv")
        result = DefaultResource().import_data(dataset, raise_errors=True)
        assert not result.has_errors()

    def floor_first(path: Path) -> None:
        dataset = tablib.Dataset().load(path.read_text(encoding="utf-8"), format="csv")
        with transaction.atomic():
            SauschwerObject.objects.bulk_create(
                SauschwerObject(key=r["key"], name=r["name"], weight_g=int(r["weight_g"]),
                                source=r["source"]) for r in dataset.dict
            )

    def floor_again(path: Path) -> None:
        dataset = tablib.Dataset().load(path.read_text(encoding="utf-8"), format="csv")
        with transaction.atomic():
            stored = {o.key: o for o in SauschwerObject.objects.all()}
            changed = []
            for r in dataset.dict:
                obj = stored[r["key"]]
                if obj.name != r["name"]:
                    obj.name = r["name"]
                    changed.append(obj)
            SauschwerObject.objects.bulk_update(changed, ["name"])

    def timed(fn, path: Path) -> float:  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        fn(path)
        return time.perf_counter() - start

    results: dict[str, tuple[float, float]] = {}
    for name, run_first, run_again in (
        ("bulk_create (floor)", floor_first, floor_again),
        ("import_content", ours, ours),
        ("default resource", default, default),
    ):
        t1 = t2 = float("inf")
        for _ in range(args.repeat):  # best of N: the machine is shared and noisy
            empty()
            t1 = min(t1, timed(run_first, first))
            t2 = min(t2, timed(run_again, second))
        assert SauschwerObject.objects.filter(name__endswith="(neu)").count() == args.changed
        history = SauschwerObject.history.count()
        results[name] = (t1, t2)
        print(f"{name:22} first import {t1:7.2f} s ({args.rows / t1:9,.0f} rows/s)   "
              f"re-import {t2:7.2f} s ({args.rows / t2:9,.0f} rows/s)   history rows {history}")

    (f1, f2), (o1, o2), (d1, d2) = (results["bulk_create (floor)"], results["import_content"],
                                     results["default resource"])
    print()
    print(f"import_content vs default resource: {d1 / o1:5.1f}x faster (first), "
          f"{d2 / o2:5.1f}x faster (re-import)   target >= 5x")
    print(f"import_content vs bulk_create:      {o1 / f1:5.1f}x the time (first), "
          f"{o2 / f2:5.1f}x the time (re-import)  target <= 5x")
    print(f"database: {connection.vendor}; machine: {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
