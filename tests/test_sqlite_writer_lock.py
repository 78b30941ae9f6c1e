"""The SQLite backend's writer lock (kartothek/sqlite/base.py): the write transactions of one
process queue on it, and no way out of a transaction leaves it held."""

import os
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


# --- the lock every process of the database shares (an flock on NAME-writers) ----------------


def _file_lock_path() -> str:
    from kartothek.sqlite.base import _lock_file

    return _lock_file(str(connection.settings_dict["NAME"]))


def _file_lock_is_free() -> bool:
    """One try, no waiting (and so no waiting thread left behind to take it afterwards)."""
    import fcntl

    fd = os.open(_file_lock_path(), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_a_transaction_holds_the_processes_lock_until_it_ends():
    with transaction.atomic():
        RateHit.objects.create(key="f1", minute=1, count=1)
        assert connection._writers_fd is not None and not _file_lock_is_free()
    assert connection._writers_fd is None and _file_lock_is_free()
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        RateHit.objects.create(key="f2", minute=1, count=1)
        1 / 0  # noqa: B018
    assert _file_lock_is_free()


def test_a_writer_waits_for_another_processes_writer_and_then_writes():
    """Another process's writer is simulated by an flock on its own descriptor (a lock of its
    own, as another process's would be)."""
    from kartothek.sqlite.base import _take_file_lock

    other = _take_file_lock(_file_lock_path(), 1)
    assert other is not None
    done = threading.Event()
    failures: list[BaseException] = []

    def write() -> None:
        try:
            with transaction.atomic():
                RateHit.objects.create(key="f3", minute=1, count=1)
        except BaseException as error:
            failures.append(error)
        finally:
            connections.close_all()
            done.set()

    writer = threading.Thread(target=write)
    writer.start()
    assert not done.wait(0.5)  # it waits for the other process's writer, without an error
    os.close(other)
    assert done.wait(10) and not failures
    writer.join(5)
    assert RateHit.objects.filter(key="f3").exists()
    assert _file_lock_is_free()


def test_a_wait_that_times_out_gives_up_and_its_lock_is_let_go_once_handed_over():
    from kartothek.sqlite.base import _take_file_lock

    path = _file_lock_path()
    holder = _take_file_lock(path, 1)
    assert holder is not None
    assert _take_file_lock(path, 0.2) is None  # gave up after its timeout
    os.close(holder)
    # the abandoned wait got the lock when the holder let go, and let go of it at once
    again = _take_file_lock(path, 5)
    assert again is not None
    os.close(again)


def test_a_process_that_dies_holding_the_lock_frees_it():
    import subprocess
    import sys

    from kartothek.sqlite.base import _take_file_lock

    path = _file_lock_path()
    script = ("import fcntl, os, signal, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
              "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); "
              "sys.stdin.readline(); os.kill(os.getpid(), signal.SIGKILL)")
    child = subprocess.Popen([sys.executable, "-c", script, path], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdin is not None
    assert child.stdout.readline().strip() == "held"
    assert _take_file_lock(path, 0.1) is None  # the other process holds it
    child.stdin.write("\n")
    child.stdin.flush()
    child.wait(10)
    fd = _take_file_lock(path, 5)
    assert fd is not None
    os.close(fd)
