"""Decks rendered in the background: django-tasks with its database backend.

The print page (exports/print_views.py) checks the options and the deck at once (a bad
option or an untranslated text is shown on the form, nothing is queued), then queues every
print-shop deck and every PDF of more than ``KARTOTHEK_JOB_CARDS`` cards as a RenderJob. The
worker (``python manage.py db_worker``, ``make worker``) renders it into a temporary file,
keeps the file through the ``decks`` storage (a folder, or object storage: README,
"Storage"), and records progress and failures on the job, which the job page shows.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import fields
from typing import Any

from django.conf import settings
from django.core.files import File
from django.db.models import F
from django.utils import timezone
from django_tasks import task

from exports.models import RenderJob, decks_storage
from exports.packs import PackError
from exports.pdf import DeckError, DeckOptions, DeckRenderer, OptionError
from exports.pdf.imposition import NoRoom
from exports.pdf.raster import RasterError
from exports.pdf.source import deck_pack

logger = logging.getLogger(__name__)
PROGRESS_EVERY = 1.0  # seconds between progress writes: one UPDATE a second, not one a PNG
TUPLES = {"size", "back_offset"}


def options_to_json(options: DeckOptions) -> dict[str, Any]:
    if options.selection is not None:
        raise ValueError("A selection of cards is printed in the request, not as a job.")
    return {f.name: getattr(options, f.name) for f in fields(DeckOptions) if f.name != "selection"}


def options_from_json(data: dict[str, Any]) -> DeckOptions:
    known = {f.name for f in fields(DeckOptions)} - {"selection"}
    return DeckOptions(**{key: tuple(value) if key in TUPLES else value
                          for key, value in data.items() if key in known})


def deck_storage() -> Any:
    # looked up at each use: the storage of the settings in force (a model field's storage
    # is fixed when the model is imported)
    return decks_storage()


def needs_job(options: DeckOptions, renderer: DeckRenderer) -> bool:
    return options.profile == "gamecrafter" or renderer.report.cards > settings.KARTOTHEK_JOB_CARDS


def queue_render(game: str, language: str, release: str, options: DeckOptions, cards: int,
                 user: Any) -> RenderJob:
    job = RenderJob.objects.create(
        game=game, language=language, release=release, options=options_to_json(options),
        kind="zip" if options.profile == "gamecrafter" else "pdf", cards=cards,
        requested_by=user if getattr(user, "pk", None) else None,
    )
    result = render_job.enqueue(job.pk)
    RenderJob.objects.filter(pk=job.pk).update(task_id=str(result.id))
    job.refresh_from_db()
    return job


class _Progress:
    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - self.last >= PROGRESS_EVERY:
            self.last = now
            RenderJob.objects.filter(pk=self.job_id).update(done=done, total=total)


@task()
def render_job(job_id: int) -> str:
    """Render the deck of a RenderJob; returns the stored file's name."""
    job = RenderJob.objects.get(pk=job_id)
    if job.status != RenderJob.Status.QUEUED:
        return job.file.name  # run twice (a worker restarted): the first run counts
    RenderJob.objects.filter(pk=job_id).update(status=RenderJob.Status.RUNNING,
                                               started_at=timezone.now())
    try:
        name = _render(job)
    except DeckError as exc:
        _fail(job_id, "\n".join(exc.problems[:20])
              + (f"\n… and {len(exc.problems) - 20} more." if len(exc.problems) > 20 else ""))
        return ""
    except (PackError, OptionError, NoRoom, RasterError, OSError) as exc:
        _fail(job_id, str(exc))
        return ""
    except Exception as exc:
        # the task framework keeps the traceback; the curator sees what went wrong
        _fail(job_id, f"Unexpected error ({type(exc).__name__}): {exc}")
        raise
    return name


def _fail(job_id: int, message: str) -> None:
    logger.warning("render job %s failed: %s", job_id, message)
    RenderJob.objects.filter(pk=job_id).update(status=RenderJob.Status.FAILED, error=message,
                                               finished_at=timezone.now())


def _render(job: RenderJob) -> str:
    options = options_from_json(job.options)
    pack = deck_pack(job.game, job.language, release=job.release)
    renderer = DeckRenderer(pack, options)
    version = pack["content_version"]
    stem = f"{job.game}-{job.language}-{'draft' if version == 'draft' else f'release-{version}'}"
    with tempfile.TemporaryFile(prefix="kartothek-job-") as out:
        if job.kind == "zip":
            from exports.pdf.printshop import gamecrafter_pngs, write_zip

            write_zip(gamecrafter_pngs(renderer, progress=_Progress(job.pk)), out)
        else:
            RenderJob.objects.filter(pk=job.pk).update(total=renderer.report.cards)
            renderer.render(out)
            RenderJob.objects.filter(pk=job.pk).update(done=F("total"))
        out.seek(0)
        filename = f"{stem}.{job.kind}"
        stored = deck_storage().save(f"decks/{job.pk}-{filename}", File(out))
    RenderJob.objects.filter(pk=job.pk).update(
        status=RenderJob.Status.DONE, file=stored, filename=filename,
        warnings=len(renderer.report.warnings), finished_at=timezone.now(),
    )
    return stored
