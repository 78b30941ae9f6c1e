"""Tile pictures move from stable names (symbols/<key>.png, overwritten by the next upload of
the same file name) to content-addressed names (pictures/ab/<sha256>.png).

Every tile and every history row is filed under the sha256 of the picture recorded for it.
Where the old file no longer holds that picture (another tile's upload overwrote it), the
picture is recovered by drawing the tile's Tabler icon again when that gives the recorded
bytes; otherwise the row points at the content address of its recorded sha256, which does
not exist, so ``validate_content``, publishing and printing name the tile as having a missing
picture instead of passing another tile's picture off as its own. Released copies of pictures
(exports.PackPicture) that froze the wrong bytes get the true ones back where they were
recovered. Old files no row uses any more are removed.
"""

import contextlib
import logging

from django.db import migrations, models

import cards.pictures

logger = logging.getLogger("kartothek.pictures")


def _legacy_bytes(storage, name):
    try:
        with storage.open(name, "rb") as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def _icon_bytes(icon):
    if not icon:
        return None
    try:
        return cards.pictures.render_icon(icon)
    except Exception:  # an icon that no longer exists, or no renderer: nothing to recover
        return None


def file_pictures_by_content(apps, schema_editor):
    from django.core.files.storage import storages

    pictures = cards.pictures
    legacy = storages["default"]
    target = pictures.picture_storage()
    stored: dict[str, str] = {}  # sha256 -> stored name
    legacy_names: set[str] = set()
    lost: list[str] = []
    for model_name in ("SymbolTile", "HistoricalSymbolTile"):
        model = apps.get_model("cards", model_name)
        pk_name = model._meta.pk.name
        rows = model.objects.exclude(image="").values_list(pk_name, "key", "image", "image_sha256",
                                                            "icon")
        for pk, key, name, recorded, icon in rows.iterator():
            if pictures.sha256_in_name(name):
                continue
            legacy_names.add(name)
            data = None
            if recorded and recorded in stored:
                new_name = stored[recorded]
            else:
                candidates = (_legacy_bytes(legacy, name), _icon_bytes(icon))
                data = next((c for c in candidates if c is not None
                             and (not recorded or pictures.sha256_of(c) == recorded)), None)
                if data is not None:
                    new_name = pictures.store_picture(data, target)
                    stored[pictures.sha256_of(data)] = new_name
                elif recorded:
                    ext = name.rsplit(".", 1)[-1].lower()
                    ext = ext if ext in ("png", "jpg", "webp", "gif") else "bin"
                    new_name = f"{pictures.PICTURE_DIR}/{recorded[:2]}/{recorded}.{ext}"
                    if model_name == "SymbolTile":
                        lost.append(key)
                else:
                    continue  # no record and no file: nothing to move
            update = {"image": new_name}
            if data is not None and not recorded:
                update["image_sha256"] = pictures.sha256_of(data)
            model.objects.filter(pk=pk).update(**update)
    for key in lost:
        logger.warning("symbol tile '%s': its picture file held another picture than the one "
                       "recorded for it, and the recorded one is lost; upload its picture again.",
                       key)
    _repair_release_pictures(apps, stored, target)
    still_used = set()
    for model_name in ("SymbolTile", "HistoricalSymbolTile"):
        model = apps.get_model("cards", model_name)
        still_used.update(model.objects.filter(image__in=legacy_names)
                          .values_list("image", flat=True))
    for name in legacy_names - still_used:
        with contextlib.suppress(OSError):
            legacy.delete(name)


def _repair_release_pictures(apps, stored, target):
    """Releases froze a picture's bytes under its sha256; where another tile's upload had
    replaced the file first, those bytes are wrong. Put the true ones back where known."""
    pictures = cards.pictures
    PackPicture = apps.get_model("exports", "PackPicture")
    for digest, data in PackPicture.objects.values_list("sha256", "data").iterator():
        if pictures.sha256_of(bytes(data)) == digest:
            continue
        true = None
        if digest in stored:
            with target.open(stored[digest], "rb") as handle:
                true = handle.read()
        if true is not None and pictures.sha256_of(true) == digest:
            PackPicture.objects.filter(sha256=digest).update(data=true)
        else:
            logger.warning("The released picture %s does not match its sha256 and its true bytes "
                           "are lost; the API refuses to serve it.", digest)


class Migration(migrations.Migration):

    dependencies = [
        ('cards', '0004_picture_fingerprint'),
        ('exports', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='symboltile',
            name='image',
            field=models.ImageField(blank=True, storage=cards.pictures.picture_storage, upload_to='pictures/', validators=[cards.pictures.validate_picture]),
        ),
        migrations.RunPython(file_pictures_by_content, migrations.RunPython.noop),
    ]
