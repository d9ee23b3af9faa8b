"""Live at scale, on the real server (gunicorn's gevent workers): waiting connections and slow clients hold
nothing other requests need, a change reaches followers on another instance through PostgreSQL's
notifications, and a statement waiting in the database does not stall its worker."""

import json
import socket
import threading
import time
import urllib.request
from contextlib import ExitStack

import psycopg
import pytest

from tests.api.helpers import sse_messages
from tests.apps import free_port
from tests.databases import migrated_database
from tests.processes import call, start_gunicorn, stop
from tests.waiting import until

pytestmark = pytest.mark.drill

OLD_THREADS = 32
"""What the server had before gevent: 4 workers x 8 threads, each held by one waiting connection."""


@pytest.fixture
def server(embedded_server_url):
    url = migrated_database(embedded_server_url)
    port = free_port()
    process = start_gunicorn(url, port, KEEPALIVE_SECONDS="2", BODY_SECONDS="2")
    yield f"http://127.0.0.1:{port}", port, url
    stop(process)


def raw_request(port, text):
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(text.encode())
    return sock


def timed_call(*args, **kwargs):
    started = time.monotonic()
    status, body, _ = call(*args, **kwargs)
    return status, body, time.monotonic() - started


def test_streams_long_polls_and_slow_clients_past_the_old_thread_count_hold_up_nothing(server):
    base, port, _ = server
    games = [call("POST", f"{base}/games", {"deal_number": n})[1] for n in range(20)]
    with ExitStack() as stack:
        streams = [
            stack.enter_context(urllib.request.urlopen(f"{base}/games/{games[i % 20]['id']}/events/stream", timeout=30))
            for i in range(100)
        ]
        polls = [
            raw_request(port, f"GET /games/{games[i % 20]['id']}/events?after=1&wait=30 HTTP/1.1\r\nHost: x\r\n\r\n")
            for i in range(50)
        ]
        slow_heads = [raw_request(port, "GET /healthz HTTP/1.1\r\nHo") for _ in range(25)]
        slow_bodies = [
            raw_request(
                port,
                "POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
            )
            for _ in range(25)
        ]
        for sock in polls + slow_heads + slow_bodies:
            stack.callback(sock.close)
        assert len(streams) + len(polls) + len(slow_heads) + len(slow_bodies) > 6 * OLD_THREADS
        until(lambda: live_followers(base) == len(streams), seconds=10)  # every stream held by the live tier

        created = [timed_call("POST", f"{base}/games", {"variant": "peek"}) for _ in range(5)]
        game, token = created[0][1], created[0][1]["player_token"]
        actions = [timed_call("POST", f"{base}/games/{game['id']}/draw", token=token) for _ in range(10)]
        probes = [timed_call("GET", f"{base}/healthz") for _ in range(20)]

        assert all(status == 201 and seconds < 1 for status, _, seconds in created), created
        assert all(status == 200 and seconds < 1 for status, _, seconds in actions)
        assert all(status == 200 and seconds < 1 for status, _, seconds in probes)
        # the followers heard of the actions elsewhere too: one stream of each game is still live
        first = next(m for m in sse_messages(iter(lambda: streams[0].readline(), b"")) if m.get("event") == "game")
        assert json.loads(first["data"])["id"] == games[0]["id"]


def test_a_request_head_sent_slowly_is_cut_after_keepalive_seconds(server):
    _, port, _ = server
    sock = raw_request(port, "GET /healthz HTTP/1.1\r\nHo")
    started = time.monotonic()

    sock.settimeout(10)
    closed = sock.recv(1000)

    assert closed == b"" and time.monotonic() - started < 5  # KEEPALIVE_SECONDS=2 in this server


def test_a_body_sent_slowly_gets_408_after_body_seconds(server):
    _, port, _ = server
    sock = raw_request(
        port, "POST /games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
    )
    started = time.monotonic()
    sock.settimeout(10)

    response = b""
    while b'"request-timeout"' not in response and (chunk := sock.recv(4000)):
        response += chunk

    assert response.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 5  # BODY_SECONDS=2
    assert b"application/problem+json" in response and b'"request-timeout"' in response


def test_a_change_reaches_a_follower_on_another_instance_by_notification(embedded_server_url):
    url = migrated_database(embedded_server_url)
    ports = [free_port(), free_port()]
    # With the safety poll a minute apart, only a notification can bring the event within the test.
    instances = [start_gunicorn(url, port, LIVE_POLL_MS="60000", WEB_CONCURRENCY="1") for port in ports]
    try:
        here, there = (f"http://127.0.0.1:{port}" for port in ports)
        game = call("POST", f"{here}/games", {"deal_number": 0})[1]
        stream = urllib.request.urlopen(f"{here}/games/{game['id']}/events/stream", timeout=30)
        messages = sse_messages(iter(lambda: stream.readline(), b""))
        assert next(m for m in messages if "data" in m)["event"] == "game"
        assert next(m for m in messages if "data" in m)["id"] == "1"

        received = {}
        reader = threading.Thread(target=lambda: received.update(next(m for m in messages if "data" in m)))
        reader.start()
        status = call("POST", f"{there}/games/{game['id']}/draw", token=game["player_token"])[0]
        reader.join(timeout=5)

        assert status == 200
        assert received.get("id") == "2" and json.loads(received["data"])["kind"] == "cards_dealt"
    finally:
        for instance in instances:
            stop(instance)


def test_a_statement_waiting_in_the_database_does_not_stall_its_worker(embedded_server_url):
    url = migrated_database(embedded_server_url)
    port = free_port()
    server = start_gunicorn(url, port, WEB_CONCURRENCY="1")  # one worker: everything below shares it
    base = f"http://127.0.0.1:{port}"
    try:
        game = call("POST", f"{base}/games", {"deal_number": 0})[1]
        other = call("POST", f"{base}/games", {"deal_number": 1})[1]
        blocked = {}
        with psycopg.connect(url) as locker:
            locker.execute("SELECT 1 FROM games WHERE id = %s FOR UPDATE", (game["id"],))
            action = threading.Thread(
                target=lambda: blocked.update(
                    status=call("POST", f"{base}/games/{game['id']}/draw", token=game["player_token"])[0]
                )
            )
            action.start()
            until(lambda: waiting_for_a_lock(locker), seconds=10)  # the draw waits for the row lock, in PostgreSQL

            meanwhile = [
                timed_call("GET", f"{base}/healthz"),
                timed_call("GET", f"{base}/games/{other['id']}"),
                timed_call("POST", f"{base}/games/{other['id']}/draw", token=other["player_token"]),
            ]
            assert action.is_alive()
        action.join(timeout=10)

        assert [status for status, _, _ in meanwhile] == [200, 200, 200]
        assert all(seconds < 1 for _, _, seconds in meanwhile), meanwhile
        assert blocked["status"] == 200
    finally:
        stop(server)


def waiting_for_a_lock(conn):
    """Whether a statement of another session waits for a lock, in the database of `conn`."""
    query = """
        SELECT count(*) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"""
    return conn.execute(query).fetchone()[0] > 0


def live_followers(base):
    metrics = urllib.request.urlopen(f"{base}/metrics", timeout=10).read().decode()
    line = next(line for line in metrics.splitlines() if line.startswith("osmosis_live_followers "))
    return float(line.split()[1])


def test_streams_are_handed_to_the_live_tier_and_let_go_when_their_readers_leave(server):
    base, _, _ = server
    game = call("POST", f"{base}/games", {"deal_number": 2})[1]
    over = call("POST", f"{base}/games", {"deal_number": 3})[1]
    call("POST", f"{base}/games/{over['id']}/resign", token=over["player_token"])

    streams = [urllib.request.urlopen(f"{base}/games/{game['id']}/events/stream", timeout=30) for _ in range(30)]
    finished = urllib.request.urlopen(f"{base}/games/{over['id']}/events/stream", timeout=30).read()
    until(lambda: live_followers(base) == len(streams), seconds=10)
    handed_over = live_followers(base)
    call("POST", f"{base}/games/{game['id']}/draw", token=game["player_token"])
    seen = [next(m for m in sse_messages(iter(stream.readline, b"")) if m.get("id") == "2") for stream in streams]
    for stream in streams:
        stream.close()
    call("POST", f"{base}/games/{game['id']}/draw", token=game["player_token"])  # writes find them gone
    until(lambda: live_followers(base) == 0, seconds=10)

    assert handed_over == 30
    assert all(json.loads(message["data"])["kind"] == "cards_dealt" for message in seen)
    assert finished.decode().count("\nid: ") == 3  # a game already over is sent whole, and the stream ends
    assert live_followers(base) == 0
