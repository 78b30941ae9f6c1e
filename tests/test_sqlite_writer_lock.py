"""The SQLite backend's writer lock (kartothek/sqlite/base.py): the write transactions of one
process queue on it, and no way out of a transaction leaves it held."""

import threading

import pytest
from django.db import connection, connections, transaction

from games.models import RateHit

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif("connection.vendor != 'sqlite'", reason="SQLite's backend only"),
]


def _lock() -> threading.Lock:
    return connection._writer()


def test_the_lock_is_held_for_the_transaction_and_released_by_the_commit():
    assert not _lock().locked()
    with transaction.atomic():
        RateHit.objects.create(key="a", minute=1, count=1)
        assert _lock().locked()
    assert not _lock().locked()
    assert RateHit.objects.filter(key="a").exists()


def test_a_rolled_back_transaction_releases_the_lock():
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        RateHit.objects.create(key="b", minute=1, count=1)
        1 / 0  # noqa: B018
    assert not _lock().locked()
    assert not RateHit.objects.filter(key="b").exists()


def test_a_connection_closed_inside_a_transaction_releases_the_lock():
    transaction.set_autocommit(False)
    try:
        connection._start_transaction_under_autocommit()
        assert _lock().locked()
        connection.close()
        assert not _lock().locked()
    finally:
        connection.connect()


def test_a_second_thread_writes_after_the_first_commits_and_sees_its_row():
    first_in = threading.Event()
    release = threading.Event()
    seen: list[int] = []

    def first() -> None:
        with transaction.atomic():
            RateHit.objects.create(key="c", minute=1, count=1)
            first_in.set()
            release.wait(10)
        connections.close_all()

    def second() -> None:
        first_in.wait(10)
        with transaction.atomic():
            hit = RateHit.objects.get(key="c")
            hit.count += 1
            hit.save()
            seen.append(hit.count)
        connections.close_all()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    first_in.wait(10)
    assert _lock().locked()  # held by the first thread; the second queues on it
    release.set()
    for thread in threads:
        thread.join(20)
    assert seen == [2]
    assert not _lock().locked()
