"""Decks rendered in the background: django-tasks with its database backend.

The print page (curation/print_pages.py) checks the options and the deck at once (a bad
option or an untranslated text is shown on the form, nothing is queued), then queues every
print-shop deck and every PDF of more than ``KARTOTHEK_JOB_CARDS`` cards as a RenderJob. The
worker (``python manage.py db_worker``, ``make worker``) renders it into a temporary file,
keeps the file through the ``decks`` storage (a folder, or object storage: README,
"Storage"), and records progress and failures on the job, which the job page shows.

Finished jobs are kept ``KARTOTHEK_JOB_KEEP_DAYS`` days: after each job the worker deletes
older ones with their files (``expire_render_jobs``; also ``manage.py expire_render_jobs``
for a cron job when no worker runs), and files in ``decks/`` that no job names (a worker
stopped between storing a file and recording it) once they are as old.
"""

from __future__ import annotations

import logging
import tempfile
import time
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.files import File
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task

from exports.errors import PackError
from exports.models import RenderJob, decks_storage
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
    finally:
        _expire_quietly()
    return name


def _expire_quietly() -> None:
    try:
        expire_render_jobs()
    except Exception:  # an expiry that fails must not fail the job that was just rendered
        logger.exception("expiring old render jobs failed")


@dataclass(frozen=True)
class Expired:
    jobs: int
    files: int


def expire_render_jobs(now: datetime | None = None) -> Expired:
    """Delete finished jobs (done or failed) older than KARTOTHEK_JOB_KEEP_DAYS and their
    files, and files under ``decks/`` that no job names once they are that old.

    A job still queued or running is never touched, nor is its file. Each file is deleted
    before its row: a crash in between leaves a row without a file (its download answers
    that the file is gone), never a file nobody will delete.
    """
    cutoff = (now or timezone.now()) - timedelta(days=settings.KARTOTHEK_JOB_KEEP_DAYS)
    storage = deck_storage()
    finished = [RenderJob.Status.DONE, RenderJob.Status.FAILED]
    old = RenderJob.objects.filter(status__in=finished).filter(
        Q(finished_at__lt=cutoff) | Q(finished_at__isnull=True, requested_at__lt=cutoff))
    jobs = files = 0
    for pk, name in old.values_list("pk", "file").iterator():
        if name:
            storage.delete(name)  # nothing happens for a name already gone
            files += 1
        jobs += RenderJob.objects.filter(pk=pk, status__in=finished).delete()[0]
    named = set(RenderJob.objects.exclude(file="").values_list("file", flat=True))
    try:
        _, stored = storage.listdir("decks")
    except FileNotFoundError:
        stored = []
    for entry in stored:
        name = f"decks/{entry}"
        if name in named or entry.startswith("."):
            continue
        try:
            modified = storage.get_modified_time(name)
        except (FileNotFoundError, OSError):
            continue
        if modified < cutoff:
            storage.delete(name)
            files += 1
    if jobs or files:
        logger.info("expired %s render jobs and %s files older than %s", jobs, files, cutoff)
    return Expired(jobs=jobs, files=files)


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
