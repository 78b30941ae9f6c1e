"""The two roles of the admin: Curators edit all content, Translators only translations."""

from django.db import migrations

CONTENT = [
    "conceptcard", "symboltile", "signsymbol", "signcolour", "signcard",
    "slogancard", "slogan", "sloganoption", "alfonscard", "sauschwerobject",
]


def create_groups(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    # Permissions are normally created after all migrations ran; create them now so the
    # groups can be given them on a fresh database.
    for app_label in ("cards",):
        app_config = apps.get_app_config(app_label)
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None

    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    cards = Permission.objects.filter(content_type__app_label="cards")

    curators, _ = Group.objects.get_or_create(name="Curators")
    curators.permissions.set(cards)

    translators, _ = Group.objects.get_or_create(name="Translators")
    translators.permissions.set(
        list(cards.filter(codename__in=[f"view_{m}" for m in CONTENT]))
        + list(cards.filter(codename__in=["view_translation", "change_translation", "add_translation"]))
    )


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["Curators", "Translators"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("cards", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
