"""Old render jobs do not pile up: finished jobs older than KARTOTHEK_JOB_KEEP_DAYS go with
their files, after each job the worker runs and by ``manage.py expire_render_jobs``; jobs
still queued or running, recent jobs, and their files stay."""

from __future__ import annotations

import io
import os
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone

from exports.jobs import Expired, deck_storage, expire_render_jobs, render_job
from exports.models import RenderJob

pytestmark = pytest.mark.django_db


def _job(status: str, days_ago: float, *, with_file: bool = True) -> RenderJob:
    job = RenderJob.objects.create(game="sauschwer", language="de", release="draft", options={},
                                   kind="zip", status=status)
    name = ""
    if with_file:
        name = deck_storage().save(f"decks/{job.pk}-deck.zip", ContentFile(b"PK\x05\x06" + bytes(18)))
    when = timezone.now() - timedelta(days=days_ago)
    RenderJob.objects.filter(pk=job.pk).update(
        file=name, requested_at=when,
        finished_at=when if status in ("done", "failed") else None)
    job.refresh_from_db()
    return job


def _orphan(name: str, days_ago: float) -> str:
    stored = deck_storage().save(name, ContentFile(b"left behind"))
    old = (timezone.now() - timedelta(days=days_ago)).timestamp()
    os.utime(deck_storage().path(stored), (old, old))
    return stored


def test_finished_jobs_older_than_the_keep_days_go_with_their_files(settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "decks": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": tmp_path}}}
    settings.KARTOTHEK_JOB_KEEP_DAYS = 7
    storage = deck_storage()
    old_done, old_failed = _job("done", 8), _job("failed", 30, with_file=False)
    recent = _job("done", 6)
    still_running, still_queued = _job("running", 40), _job("queued", 40, with_file=False)
    old_orphan, new_orphan = _orphan("decks/99-crashed.zip", 9), _orphan("decks/98-new.zip", 1)

    out = io.StringIO()
    call_command("expire_render_jobs", stdout=out)

    assert "Expired 2 render jobs and 2 files older than 7 days." in out.getvalue()
    assert set(RenderJob.objects.values_list("pk", flat=True)) == {
        recent.pk, still_running.pk, still_queued.pk}
    assert not storage.exists(old_done.file.name) and not storage.exists(old_orphan)
    assert storage.exists(recent.file.name) and storage.exists(still_running.file.name)
    assert storage.exists(new_orphan)
    assert old_failed.file.name == ""
    # nothing left to do: running it again changes nothing
    assert expire_render_jobs() == Expired(jobs=0, files=0)


def test_the_worker_expires_old_jobs_after_each_job(mini_catalogue, settings, tmp_path):
    settings.STORAGES = {**settings.STORAGES, "decks": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": tmp_path}}}
    old = _job("done", 10)
    failing = RenderJob.objects.create(game="sauschwer", language="xx", release="draft",
                                       options={}, kind="pdf")
    render_job.call(failing.pk)  # fails at once (no language xx), then expires
    failing.refresh_from_db()
    assert failing.status == "failed"
    assert not RenderJob.objects.filter(pk=old.pk).exists()
    assert not deck_storage().exists(old.file.name)
