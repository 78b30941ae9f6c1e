"""A cap on the event streams one client holds open at once (games/stream_slots.py,
``KARTOTHEK_PLAY_STREAMS_PER_CLIENT``), against real ASGI servers (uvicorn on loopback): the
13th stream of one address is a 429 with Retry-After while another address still gets its
stream, on one server or spread over two; a stream that ends frees its slot; a slot whose
server died (no longer refreshed) expires, and an open stream's slot does not."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import timedelta

import httpx
import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from games import stream_slots
from games.models import Room, StreamSlot
from tests.play.core_helpers import all_releases, table
from tests.play.sse_helpers import Server
from tests.play.test_events import bearer, events_url

pytestmark = pytest.mark.django_db(transaction=True)

CAP = 12
HERE = "streams:127.0.0.1"  # the slots' key of a client connecting from 127.0.0.1
OTHER = "127.0.0.2"  # another client: another loopback address


@pytest.fixture(name="servers")
def two_servers(transactional_db) -> Iterator[tuple[Server, Server]]:  # type: ignore[no-untyped-def]
    all_releases()
    with override_settings(ALLOWED_HOSTS=["127.0.0.1", "testserver"],
                           KARTOTHEK_PLAY_STREAMS_PER_CLIENT=CAP), Server() as one, Server() as two:
        yield one, two


@pytest.fixture(name="server")
def one_server(servers: tuple[Server, Server]) -> Server:
    return servers[0]


class Held:
    """One event stream read on the test's own thread (so closing it closes its connection at
    once, as a browser's EventSource.close() does); ``source``: the loopback address it
    connects from (another client: another address)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, *,
                 source: str | None = None) -> None:
        transport = httpx.HTTPTransport(local_address=source) if source else None
        self.client = httpx.Client(timeout=httpx.Timeout(10), transport=transport)
        self.response = self.client.send(self.client.build_request("GET", url, headers=headers),
                                          stream=True)
        self.status = self.response.status_code
        self.headers = self.response.headers
        self.lines = self.response.iter_lines()

    def next_kind(self) -> str:
        """The ``event:`` of the next message (comments, the heartbeats, skipped)."""
        kind = None
        for line in self.lines:
            if line.startswith("event:"):
                kind = line.partition(":")[2].strip()
            elif line == "" and kind:
                return kind
        raise AssertionError("the stream ended")

    def close(self) -> None:
        self.response.close()
        self.client.close()


def opened(streams: ExitStack, url: str, headers: dict[str, str] | None = None, *,
           source: str | None = None) -> Held:
    """A stream closed with ``streams``; a 200 has sent its first event (so it is running)."""
    made = Held(url, headers, source=source)
    streams.callback(made.close)
    if made.status == 200:
        assert made.next_kind() == "room"
    return made


def table_url(server: Server, code: str) -> str:
    return events_url(server, code) + "?as=table"


def slots(key: str = HERE) -> int:
    return StreamSlot.objects.filter(key=key).count()


def until(check, seconds: float = 10) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.05)


def refused(made: Held) -> None:
    assert made.status == 429, made.status
    assert made.headers["content-type"] == "application/json"
    assert int(made.headers["retry-after"]) > 0
    answer = json.loads(made.response.read())
    made.response.close()
    assert answer["status"] == 429 and answer["retry_after"] == int(made.headers["retry-after"])
    assert "Too many live updates" in answer["error"] and str(CAP) in answer["error"]


def test_the_13th_stream_of_one_client_is_a_429_while_another_client_gets_its_stream(servers):
    one, two = servers
    host, guest = table("sauschwer", 2)
    with ExitStack() as streams:
        for number in range(CAP):  # spread over two servers: the count is the database's
            server = one if number % 2 else two
            headers = bearer(guest) if number % 3 == 0 else None
            url = events_url(server, host.code) if headers else table_url(server, host.code)
            assert opened(streams, url, headers).status == 200
        assert slots() == CAP
        refused(opened(streams, table_url(one, host.code)))
        refused(opened(streams, events_url(two, host.code), bearer(host)))
        assert slots() == CAP  # a refused stream holds nothing
        elsewhere = opened(streams, events_url(one, host.code), bearer(host), source=OTHER)
        assert elsewhere.status == 200
        assert slots(f"streams:{OTHER}") == 1


def test_a_refused_stream_spends_no_ticket_and_a_head_holds_no_slot(server):
    host, guest = table("sauschwer", 2)
    made = guest.post("/stream-tickets").json()
    with ExitStack() as streams:
        held = [opened(streams, table_url(server, host.code)) for _ in range(CAP)]
        refused(opened(streams, server.url + made["events_url"]))
        assert httpx.head(table_url(server, host.code), timeout=10).status_code == 200
        held[0].close()
        until(lambda: slots() == CAP - 1)
        with_ticket = opened(streams, server.url + made["events_url"])
        assert with_ticket.status == 200  # the ticket still opens its stream once


def test_closing_a_stream_frees_its_slot_and_a_closed_room_frees_all(server):
    host, _guest = table("sauschwer", 2)
    with ExitStack() as streams:
        held = [opened(streams, table_url(server, host.code)) for _ in range(CAP)]
        refused(opened(streams, table_url(server, host.code)))
        held[3].close()
        until(lambda: slots() == CAP - 1)
        again = opened(streams, table_url(server, host.code))
        assert again.status == 200
        assert slots() == CAP
        Room.objects.filter(code=host.code).delete()  # every stream ends with event: closed
        for made in [*held[:3], *held[4:], again]:
            assert made.next_kind() == "closed"
        until(lambda: slots() == 0)


def test_a_stale_slot_of_a_dead_server_expires(server):
    host, _guest = table("sauschwer", 2)
    now = timezone.now()
    # a server that died holding this client's every slot: nobody refreshes them any more
    StreamSlot.objects.bulk_create(StreamSlot(key=HERE, number=n, opened_at=now, beat_at=now)
                                   for n in range(CAP))
    StreamSlot.objects.create(key="streams:192.0.2.9", number=0, opened_at=now, beat_at=now)
    with ExitStack() as streams:
        refused(opened(streams, table_url(server, host.code)))  # fresh: they still count
        stale = now - timedelta(seconds=stream_slots.STALE_SECONDS + 1)
        StreamSlot.objects.update(beat_at=stale)
        assert opened(streams, table_url(server, host.code)).status == 200
        assert slots() == 1  # the stale ones went, the new stream's is there
        call_command("expire_rooms", stdout=open("/dev/null", "w"))  # noqa: SIM115
        assert not StreamSlot.objects.filter(key="streams:192.0.2.9").exists()
        assert slots() == 1  # a live stream's slot stays


def test_an_open_streams_slot_is_refreshed_and_never_goes_stale(server, monkeypatch):
    monkeypatch.setattr(stream_slots, "REFRESH_SECONDS", 0.1)
    monkeypatch.setattr(stream_slots, "STALE_SECONDS", 0.6)
    host, _guest = table("sauschwer", 2)
    with override_settings(KARTOTHEK_PLAY_STREAMS_PER_CLIENT=1), ExitStack() as streams:
        assert opened(streams, table_url(server, host.code)).status == 200
        first = StreamSlot.objects.get(key=HERE).beat_at
        time.sleep(1.5)  # more than twice the stale time
        assert StreamSlot.objects.get(key=HERE).beat_at > first
        refused_at_one = opened(streams, table_url(server, host.code))
        assert refused_at_one.status == 429


@override_settings(KARTOTHEK_PLAY_STREAMS_PER_CLIENT=CAP)
def test_servers_racing_for_a_clients_last_slots_give_out_no_more_than_the_cap(transactional_db):
    results: list[int | None] = []
    lock = threading.Barrier(3 * CAP)
    StreamSlot.objects.bulk_create(StreamSlot(key=HERE, number=n, opened_at=timezone.now(),
                                              beat_at=timezone.now()) for n in range(CAP // 2))

    def claim() -> None:
        from django.db import connection

        lock.wait()
        try:
            results.append(stream_slots.claim(HERE))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim) for _ in range(3 * CAP)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len([slot for slot in results if slot]) == CAP - CAP // 2
    assert slots() == CAP
