"""The English glossary's first entries: the games' own words, as the English rulebooks and
the approved English cards already translate them (see cards/checks.py, the glossary check)."""

from django.db import migrations

# (game, German term, required English translation, note)
ENGLISH = [
    ("slogan", "Spießer Alfons", "Spießer Alfons",
     "The action cards' name stays German, as in the English rulebook."),
    ("slogan", "Chef", "boss", "As on the approved Alfons cards."),
    ("slogan", "Feld", "space", "A space of the spiral track (“Move forward 2 spaces”)."),
    ("slogan", "Startfeld", "start space", "“Go back to the start space.”"),
    ("slogan", "Karrierestufe", "career level", "The six levels of the track (rulebook: career levels)."),
    ("slogan", "Karriere-Knick", "career setback", "Rulebook: a drop to a lower level."),
    ("slogan", "Chip", "chip", "The game's money."),
    ("slogan", "Bank", "bank", "The prize bank the chips come from (“Take 3 chips from the bank”)."),
    ("slogan", "Prämienkasse", "prize bank", "Rulebook: the chips next to the board."),
    ("slogan", "Mitspieler", "player", "“Pay each of the other players 2 chips.”"),
    ("slogan", "Schreibtisch", "desk", "The players' writing desks on the board."),
    ("sauschwer", "Schweinebacke", "pig-cheek", "The players' markers (rulebook: pig-cheek marker)."),
    ("sauschwer", "Helmut", "Helmut", "The heavyweight pig keeps his name."),
]


def add_terms(apps, schema_editor):
    GlossaryTerm = apps.get_model("cards", "GlossaryTerm")
    for game, term, translation, note in ENGLISH:
        GlossaryTerm.objects.get_or_create(
            language="en", term=term, game=game,
            defaults={"translation": translation, "note": note},
        )


def remove_terms(apps, schema_editor):
    GlossaryTerm = apps.get_model("cards", "GlossaryTerm")
    for game, term, _translation, _note in ENGLISH:
        GlossaryTerm.objects.filter(language="en", term=term, game=game).delete()


class Migration(migrations.Migration):
    dependencies = [("cards", "0008_glossary_and_dismissals")]

    operations = [migrations.RunPython(add_terms, remove_terms)]
