"""SIGTERM: open event streams end at once with a hint to reconnect, and the server stops within seconds."""

import threading
import time
import urllib.request

import pytest

from tests.apps import free_port
from tests.databases import migrated_database
from tests.processes import call, start_gunicorn
from tests.waiting import until

pytestmark = pytest.mark.drill


def test_sigterm_ends_every_open_event_stream_promptly_and_the_server_stops(embedded_server_url):
    url = migrated_database(embedded_server_url)
    port = free_port()
    server = start_gunicorn(url, port, GUNICORN_GRACEFUL_TIMEOUT="20")
    base = f"http://127.0.0.1:{port}"
    game = call("POST", f"{base}/games", {"deal_number": 0})[1]
    streams = [urllib.request.urlopen(f"{base}/games/{game['id']}/events/stream", timeout=60) for _ in range(4)]
    received = [b""] * len(streams)
    ended = [None] * len(streams)

    def read(i):
        for line in streams[i]:
            received[i] += line
        ended[i] = time.monotonic()

    readers = [threading.Thread(target=read, args=(i,)) for i in range(len(streams))]
    for reader in readers:
        reader.start()
    until(lambda: all(b"id: 1" in text for text in received))  # every stream open and sent the game

    signalled = time.monotonic()
    server.terminate()
    server.wait(timeout=30)
    stopped = time.monotonic()
    for reader in readers:
        reader.join(timeout=10)

    assert stopped - signalled < 3, f"the server took {stopped - signalled:.1f} s to stop"
    assert all(end is not None and end - signalled < 3 for end in ended), ended
    for text in received:
        assert b"id: 1\n" in text  # the stream had sent the log so far
        assert text.rstrip().endswith(b"retry: 1000"), text[-200:]
