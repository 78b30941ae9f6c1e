"""Big decks off the request: the print page queues them, django-tasks' database worker
renders them, the job page shows progress or the failure, and the file comes back through the
storage API. The worker is the real one (`db_worker --batch`), run in-process."""

from __future__ import annotations

import io
import zipfile

import pypdf
import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django_tasks_db.models import DBTaskResult
from PIL import Image

from exports.models import RenderJob
from exports.packs import load_pack

pytestmark = pytest.mark.django_db(transaction=True)

FORM = {"language": "en", "release": "draft", "size": "poker", "paper": "a4",
        "sides": "duplex-long", "crop_marks": "on", "bleed": "3", "gap": "0",
        "back_offset": "0,0", "min_font_size": "6", "profile": "", "print": "Download PDF"}


def _client(group: str | None) -> tuple[Client, User]:
    user = User.objects.create_user(username=f"u-{group}", password="karten-pw-1", is_staff=True)
    if group:
        user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    return client, user


def _run_worker() -> None:
    call_command("db_worker", "--batch", "--interval", "0", "--no-startup-delay")


def test_a_curator_queues_a_print_shop_deck_and_downloads_it_after_the_worker_ran(
        mini_catalogue):
    client, carla = _client("Curators")
    url = reverse("admin:exports_print", args=["sauschwer"])
    response = client.post(url, {**FORM, "profile": "gamecrafter"})
    assert response.status_code == 302, response.content[:500]
    job = RenderJob.objects.get()
    assert response["Location"] == reverse("admin:exports_job", args=[job.pk])
    assert (job.status, job.kind, job.requested_by, job.cards) == ("queued", "zip", carla, 6)
    assert DBTaskResult.objects.filter(id=job.task_id, status="READY").exists()

    page = client.get(response["Location"])
    assert b'http-equiv="refresh"' in page.content and b"waiting for the worker" in page.content
    assert client.get(reverse("admin:exports_job_download", args=[job.pk])).status_code == 404

    _run_worker()

    job.refresh_from_db()
    assert job.status == "done", job.error
    assert (job.done, job.total) == (12, 12)
    assert job.file.name.startswith("decks/") and job.filename == "sauschwer-en-draft.zip"
    page = client.get(reverse("admin:exports_job", args=[job.pk]))
    assert b'http-equiv="refresh"' not in page.content and b"job-download" in page.content
    download = client.get(reverse("admin:exports_job_download", args=[job.pk]))
    assert download.status_code == 200
    assert 'filename="sauschwer-en-draft.zip"' in download["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content))) as archive:
        names = archive.namelist()
        assert len(names) == 12 and "objects/0001-der-eiffelturm-front.png" in names
        with Image.open(io.BytesIO(archive.read(names[0]))) as image:
            assert image.size == (825, 1125)
    assert DBTaskResult.objects.get(id=job.task_id).status == "SUCCESSFUL"
    # the print page lists the game's background decks
    listed = client.get(url).content.decode()
    assert reverse("admin:exports_job", args=[job.pk]) in listed and "job-list" in listed


def test_a_pdf_over_the_threshold_is_a_job_and_a_small_one_is_not(mini_catalogue, settings):
    client, _ = _client("Curators")
    url = reverse("admin:exports_print", args=["slogan"])
    small = client.post(url, FORM)
    assert small.status_code == 200 and small["Content-Type"] == "application/pdf"
    assert not RenderJob.objects.exists()

    pack = load_pack("slogan", "en", release="draft")
    cards = len(pack["body"]["cards"]) + len(pack["body"]["alfons"])  # the English edition's
    settings.KARTOTHEK_JOB_CARDS = 5
    assert cards > 5
    response = client.post(url, FORM)
    assert response.status_code == 302
    _run_worker()
    job = RenderJob.objects.get()
    assert (job.status, job.kind, job.cards) == ("done", "pdf", cards)
    download = client.get(reverse("admin:exports_job_download", args=[job.pk]))
    reader = pypdf.PdfReader(io.BytesIO(b"".join(download.streaming_content)))
    assert len(reader.pages) >= 3 and "Slogan" in reader.pages[0].extract_text()


def test_a_failing_job_shows_its_message(mini_catalogue):
    client, _ = _client("Curators")
    url = reverse("admin:exports_print", args=["sauschwer"])
    assert client.post(url, {**FORM, "profile": "gamecrafter"}).status_code == 302
    job = RenderJob.objects.get()
    # the draft lost a language between the request and the worker: the worker says so
    RenderJob.objects.filter(pk=job.pk).update(language="xx")
    _run_worker()
    job.refresh_from_db()
    assert job.status == "failed" and "xx" in job.error
    page = client.get(reverse("admin:exports_job", args=[job.pk]))
    assert b"job-error" in page.content and b"xx" in page.content


def test_only_curators_queue_see_and_download_jobs(mini_catalogue):
    curator, _ = _client("Curators")
    translator, _ = _client("Translators")
    url = reverse("admin:exports_print", args=["sauschwer"])
    assert translator.post(url, {**FORM, "profile": "gamecrafter"}).status_code == 403
    assert not RenderJob.objects.exists()
    assert curator.post(url, {**FORM, "profile": "gamecrafter"}).status_code == 302
    job = RenderJob.objects.get()
    _run_worker()
    assert translator.get(reverse("admin:exports_job", args=[job.pk])).status_code == 403
    assert translator.get(reverse("admin:exports_job_download", args=[job.pk])).status_code == 403
