"""The matrix's world, built once for the package and rolled back at its end."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Model
from django.test import Client

from cards.catalogue import import_catalogue
from cards.findings import refresh_findings
from cards.models import CheckDismissal, SauschwerObject, Translation
from exports.models import Release, RenderJob, WebhookDelivery, WebhookEndpoint
from exports.packs import publish
from games.rooms import open_room
from tests.permission_matrix.rows import MINI, PASSWORD
from tests.permission_matrix.world import World, _registered


@pytest.fixture(scope="package")
def world(django_db_setup, django_db_blocker):
    """The mini catalogue, one user per role and a changed version of every object the
    matrix touches — built once for the package and rolled back at its end (each test runs
    in a savepoint inside it, each case in another)."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            assert not import_catalogue(MINI).errors
            users: dict[str, User | None] = {"anonymous": None}
            users["superuser"] = User.objects.create_superuser("sue", "", PASSWORD)
            for role, name in (("Curators", "carla"), ("Translators", "tina"),
                               ("Viewers", "vera"), ("staff without group", "sam")):
                user = User.objects.create_user(name, "", PASSWORD, is_staff=True)
                if role in ("Curators", "Translators", "Viewers"):
                    user.groups.add(Group.objects.get(name=role))
                users[role] = user
            users["non-staff"] = User.objects.create_user("nora", "", PASSWORD)
            User.objects.create_user("vicky", "", PASSWORD)  # the user the user admin edits
            Group.objects.create(name="Spare")  # the group the group admin edits
            # A release of the sauschwer pack, then a change: publishing writes release 2.
            publish("sauschwer", "en")
            open_room(game="sauschwer", language="en", name="Hosting Hanna")  # a play room
            # A webhook endpoint and one delivery to it (the one "send again" sends).
            hook = WebhookEndpoint.objects.create(name="Partner app", url="https://hooks.example.org/k",
                                                  secret="whsec_" + "A" * 44)
            WebhookDelivery.objects.create(endpoint=hook, url=hook.url, release=Release.objects.get(),
                                           message_id="msg_1", scheduled_for=hook.created_at)
            egg = SauschwerObject.objects.get(key="ein-huehnerei")
            egg.source = egg.source + " (checked)"
            egg.save()
            # A translation that PO upload may overwrite (approved ones it never does).
            row = Translation.objects.get(object_id=egg.pk, language="en", field="name",
                                          content_type=ContentType.objects.get_for_model(egg))
            row.state = "translated"
            row.save()
            # A translation check's finding to dismiss (the German name kept unchanged), and
            # a dismissal made earlier (on another check) for the dismissals' admin pages.
            plain = SauschwerObject.objects.exclude(pk=egg.pk).order_by("key").last()
            same = Translation.objects.get(object_id=plain.pk, language="en", field="name",
                                           content_type=ContentType.objects.get_for_model(plain))
            same.text = plain.name
            same.save()
            CheckDismissal.objects.create(content_object=plain, field="name", language="en",
                                          check_name="length", reason="A long name is right here.",
                                          text=same.text, source=plain.name)
            target: dict[type[Model], Model] = {}
            versions: dict[type[Model], int] = {}
            for model in _registered():
                obj = model._default_manager.order_by("-pk").first()
                assert obj is not None, f"the mini catalogue has no {model.__name__}"
                target[model] = obj
                history = getattr(model, "history", None)
                if history is not None:
                    # A second version, so that reverting to the first one writes.
                    name = "key" if hasattr(obj, "key") else "text"
                    setattr(obj, name, getattr(obj, name) + ("-v2" if name == "key" else " v2"))
                    obj.save()
                    versions[model] = obj.history.earliest("history_date").history_id
            world = World(users, target, versions, f"{egg.key}:name")
            world.dismiss_unit = f"sauschwerobject-{plain.pk}-name"
            world.job = RenderJob.objects.create(game="sauschwer", language="en", release="draft",
                                                 options={}, kind="pdf").pk
            # The stored check findings follow the changes above once they are committed (never,
            # in this rolled-back world): bring them up to date, so reading a page that shows
            # them writes nothing.
            refresh_findings()
            for role, user in users.items():
                # One login per role for the module: each case rolls back what it did to
                # the session (a logout, a password change), so the cookies stay valid.
                client = Client()
                if user is not None:
                    client.force_login(user)
                world.sessions[role] = {name: morsel.value
                                        for name, morsel in client.cookies.items()}
            yield world
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
