"""The translation editor's and the progress page's cost against the catalogue's size, in one run.

    python bench/editor_speed.py [--small 200] [--large 20000] [--requests 30]

Each page GET through Django's test client (logged in, the whole response rendered: checks,
template) with --small objects, then with the catalogue grown to --large objects
(bench/pack_speed.py's generated objects and translations; their check findings stored as an
installation's imports store them; one object more with a name of its own, "Gusseiserne
Bratpfanne"); the median of --requests requests each. The editor page (25 Sauschwer texts): the
first page, a page in the middle, a state filter, and searches: for a word of one card
("bratpfanne", judged), for the generated names' own wording ("Nummer 17 aus": one object, but
every trigram of it is in every generated name, so a trigram index reads every text's entry)
and for a share of the catalogue ("nummer 1": 11 texts at 200 objects, 1,111 at 20,000; its
count reads every match, index or not); and the progress page (every game and language, with
the open check findings counted). Queries are counted too.
Target (issue 15, issue 23): each judged page at --large within 1.5× of the page at --small.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kartothek.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")
from scratch import use_scratch_folder  # noqa: E402

use_scratch_folder("kartothek-bench-")
os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

TARGET = 1.5
EDITOR = "/admin/cards/translate/sauschwer/en/"
PROGRESS = "/admin/cards/progress/"
JUDGED = ("first page", "page 5", "search", "progress")
VIEWS = {"first page": (EDITOR, {}), "page 5": (EDITOR, {"page": "5"}),
         "needs editing": (EDITOR, {"state": "needs_editing"}),
         "search": (EDITOR, {"q": "bratpfanne"}), "template search": (EDITOR, {"q": "Nummer 17 aus"}),
         "broad search": (EDITOR, {"q": "nummer 1"}),
         "progress": (PROGRESS, {})}


def measure(client, requests: int) -> dict[str, tuple[float, int]]:  # type: ignore[no-untyped-def]
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    result = {}
    for name, (url, params) in VIEWS.items():
        client.get(url, params)  # warm the per-process caches
        times = []
        for _ in range(requests):
            with CaptureQueriesContext(connection) as queries:
                began = time.perf_counter()
                response = client.get(url, params)
                times.append(time.perf_counter() - began)
            assert response.status_code == 200, response.status_code
        result[name] = (statistics.median(times) * 1000, len(queries.captured_queries))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=200)
    parser.add_argument("--large", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings

    # Rendered without collectstatic: plain static names (as the tests do), no manifest.
    from django.test.utils import override_settings

    override_settings(STORAGES={**settings.STORAGES, "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}).enable()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client
    from pack_speed import make_catalogue

    from cards.findings import rebuild_findings
    from cards.models import SauschwerObject
    from cards.translation import save_translation

    call_command("migrate", verbosity=0)
    client = Client()
    client.force_login(User.objects.create_superuser("bench", "", "bench-pw"))
    make_catalogue(args.small - 1, 0)
    pan = SauschwerObject.objects.create(key="gusseiserne-bratpfanne", name="Gusseiserne Bratpfanne",
                                         weight_g=2300, source="Küchenwaage")
    save_translation(pan, "name", "en", "Cast-iron frying pan")
    rebuild_findings()  # make_catalogue writes with bulk_create, as no import does
    small = measure(client, args.requests)
    make_catalogue(args.large - 1, 0, start_objects=args.small - 1)
    rebuild_findings()
    assert SauschwerObject.objects.count() == args.large
    large = measure(client, args.requests)

    print(f"editor page of 25 Sauschwer texts and the progress page, median of {args.requests} "
          f"requests; {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'view':<15} {args.small:>7,} objects   {args.large:>7,} objects   ratio")
    worst = 0.0
    for name in VIEWS:
        (a, qa), (b, qb) = small[name], large[name]
        if name in JUDGED:
            worst = max(worst, b / a)
        note = "" if name in JUDGED else "  (shown, not judged)"
        print(f"{name:<15} {a:7.1f} ms {qa:3d} q  {b:7.1f} ms {qb:3d} q  {b / a:5.2f}×{note}")
    verdict = "met" if worst <= TARGET else "NOT met"
    print(f"target: the page within {TARGET}× at {args.large:,} objects — worst {worst:.2f}×, "
          f"{verdict}")
    if worst > TARGET:
        sys.exit(1)


if __name__ == "__main__":
    main()
