"""Content packs: schema, deterministic builds, strict mode, releases, import round trip."""

import copy
import json

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from cards.models import (
    CONTENT_MODELS,
    ConceptCard,
    SauschwerObject,
    SloganOption,
    SymbolTile,
    Translation,
)
from exports.errors import PackError
from exports.models import PackPicture, Release, ReleaseIsImmutable
from exports.packs import (
    build_pack,
    canonical,
    load_pack,
    publish,
    read_pack_file,
    validate,
    with_embedded_pictures,
)
from exports.restore import import_pack

pytestmark = pytest.mark.django_db

GAMES = ["symbols", "sign", "slogan", "sauschwer"]
LANGUAGES = ["de", "en"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_pack_validates_against_the_schema(mini_catalogue, game, language):
    pack = build_pack(game, language)
    validate(pack)
    validate(with_embedded_pictures(pack))
    assert pack["content_version"] == "draft"


@pytest.mark.parametrize("game", GAMES)
def test_two_builds_of_the_same_content_are_byte_identical(mini_catalogue, game):
    assert canonical(build_pack(game, "en")) == canonical(build_pack(game, "en"))


def test_a_pack_holds_what_a_client_needs_to_play_and_print(mini_catalogue):
    slogan = build_pack("slogan", "en")["body"]
    first = slogan["cards"][0]["slogans"][0]
    assert [o["correct"] for o in first["options"]].count(True) == 1
    assert {a["effect"]["kind"] for a in slogan["alfons"]} >= {"move", "swap", "to_level"}
    swap = next(a for a in slogan["alfons"] if a["effect"]["kind"] == "swap")
    assert swap["effect"] == {"kind": "swap", "target": "leader"}
    objects = build_pack("sauschwer", "en")["body"]["cards"]
    egg = next(o for o in objects if o["key"] == "ein-huehnerei")
    assert egg == {"key": "ein-huehnerei", "name": "A hen's egg", "status": "approved",
                   "source_text": "Ein Hühnerei", "weight_g": 60,
                   "weight_source": "Handelsklasse M: 53–63 g"}
    sign = build_pack("sign", "de")["body"]
    assert sign["cards"][0] == {"key": "anker-rot", "symbol": "anker", "colour": "rot"}
    assert sign["colours"][0]["status"] == "source" and "source_text" not in sign["colours"][0]
    tile = build_pack("symbols", "en")["body"]["symbols"][0]
    assert tile["picture"]["url"] == f"/api/pictures/{tile['picture']['sha256']}.png"
    assert tile["picture"]["licence"] == "MIT"


def test_a_missing_translation_falls_back_to_german_and_says_so(mini_catalogue):
    Translation.objects.filter(text="Love").delete()
    concepts = build_pack("symbols", "en")["body"]["concepts"]
    liebe = next(c for c in concepts if c["key"] == "liebe")
    assert liebe == {"key": "liebe", "text": "Liebe", "status": "fallback", "source_text": "Liebe"}


def test_strict_refuses_a_pack_with_a_missing_translation(mini_catalogue):
    Translation.objects.filter(text="Love").delete()
    with pytest.raises(PackError, match="1 texts have no 'en' translation: concept liebe"):
        build_pack("symbols", "en", strict=True)
    build_pack("symbols", "de", strict=True)  # the source language never misses anything


def test_a_card_with_a_german_only_slogan_is_left_out_of_the_english_pack(mini_catalogue):
    english = build_pack("slogan", "en")["body"]["cards"]
    assert [c["key"] for c in english] == ["karte-002"]
    assert [s["markets"] for s in english[0]["slogans"]] == [["de", "en"], ["de", "en"]]
    german = build_pack("slogan", "de")["body"]["cards"]
    assert [c["key"] for c in german] == ["karte-001", "karte-002"]


def test_a_translation_that_needs_editing_is_marked_so(mini_catalogue):
    oma = ConceptCard.objects.get(key="oma")
    oma.text = "Großmutter"
    oma.save()
    concepts = build_pack("symbols", "en")["body"]["concepts"]
    assert next(c for c in concepts if c["key"] == "oma")["status"] == "needs_editing"


def test_a_build_runs_the_same_number_of_queries_for_any_catalogue_size(mini_catalogue):
    def queries(game: str) -> int:
        with CaptureQueriesContext(connection) as context:
            build_pack(game, "en")
        return len(context.captured_queries)

    before = {game: queries(game) for game in GAMES}
    for i in range(40):
        obj = SauschwerObject.objects.create(key=f"ding-{i}", name=f"Ding {i}", weight_g=i + 1,
                                             source="x")
        Translation.objects.create(content_object=obj, field="name", language="en",
                                   text=f"Thing {i}", state="approved")
        ConceptCard.objects.create(key=f"begriff-{i}", text=f"Begriff {i}")
    assert {game: queries(game) for game in GAMES} == before


def test_a_hand_broken_pack_is_rejected_with_the_schema_path(mini_catalogue):
    pack = build_pack("sauschwer", "en")
    broken = copy.deepcopy(pack)
    broken["body"]["cards"][2]["weight_g"] = -3
    with pytest.raises(PackError, match=r"at body/cards/2/weight_g: -3 is less than the minimum of 1"):
        validate(broken)
    slogan = build_pack("slogan", "de")
    broken = copy.deepcopy(slogan)
    broken["body"]["cards"][0]["slogans"][0]["options"][1]["correct"] = True
    broken["body"]["cards"][0]["slogans"][0]["options"][2]["correct"] = True
    with pytest.raises(PackError, match=r"slogan card karte-001: slogan 1 \(quadratisch-praktisch"
                                        r"-gut\): Exactly one answer option must be correct, not 2"):
        validate(broken)


def test_a_pack_whose_body_was_changed_is_rejected(mini_catalogue):
    pack = build_pack("sauschwer", "en")
    pack["body"]["cards"][0]["weight_g"] += 1
    with pytest.raises(PackError, match="sha256 does not match its body"):
        validate(pack)


# --- releases ---------------------------------------------------------------------------


def test_publishing_numbers_releases_per_game_and_language(mini_catalogue):
    first = publish("sauschwer", "en")
    assert first.created and first.release.version == 1
    assert publish("sauschwer", "de").release.version == 1
    ConceptCard.objects.create(key="neu", text="Neu")
    assert publish("symbols", "en").release.version == 1
    SauschwerObject.objects.create(key="ein-stein", name="Ein Stein", weight_g=500, source="x")
    second = publish("sauschwer", "en")
    assert second.created and second.release.version == 2
    pack = json.loads(bytes(second.release.data))
    assert pack["content_version"] == 2
    validate(pack)


def test_publishing_unchanged_content_makes_no_new_release(mini_catalogue, run_command):
    publish("sign", "en")
    again = publish("sign", "en")
    assert not again.created and again.release.version == 1
    status, out, _ = run_command("publish_pack", "sign", "--lang", "en")
    assert status == 0
    assert "No change: sign (en) release 1 already holds this content." in out
    assert Release.objects.count() == 1


def test_a_release_keeps_its_pictures(mini_catalogue):
    release = publish("symbols", "en").release
    pack = json.loads(bytes(release.data))
    shas = {s["picture"]["sha256"] for s in pack["body"]["symbols"]}
    assert set(PackPicture.objects.values_list("sha256", flat=True)) == shas


def test_a_release_cannot_be_changed_by_save(mini_catalogue):
    release = publish("sign", "en").release
    with pytest.raises(ReleaseIsImmutable):
        release.data = b"{}"
    release.size = 1
    with pytest.raises(ReleaseIsImmutable):
        release.save()


def test_a_release_cannot_be_changed_by_a_queryset_update_or_delete(mini_catalogue):
    publish("sign", "en")
    with pytest.raises(ReleaseIsImmutable):
        Release.objects.filter(game="sign").update(data=b"{}")
    with pytest.raises(ReleaseIsImmutable):
        Release.objects.all().delete()
    with pytest.raises(ReleaseIsImmutable):
        Release.objects.get().delete()


def test_the_database_refuses_to_update_a_release(mini_catalogue):
    release = publish("sign", "en").release
    table = Release._meta.db_table
    with pytest.raises(Exception, match="releases are immutable"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET size = 1 WHERE id = %s", [release.pk])
    assert Release.objects.get().size == release.size


def test_two_releases_cannot_share_a_version(mini_catalogue):
    release = publish("sign", "en").release
    with pytest.raises(IntegrityError), transaction.atomic():
        Release.objects.create(game="sign", language="en", version=1, sha256=release.sha256,
                               body_sha256=release.body_sha256, size=1, data=release.data)


# --- loading ---------------------------------------------------------------------------


def test_load_pack_reads_releases_and_drafts(mini_catalogue):
    assert load_pack("sauschwer", "en")["content_version"] == "draft"  # nothing published yet
    publish("sauschwer", "en")
    SauschwerObject.objects.create(key="ein-stein", name="Ein Stein", weight_g=500, source="x")
    assert load_pack("sauschwer", "en")["content_version"] == 1
    assert load_pack("sauschwer", "en", release="latest")["content_version"] == 1
    assert load_pack("sauschwer", "en", release=1)["content_version"] == 1
    draft = load_pack("sauschwer", "en", release="draft")
    assert "ein-stein" in {c["key"] for c in draft["body"]["cards"]}
    with pytest.raises(PackError, match="There is no release 7 of sauschwer"):
        load_pack("sauschwer", "en", release=7)
    with pytest.raises(PackError, match="There is no game 'poker'"):
        load_pack("poker", "en")


# --- import round trip -----------------------------------------------------------------


def empty_content():
    Translation.objects.all().delete()
    SloganOption.objects.all().delete()
    for model in reversed(CONTENT_MODELS):
        model.objects.all().delete()


@pytest.mark.parametrize("game", GAMES)
def test_import_pack_into_an_empty_installation_rebuilds_the_same_bytes(mini_catalogue, game,
                                                                         tmp_path, run_command):
    oma = ConceptCard.objects.get(key="oma")
    oma.text = "Großmutter"  # a translation that needs editing survives the round trip
    oma.save()
    Translation.objects.filter(text="Love").delete()  # and so does a missing one
    files = {}
    for language in LANGUAGES:
        files[language] = tmp_path / f"{game}-{language}.json"
        files[language].write_bytes(canonical(build_pack(game, language)))
    empty_content()
    status, _out, err = run_command("import_pack", str(files["de"]))
    assert status == 0, err
    assert canonical(build_pack(game, "de")) == files["de"].read_bytes()
    # the English pack adds its translations to the restored cards
    status, _out, err = run_command("import_pack", str(files["en"]))
    assert status == 0, err
    assert canonical(build_pack(game, "en")) == files["en"].read_bytes()


def test_an_english_pack_alone_restores_cards_and_translations(mini_catalogue, tmp_path):
    path = tmp_path / "sauschwer-en.json"
    path.write_bytes(canonical(build_pack("sauschwer", "en")))
    empty_content()
    created, translated = import_pack(read_pack_file(path))
    assert (created, translated) == (6, 6)
    assert canonical(build_pack("sauschwer", "en")) == path.read_bytes()


def test_import_pack_checks_the_schema_first_and_changes_nothing(mini_catalogue, tmp_path,
                                                                 run_command):
    pack = build_pack("sauschwer", "de")
    pack["body"]["cards"][0]["weight_g"] = "schwer"
    path = tmp_path / "broken.json"
    path.write_bytes(canonical(pack))
    before = SauschwerObject.objects.count()
    status, _, err = run_command("import_pack", str(path))
    assert status == 1
    assert "does not match the schema at body/cards/0/weight_g" in err
    assert SauschwerObject.objects.count() == before


def test_import_pack_refuses_an_installation_that_has_the_cards(mini_catalogue, tmp_path,
                                                                run_command):
    path = tmp_path / "sign.json"
    path.write_bytes(canonical(build_pack("sign", "de")))
    status, _, err = run_command("import_pack", str(path))
    assert status == 1
    assert "already has sign cards" in err


def test_build_pack_command_writes_the_file(mini_catalogue, tmp_path, run_command):
    out = tmp_path / "pack.json"
    status, _, err = run_command("build_pack", "symbols", "--lang", "en", "--out", str(out))
    assert status == 0
    pack = read_pack_file(out)
    assert pack["game"] == "symbols" and "Wrote" in err
    status, _, err = run_command("build_pack", "symbols", "--lang", "en", "--out", str(out),
                                 "--embed-pictures")
    pictures = [s["picture"] for s in read_pack_file(out)["body"]["symbols"]]
    assert all(len(p["data"]) > 100 for p in pictures)


def test_build_pack_strict_exits_1_naming_what_is_missing(mini_catalogue, tmp_path, run_command):
    Translation.objects.filter(text="A hen's egg").delete()
    status, _, err = run_command("build_pack", "sauschwer", "--lang", "en", "--out",
                                 str(tmp_path / "x.json"), "--strict")
    assert status == 1
    assert "object ein-huehnerei" in err
    assert not (tmp_path / "x.json").exists()


def test_symbol_pictures_survive_a_restore(mini_catalogue, tmp_path):
    path = tmp_path / "symbols.json"
    path.write_bytes(canonical(with_embedded_pictures(build_pack("symbols", "de"))))
    before = {t.key: t.image_sha256 for t in SymbolTile.objects.all()}
    empty_content()
    import_pack(read_pack_file(path))
    assert {t.key: t.image_sha256 for t in SymbolTile.objects.all()} == before
