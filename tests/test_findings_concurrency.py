"""Two writers at once leave the stored check findings true (cards/findings.py).

Each writer commits its change with a mark; the refresh after each commit reads committed
data under one lock. A refresh inside each writer's own transaction would store what that
writer alone saw: here each of the two would be wrong.
Needs row-level concurrency (PostgreSQL): SQLite's IMMEDIATE transactions queue the writers.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections, transaction

from cards.models import CheckDismissal, ConceptCard, StaleFindings
from cards.translation import save_translation
from tests.test_stored_findings import assert_up_to_date, checks_on

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="writers run side by side on PostgreSQL only")


@pytest.mark.django_db(transaction=True)
def test_a_translation_and_a_dismissal_saved_at_once_leave_true_findings(mini_catalogue):
    assert_up_to_date()
    goethe = ConceptCard.objects.get(key="goethe")
    assert checks_on(goethe) == {"unchanged"}
    wrote, dismissed = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def translator() -> None:
        try:
            with transaction.atomic():
                save_translation(goethe, "text", "en", "Goethe…")
                wrote.set()
                assert dismissed.wait(30)  # the curator commits first, while this is open
        except BaseException as exc:  # reported by the test below
            errors.append(exc)
            wrote.set()
        finally:
            connections.close_all()

    def curator() -> None:
        try:
            assert wrote.wait(30)
            with transaction.atomic():
                # A dismissal of the placeholder finding on the text being saved.
                CheckDismissal.objects.create(
                    content_object=goethe, field="text", language="en", check_name="placeholder",
                    reason="The poet's name trails off on purpose.", text="Goethe…",
                    source=goethe.text)
        except BaseException as exc:
            errors.append(exc)
        finally:
            dismissed.set()
            connections.close_all()

    threads = [threading.Thread(target=translator), threading.Thread(target=curator)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    # Both refreshes ran after their commits: nothing is waiting, and what is stored is true.
    assert not StaleFindings.objects.exists()
    assert "placeholder" not in checks_on(goethe) and "unchanged" not in checks_on(goethe)
    assert_up_to_date()


@pytest.mark.django_db(transaction=True)
def test_refreshes_at_once_queue_on_one_lock(mini_catalogue):
    from cards.findings import refresh_findings

    goethe = ConceptCard.objects.get(key="goethe")
    inside, go_on = threading.Event(), threading.Event()
    order: list[str] = []

    def first() -> None:
        try:
            with transaction.atomic():
                save_translation(goethe, "text", "en", "Goethe…")
                refresh_findings()  # holds the lock until this transaction ends
                inside.set()
                go_on.wait(30)
                order.append("first done")
        finally:
            connections.close_all()

    def second() -> None:
        try:
            inside.wait(30)
            timer = threading.Timer(0.5, go_on.set)
            timer.start()
            other = ConceptCard.objects.exclude(pk=goethe.pk).first()
            save_translation(other, "text", "en", "Something else…")  # its refresh waits
            order.append("second done")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert order == ["first done", "second done"]
    assert "placeholder" in checks_on(goethe)
    assert_up_to_date()
