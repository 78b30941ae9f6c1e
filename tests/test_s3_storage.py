"""Object storage: with KARTOTHEK_STORAGE=s3 the settings put tile pictures and the decks of
background jobs in an S3 bucket. Here the bucket is moto's S3 server (a real HTTP server on a
loopback port, spoken to by boto3 through django-storages); the test imports the catalogue
(tile pictures written to the bucket), publishes (pictures read back from it), serves the pack
and a picture through the API, and renders a print-shop deck in the worker into the bucket."""

from __future__ import annotations

import gzip
import hashlib
import io
import socket
import zipfile
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from django.contrib.auth.models import Group, User
from django.core.files.storage import storages
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from cards.catalogue import import_catalogue
from cards.models import SymbolTile
from exports import api as exports_api
from exports.models import RenderJob
from exports.packs import publish
from tests.conftest import MINI

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BUCKET = "kartothek-test"
KEYS = {"access_key": "testing-key", "secret_key": "testing-secret"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def s3_endpoint() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id=KEYS["access_key"],
                     aws_secret_access_key=KEYS["secret_key"]).create_bucket(Bucket=BUCKET)
        yield endpoint
    finally:
        server.stop()


@pytest.fixture
def s3_storages(s3_endpoint, settings) -> Iterator[boto3.session.Session]:
    """The STORAGES kartothek/settings.py makes of KARTOTHEK_STORAGE=s3 (same backends, same
    options), pointed at the test's server."""
    options = {"bucket_name": BUCKET, "endpoint_url": s3_endpoint, "region_name": "us-east-1",
               **KEYS, "default_acl": None, "querystring_auth": True, "file_overwrite": False}
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "storages.backends.s3.S3Storage",
                    "OPTIONS": {**options, "location": "media"}},
        "pictures": {"BACKEND": "exports.object_storage.ContentAddressedS3Storage",
                     "OPTIONS": options},
        "decks": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options},
        "releases": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options},
    }
    # A model field takes its storage when the model is imported, as a process started with
    # KARTOTHEK_STORAGE=s3 would; here the settings change later, so the field follows.
    field = SymbolTile._meta.get_field("image")
    before = field.storage
    field.storage = storages["pictures"]
    try:
        yield boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1",
                           aws_access_key_id=KEYS["access_key"],
                           aws_secret_access_key=KEYS["secret_key"])
    finally:
        field.storage = before


def _objects(client, prefix: str) -> dict[str, bytes]:
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return {item["Key"]: client.get_object(Bucket=BUCKET, Key=item["Key"])["Body"].read()
            for item in listed}


def test_pictures_and_decks_live_in_the_bucket_from_import_to_download(s3_storages, settings):
    s3 = s3_storages
    local = Path(settings.MEDIA_ROOT) / "pictures"

    def local_files() -> set[Path]:
        return set(local.rglob("*")) if local.exists() else set()

    # Earlier tests of the run may have stored the same pictures locally (content-addressed:
    # same bytes, same name): the import must add nothing there.
    before = local_files()
    assert not import_catalogue(MINI).errors
    pictures = _objects(s3, "pictures/")
    tile = SymbolTile.objects.exclude(image="").order_by("key").first()
    assert tile is not None and tile.image.name in pictures
    # content-addressed in the bucket too: the name is the sha256 of the bytes
    assert all(hashlib.sha256(data).hexdigest() in name for name, data in pictures.items())
    # nothing of it went to the local folder
    assert local_files() == before

    local_releases = Path(settings.MEDIA_ROOT) / "releases"
    releases_before = set(local_releases.rglob("*")) if local_releases.exists() else set()
    published = publish("symbols", "en")
    assert published.created
    # the release's bytes are an object in the bucket, named by their sha256, not a local file
    digest = published.release.sha256
    stored = _objects(s3, "releases/")
    assert list(stored) == [f"releases/{digest[:2]}/{digest}.json"]
    assert hashlib.sha256(stored[f"releases/{digest[:2]}/{digest}.json"]).hexdigest() == digest
    # (earlier tests of the run may have published the same bytes locally: nothing is added)
    assert (set(local_releases.rglob("*")) if local_releases.exists() else set()) == releases_before
    api = Client()
    latest = api.get("/api/packs/symbols/en/latest")
    pack = api.get(latest["Location"])
    assert pack.status_code == 200 and tile.image_sha256 in pack.content.decode()
    assert pack.content == stored[f"releases/{digest[:2]}/{digest}.json"]  # byte for byte
    zipped = api.get(latest["Location"], headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(zipped.content) == pack.content
    # An object changed in the bucket behind the server's back is refused, never served.
    key = f"releases/{digest[:2]}/{digest}.json"
    s3.put_object(Bucket=BUCKET, Key=key, Body=pack.content.replace(b"symbols", b"symbolz"))
    for name in ("_release_sha", "_release_bytes", "_embedded_bytes"):  # a fresh process
        getattr(exports_api, name).cache_clear()
    refused = api.get(latest["Location"])
    assert refused.status_code == 409 and "does not hold the published bytes" in refused.json()[
        "error"]
    s3.put_object(Bucket=BUCKET, Key=key, Body=pack.content)
    assert api.get(latest["Location"]).content == pack.content
    picture = api.get(f"/api/pictures/{tile.image_sha256}.png")
    assert picture.status_code == 200
    assert bytes(picture.content) == pictures[tile.image.name]

    carla = User.objects.create_user(username="carla", password="karten-pw-1", is_staff=True)
    carla.groups.add(Group.objects.get(name="Curators"))
    curator = Client()
    curator.force_login(carla)
    form = {"language": "en", "release": "latest", "size": "poker", "paper": "a4",
            "sides": "duplex-long", "bleed": "3", "gap": "0", "back_offset": "0,0",
            "min_font_size": "6", "profile": "gamecrafter", "print": "Download PDF"}
    assert curator.post(reverse("admin:exports_print", args=["symbols"]), form).status_code == 302
    call_command("db_worker", "--batch", "--interval", "0", "--no-startup-delay")
    job = RenderJob.objects.get()
    assert job.status == "done", job.error
    decks = _objects(s3, "decks/")
    assert list(decks) == [job.file.name]
    download = curator.get(reverse("admin:exports_job_download", args=[job.pk]))
    body = b"".join(download.streaming_content)
    assert body == decks[job.file.name]
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        assert any(name.startswith("tiles/") for name in archive.namelist())
