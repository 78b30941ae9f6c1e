"""Tile pictures stay true: content-addressed storage, sha256 checks, complete decoding.

Issue 10, failures 2 and 4: an upload named like another tile's file replaced that tile's
picture and a release then served other bytes than its sha256; a truncated PNG was accepted
and printing answered 500. Every test here runs with its own MEDIA_ROOT, so tampering with a
file never touches another test's pictures.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import random
import shutil
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.auth.models import Group, User
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.core.management.base import CommandError
from PIL import Image

from cards.catalogue import import_catalogue
from cards.models import ConceptCard, SymbolTile, Translation
from exports.models import PackPicture, Release
from exports.packs import build_pack, canonical, publish, sha256, with_embedded_pictures
from tests.publishing import confirm_publish

MINI = Path(__file__).parent / "data" / "mini"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def own_media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


# --- pictures, good and broken ---------------------------------------------------------------


def noise_png(seed: int, size: int = 96) -> bytes:
    """A picture of random pixels: it hardly compresses, so a cut really loses pixel data."""
    rnd = random.Random(seed)
    image = Image.frombytes("RGB", (size, size), bytes(rnd.randrange(256) for _ in range(size * size * 3)))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def noise_jpeg(seed: int, size: int = 96) -> bytes:
    with Image.open(io.BytesIO(noise_png(seed, size))) as image:
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    chunks, pos = [], 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        chunks.append((png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]))
        pos += 12 + length
    return chunks


def _png(chunks: list[tuple[bytes, bytes]]) -> bytes:
    out = b"\x89PNG\r\n\x1a\n"
    for kind, data in chunks:
        out += struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return out


def truncated_png() -> bytes:
    """Half the compressed pixels, in chunks whose checksums are right (as a cut-off re-save
    gives): the header and ``verify()`` are satisfied, decoding is not."""
    chunks = _chunks(noise_png(1))
    header = [c for c in chunks if c[0] == b"IHDR"]
    pixels = b"".join(data for kind, data in chunks if kind == b"IDAT")
    return _png([*header, (b"IDAT", pixels[: len(pixels) // 2]), (b"IEND", b"")])


def truncated_jpeg() -> bytes:
    data = noise_jpeg(2)
    return data[: len(data) * 2 // 3]


def bad_crc_png() -> bytes:
    data = bytearray(noise_png(3))
    data[data.index(b"IDAT") + 40] ^= 0xFF  # a changed pixel byte, the old checksum kept
    return bytes(data)


BROKEN = {"truncated PNG": truncated_png, "truncated JPEG": truncated_jpeg,
          "PNG with a bad CRC": bad_crc_png}


def test_the_broken_pictures_are_broken_the_way_the_tests_need():
    # The truncated ones pass Pillow's verify(): only a full decode finds them.
    for make in (truncated_png, truncated_jpeg):
        with Image.open(io.BytesIO(make())) as image:
            image.verify()
    for make in BROKEN.values():
        with pytest.raises(OSError), Image.open(io.BytesIO(make())) as image:
            image.load()
    with Image.open(io.BytesIO(noise_png(9))) as image:
        image.load()


# --- the admin, as a curator with a browser would post ----------------------------------------


class _Form(HTMLParser):
    """The fields a browser would send from the admin's change form (file inputs aside)."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[tuple[str, str]] = []
        self._in_form = False
        self._textarea: str | None = None
        self._select: str | None = None
        self._first_option: str | None = None
        self._chosen = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("enctype") == "multipart/form-data":
            self._in_form = True
        if not self._in_form:
            return
        name = a.get("name", "")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind == "file" or (kind == "submit" and name != "_save"):
                return
            if kind == "checkbox" and "checked" not in a:
                return
            self.fields.append((name, a.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "textarea":
            self._textarea = name
            self.fields.append((name, ""))
        elif tag == "select":
            self._select, self._first_option, self._chosen = name, None, False
        elif tag == "option" and self._select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
            if "selected" in a:
                self.fields.append((self._select, a.get("value", "")))
                self._chosen = True

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            name, text = self.fields.pop()
            self.fields.append((name, text + data))

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea" and self._textarea is not None:
            name, text = self.fields.pop()
            self.fields.append((name, text.removeprefix("\n")))
            self._textarea = None
        elif tag == "select" and self._select:
            if not self._chosen and self._first_option is not None:
                self.fields.append((self._select, self._first_option))
            self._select = None
        elif tag == "form":
            self._in_form = False


@pytest.fixture
def curator(client):
    user = User.objects.create_user(username="carla", password="karten-pw-1", is_staff=True)
    user.groups.add(Group.objects.get(name="Curators"))
    client.force_login(user)
    return client


def upload(client, tile: SymbolTile, data: bytes, filename: str):  # type: ignore[no-untyped-def]
    """A real multipart POST of the tile's change form with a new picture."""
    url = f"/admin/cards/symboltile/{tile.pk}/change/"
    form = _Form()
    form.feed(client.get(url).content.decode())
    payload: dict[str, list[str] | str | ContentFile] = {}
    for name, value in form.fields:
        payload.setdefault(name, []).append(value)  # type: ignore[union-attr]
    payload["image"] = ContentFile(data, name=filename)
    return client.post(url, payload)


def stored_files(media: Path) -> set[Path]:
    return {p for p in (media / "pictures").rglob("*") if p.is_file()} if media.exists() else set()


def tile_bytes(key: str) -> bytes:
    tile = SymbolTile.objects.get(key=key)
    with tile.image.open("rb") as handle:
        return handle.read()


# --- failure 2: one tile's upload never replaces another tile's picture -----------------------


def test_two_tiles_uploaded_with_the_same_file_name_keep_their_own_pictures(
        mini_catalogue, curator, client):
    handy_picture, koffer_picture = noise_png(11, 128), noise_png(12, 128)
    before = {t.key: (t.image_sha256, tile_bytes(t.key)) for t in SymbolTile.objects.all()}

    response = upload(curator, SymbolTile.objects.get(key="handy"), handy_picture, "koffer.png")
    assert response.status_code == 302, response.content.decode()[:2000]
    first = publish("symbols", "en").release

    response = upload(curator, SymbolTile.objects.get(key="koffer"), koffer_picture, "koffer.png")
    assert response.status_code == 302, response.content.decode()[:2000]
    second = publish("symbols", "en").release
    assert (first.version, second.version) == (1, 2)

    assert tile_bytes("handy") == handy_picture
    assert tile_bytes("koffer") == koffer_picture
    for tile in SymbolTile.objects.exclude(key__in=["handy", "koffer"]):
        assert (tile.image_sha256, tile_bytes(tile.key)) == before[tile.key]
    assert SymbolTile.objects.get(key="handy").image.name != SymbolTile.objects.get(key="koffer").image.name

    expected = {
        1: {**{k: v for k, (_, v) in before.items()}, "handy": handy_picture},
        2: {**{k: v for k, (_, v) in before.items()}, "handy": handy_picture, "koffer": koffer_picture},
    }
    for release in (first, second):
        pack = json.loads(client.get(f"/api/packs/symbols/en/{release.version}.json").content)
        embedded = json.loads(client.get(
            f"/api/packs/symbols/en/{release.version}.json?pictures=embedded").content)
        inside = {s["key"]: base64.b64decode(s["picture"]["data"]) for s in embedded["body"]["symbols"]}
        for symbol in pack["body"]["symbols"]:
            picture = symbol["picture"]
            served = client.get(picture["url"])
            assert served.status_code == 200
            want = expected[release.version][symbol["key"]]
            assert served.content == want, f"release {release.version}, {symbol['key']}"
            assert hashlib.sha256(served.content).hexdigest() == picture["sha256"]
            assert inside[symbol["key"]] == want
            assert hashlib.sha256(inside[symbol["key"]]).hexdigest() == picture["sha256"]
            stored = PackPicture.objects.get(sha256=picture["sha256"])
            assert bytes(stored.data) == want


def test_stored_pictures_are_named_by_their_sha256_and_never_overwritten(own_media):
    from cards.pictures import content_address, picture_storage

    storage = picture_storage()
    first, second = noise_png(21), noise_png(22)
    name = storage.save("koffer.png", ContentFile(first))
    assert name == content_address(first)
    digest = hashlib.sha256(first).hexdigest()
    assert name == f"pictures/{digest[:2]}/{digest}.png"
    assert storage.save("koffer.png", ContentFile(first)) == name  # the same bytes: the same file
    other = storage.save("koffer.png", ContentFile(second))
    assert other != name
    assert (own_media / name).read_bytes() == first
    assert (own_media / other).read_bytes() == second
    assert len(stored_files(own_media)) == 2
    assert content_address(noise_jpeg(1)).endswith(".jpg")


def test_a_tile_pointed_at_another_stored_picture_takes_that_pictures_sha256(mini_catalogue):
    handy, koffer = SymbolTile.objects.get(key="handy"), SymbolTile.objects.get(key="koffer")
    handy.image = koffer.image.name
    handy.save()
    handy.refresh_from_db()
    assert (handy.image_sha256, handy.image_width) == (koffer.image_sha256, koffer.image_width)


# --- a file changed on disk is refused, never served or published ---------------------------


def tamper(tile: SymbolTile, data: bytes) -> Path:
    path = Path(tile.image.path)
    path.write_bytes(data)
    return path


def test_a_picture_changed_on_disk_is_refused_by_publish_print_and_the_api(
        mini_catalogue, curator, client, caplog):
    handy = SymbolTile.objects.get(key="handy")
    tamper(handy, noise_png(31, 128))

    with pytest.raises(CommandError) as refused:
        call_command("publish_pack", "symbols", "--lang", "en")
    assert "symbol tile 'handy'" in str(refused.value)
    assert "does not match its sha256" in str(refused.value)
    assert not Release.objects.exists()
    assert not PackPicture.objects.filter(sha256=handy.image_sha256).exists()

    response = confirm_publish(curator, "symbols", "en")
    assert "symbol tile &#x27;handy&#x27;" in response.content.decode()
    assert not Release.objects.exists()

    caplog.clear()
    served = client.get(f"/api/pictures/{handy.image_sha256}.png")
    assert served.status_code == 409
    assert served["Content-Type"] == "application/json"
    assert "symbol tile 'handy'" in served.json()["error"]
    assert any("handy" in r.getMessage() for r in caplog.records if r.name == "kartothek.pictures")

    draft = curator.get("/api/packs/symbols/en/draft.json?pictures=embedded")
    assert draft.status_code == 409 and "handy" in draft.json()["error"]

    printed = curator.post("/admin/exports/print/symbols/", {
        "language": "en", "release": "draft", "size": "poker", "paper": "a4",
        "sides": "duplex-long", "bleed": "3", "gap": "0", "back_offset": "0,0",
        "min_font_size": "6", "profile": "", "print": "Download PDF"})
    assert printed.status_code == 200 and printed["Content-Type"].startswith("text/html")
    assert "handy" in printed.content.decode()

    with pytest.raises(CommandError) as refused:
        call_command("export_catalogue", str(Path(handy.image.path).parent.parent / "backup"))
    assert "symbol tile 'handy'" in str(refused.value)


def test_a_release_keeps_serving_the_true_bytes_after_the_file_changes(mini_catalogue, client):
    release = publish("symbols", "en").release
    handy = SymbolTile.objects.get(key="handy")
    true_bytes = tile_bytes("handy")
    tamper(handy, noise_png(32, 128))
    served = client.get(f"/api/pictures/{handy.image_sha256}.png")
    assert served.status_code == 200 and served.content == true_bytes  # the release's own copy

    PackPicture.objects.filter(sha256=handy.image_sha256).update(data=b"changed in the database")
    served = client.get(f"/api/pictures/{handy.image_sha256}.png")
    assert served.status_code == 409
    assert "handy" in served.json()["error"]
    embedded = client.get(f"/api/packs/symbols/en/{release.version}.json?pictures=embedded")
    assert embedded.status_code == 409


def test_publishing_repairs_a_damaged_copy_from_a_true_file(mini_catalogue):
    publish("symbols", "en")
    handy = SymbolTile.objects.get(key="handy")
    PackPicture.objects.filter(sha256=handy.image_sha256).update(data=b"damaged")
    Translation.objects.filter(language="en").first().delete()  # some change: a new release
    assert publish("symbols", "en").created
    assert bytes(PackPicture.objects.get(sha256=handy.image_sha256).data) == tile_bytes("handy")


# --- failure 4: pictures are decoded completely at upload -----------------------------------


@pytest.mark.parametrize("kind", BROKEN)
def test_a_broken_picture_is_refused_at_upload_and_nothing_changes(mini_catalogue, curator, own_media,
                                                                  kind):
    tile = SymbolTile.objects.get(key="sonne")
    before = (tile.image.name, tile.image_sha256, tile_bytes("sonne"))
    files = stored_files(own_media)
    response = upload(curator, tile, BROKEN[kind](), "sonne.png")
    assert response.status_code == 200  # the form again, with the error
    page = response.content.decode()
    assert "errorlist" in page
    assert "not a picture that can be opened" in page or "Upload a valid image" in page
    tile.refresh_from_db()
    assert (tile.image.name, tile.image_sha256, tile_bytes("sonne")) == before
    assert stored_files(own_media) == files


def test_the_message_says_the_picture_is_broken(mini_catalogue, curator):
    response = upload(curator, SymbolTile.objects.get(key="sonne"), truncated_png(), "sonne.png")
    assert "it is broken (truncated or damaged" in response.content.decode()


def test_a_valid_picture_is_stored_at_upload(mini_catalogue, curator, own_media):
    from cards.pictures import content_address

    data = noise_png(41, 128)
    response = upload(curator, SymbolTile.objects.get(key="sonne"), data, "sonne.png")
    assert response.status_code == 302
    tile = SymbolTile.objects.get(key="sonne")
    assert tile.image.name == content_address(data)
    assert (own_media / tile.image.name).read_bytes() == data
    assert (tile.image_width, tile.image_height) == (128, 128)


def catalogue_with_picture(tmp_path: Path, data: bytes) -> Path:
    folder = tmp_path / "catalogue"
    shutil.copytree(MINI, folder)
    tiles = folder / "symbols" / "symbol_tiles.csv"
    lines = tiles.read_text(encoding="utf-8").splitlines()
    lines[0] += ",picture"
    lines[1:] = [line + (",symbols/pictures/handy.png" if line.startswith("handy,") else ",")
                 for line in lines[1:]]
    tiles.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "symbols" / "pictures").mkdir(parents=True)
    (folder / "symbols" / "pictures" / "handy.png").write_bytes(data)
    return folder


@pytest.mark.parametrize("kind", BROKEN)
def test_a_catalogue_with_a_broken_picture_is_refused_whole(db, tmp_path, own_media, kind):
    report = import_catalogue(catalogue_with_picture(tmp_path, BROKEN[kind]()))
    assert report.errors
    assert any("picture" in str(e) and ("broken" in str(e) or "opened" in str(e))
               for e in report.errors), report.errors
    assert not SymbolTile.objects.exists()
    assert not ConceptCard.objects.exists()
    # Other rows' pictures may have been filed before the broken one was met; nothing points
    # at them, and a content-addressed file can only ever hold those same bytes.
    assert not any(p.name.startswith(".upload-") for p in stored_files(own_media))


def test_a_catalogue_with_a_valid_picture_stores_it_by_content(db, tmp_path):
    from cards.pictures import content_address

    data = noise_png(42, 128)
    report = import_catalogue(catalogue_with_picture(tmp_path, data))
    assert not report.errors, report.errors
    assert tile_bytes("handy") == data
    assert SymbolTile.objects.get(key="handy").image.name == content_address(data)


def pack_with_picture(tmp_path: Path, data: bytes) -> Path:
    """The symbols pack with embedded pictures, handy's replaced by ``data`` (sha256s made
    right, so only the picture itself is wrong), written out and the game's cards removed."""
    pack = with_embedded_pictures(build_pack("symbols", "de"))
    for symbol in pack["body"]["symbols"]:
        if symbol["key"] == "handy":
            symbol["picture"]["data"] = base64.b64encode(data).decode()
            symbol["picture"]["sha256"] = sha256(data)
            symbol["picture"]["url"] = f"/api/pictures/{sha256(data)}.png"
    pack["sha256"] = sha256(canonical(pack["body"]))
    path = tmp_path / "symbols.json"
    path.write_bytes(canonical(pack))
    Translation.objects.all().delete()
    SymbolTile.objects.all().delete()
    ConceptCard.objects.all().delete()
    return path


@pytest.mark.parametrize("kind", BROKEN)
def test_a_pack_with_a_broken_picture_is_refused_whole(mini_catalogue, tmp_path, run_command, kind):
    path = pack_with_picture(tmp_path, BROKEN[kind]())
    status, _out, err = run_command("import_pack", str(path))
    assert status == 1
    assert "handy" in err and ("broken" in err or "opened" in err), err
    assert not SymbolTile.objects.exists()
    assert not ConceptCard.objects.exists()


def test_a_pack_with_a_valid_picture_restores_it(mini_catalogue, tmp_path, run_command):
    data = noise_png(43, 128)
    status, _out, err = run_command("import_pack", str(pack_with_picture(tmp_path, data)))
    assert status == 0, err
    assert tile_bytes("handy") == data


# --- defence in depth: a broken stored picture stops printing with the tile's name ------------


def store_broken_picture(tile: SymbolTile, data: bytes) -> None:
    """As if a broken picture had got in before uploads were decoded in full."""
    name = tile.image.storage.save("broken.png", ContentFile(data))
    SymbolTile.objects.filter(pk=tile.pk).update(image=name, image_sha256=sha256(data))


@pytest.mark.parametrize("kind", BROKEN)
def test_printing_refuses_a_broken_stored_picture_by_name(mini_catalogue, curator, run_command,
                                                          tmp_path, kind):
    store_broken_picture(SymbolTile.objects.get(key="handy"), BROKEN[kind]())
    printed = curator.post("/admin/exports/print/symbols/", {
        "language": "en", "release": "draft", "size": "poker", "paper": "a4",
        "sides": "duplex-long", "bleed": "3", "gap": "0", "back_offset": "0,0",
        "min_font_size": "6", "profile": "", "print": "Download PDF"})
    assert printed.status_code == 200 and printed["Content-Type"].startswith("text/html")
    page = printed.content.decode()
    assert "Symbol tile handy" in page or "handy" in page
    assert "broken" in page or "opened" in page
    status, _out, err = run_command("render_deck", "symbols", "--lang", "en", "--release", "draft",
                                    "--out", str(tmp_path / "deck.pdf"))
    assert status != 0 and "handy" in err


def test_the_storage_puts_back_the_true_bytes_of_a_changed_file(own_media, caplog):
    from cards.pictures import ContentAddressedStorage

    storage = ContentAddressedStorage()
    data = noise_png(51)
    name = storage.save(None, ContentFile(data))
    (own_media / name).write_bytes(b"changed")
    assert storage.save(None, ContentFile(data)) == name
    assert (own_media / name).read_bytes() == data
    assert any("did not match" in r.getMessage() for r in caplog.records)


# --- the data migration: stable names to content addresses ---------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_files_old_pictures_by_content_and_recovers_overwritten_ones(own_media, caplog):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from cards.pictures import content_address, render_icon

    before = [("cards", "0004_picture_fingerprint")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    Tile = apps.get_model("cards", "SymbolTile")
    History = apps.get_model("cards", "HistoricalSymbolTile")
    legacy = own_media / "symbols"
    legacy.mkdir(parents=True)

    # The state issue 10 found: koffer's drawn picture was overwritten by handy's upload of a
    # file named koffer.png; "fremd" had an uploaded picture (no icon) overwritten the same way.
    drawn, sonne = render_icon("luggage"), render_icon("sun")
    upload_, fremd_own = noise_png(61, 128), noise_png(62, 128)
    (legacy / "koffer.png").write_bytes(upload_)
    (legacy / "fremd.png").write_bytes(upload_)
    (legacy / "sonne.png").write_bytes(sonne)
    rows = [("koffer", "luggage", "symbols/koffer.png", drawn, 1),
            ("handy", "", "symbols/koffer.png", upload_, 2),
            ("fremd", "", "symbols/fremd.png", fremd_own, 3),
            ("sonne", "sun", "symbols/sonne.png", sonne, 4)]
    for key, icon, name, recorded, position in rows:
        Tile.objects.create(key=key, name=key.title(), icon=icon, image=name,
                            image_sha256=sha256(recorded), image_width=128, image_height=128,
                            position=position)
    History.objects.create(history_id=99, id=999, key="sonne", name="Sonne", icon="sun",
                           image="symbols/sonne.png", image_sha256="", position=4,
                           created_at="2026-11-30T09:00:00Z", history_date="2026-11-30T10:00:00Z",
                           history_type="~")

    # Release 1 froze koffer's sha256 with handy's bytes.
    PackPicture.objects.create(sha256=sha256(drawn), media_type="image/png", data=upload_)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())  # 0005 and whatever comes after it
    tiles = {t.key: t for t in SymbolTile.objects.all()}
    for key, _icon, _name, recorded, _position in rows:
        assert tiles[key].image_sha256 == sha256(recorded)
    assert tiles["koffer"].image.name == content_address(drawn)  # drawn again from its icon
    assert tiles["handy"].image.name == content_address(upload_)
    assert tiles["sonne"].image.name == content_address(sonne)
    for key in ("koffer", "handy", "sonne"):
        assert tile_bytes(key) == dict((r[0], r[3]) for r in rows)[key]
    # fremd's own picture is gone: it is reported, and points at no other tile's bytes.
    assert not Path(tiles["fremd"].image.path).exists()
    assert any("fremd" in r.getMessage() for r in caplog.records)
    history = SymbolTile.history.model.objects.get(history_id=99)
    assert history.image == content_address(sonne) and history.image_sha256 == sha256(sonne)
    assert not legacy.exists() or not any(legacy.iterdir())  # the old files are gone
    assert bytes(PackPicture.objects.get(sha256=sha256(drawn)).data) == drawn
