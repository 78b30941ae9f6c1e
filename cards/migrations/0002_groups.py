"""The two roles of the admin: Curators edit all content, Translators only translations."""

from django.db import migrations


def create_groups(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    from cards.roles import ensure_groups

    # Permissions are normally created after all migrations ran; create them now so the
    # groups can be given them on a fresh database.
    app_config = apps.get_app_config("cards")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    ensure_groups(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["Curators", "Translators", "Viewers"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("cards", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
