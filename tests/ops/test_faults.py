"""Faults under load: PostgreSQL stopped and started again, a gunicorn worker killed mid-request.

Each test runs gunicorn against its own embedded PostgreSQL (so stopping it harms nothing else), sends
actions from several client threads, and afterwards checks the log against every 2xx it received.
"""

import os
import signal
import threading
import time

import psutil
import psycopg
import pytest

from server.store import embedded
from tests.apps import free_port
from tests.load import Load, assert_every_2xx_is_in_the_log, assert_every_game_verifies
from tests.processes import call, start_gunicorn, stop

pytestmark = pytest.mark.drill


def test_postgres_stopped_under_load_gives_quick_503s_then_recovers_and_loses_no_acknowledged_action(own_postgres):
    data_dir, url = own_postgres
    port = free_port()
    server = start_gunicorn(url, port, POOL_TIMEOUT_MS="1000", STATEMENT_TIMEOUT_MS="2000")
    base = f"http://127.0.0.1:{port}"
    try:
        with Load(base) as load:
            time.sleep(2)
            embedded.stop(data_dir)
            down = time.monotonic()
            assert not (data_dir / "postgres" / "postmaster.pid").exists(), "PostgreSQL did not stop"
            time.sleep(4)
            up = time.monotonic()
            embedded.start(data_dir)
            deadline = time.monotonic() + 30
            while not any(status == 200 for _, status, _ in load.statuses_between(up, time.monotonic() + 60)):
                assert time.monotonic() < deadline, (
                    f"the server did not recover by itself: {load.statuses_between(up, time.monotonic() + 60)[-20:]}, "
                    f"{load.errors[-5:]}"
                )
                time.sleep(0.2)
            time.sleep(1)
        outage = load.statuses_between(down, up)
        assert outage, "no request was answered while PostgreSQL was down"
        assert all(status == 503 and code in ("service-unavailable", "not-ready") for _, status, code in outage), (
            sorted({(status, code) for _, status, code in outage})
        )
        assert max(seconds for seconds, _, _ in outage) < 3, "a request hung while PostgreSQL was down"
        assert not [a for a in load.answers if a[2] >= 500 and a[2] != 503], "a 5xx other than 503"
        assert_every_2xx_is_in_the_log(url, load)
        assert_every_game_verifies(base, url)
    finally:
        stop(server)


def test_a_worker_killed_mid_request_loses_nothing_and_leaves_no_half_written_action(own_postgres):
    _, url = own_postgres
    port = free_port()
    server = start_gunicorn(url, port)
    base = f"http://127.0.0.1:{port}"
    try:
        with Load(base) as load:
            for _ in range(3):
                time.sleep(1.5)
                workers = psutil.Process(server.pid).children()
                assert workers, "gunicorn has no workers"
                os.kill(workers[0].pid, signal.SIGKILL)
            time.sleep(2)
        assert sum(1 for a in load.answers if a[2] == 200) > 20
        assert_every_2xx_is_in_the_log(url, load)
        assert_every_game_verifies(base, url)
        with psycopg.connect(url) as conn:
            gaps = conn.execute("""
                SELECT g.id FROM games g JOIN game_events e ON e.game_id = g.id
                GROUP BY g.id, g.version HAVING count(*) <> g.version OR max(e.seq) <> g.version""").fetchall()
        assert gaps == []
    finally:
        stop(server)


def test_after_postgres_restarts_the_very_first_requests_already_succeed(own_postgres):
    data_dir, url = own_postgres
    port = free_port()
    server = start_gunicorn(url, port, POOL_MIN_SIZE="4")
    base = f"http://127.0.0.1:{port}"
    try:
        game = call("POST", f"{base}/games", {"variant": "osmosis-draw-one"})[1]
        # Every worker's pool holds several open connections, which the restart will kill.
        warm = [
            threading.Thread(target=lambda: [call("GET", f"{base}/games/{game['id']}") for _ in range(40)])
            for _ in range(8)
        ]
        for thread in warm:
            thread.start()
        for thread in warm:
            thread.join()

        embedded.stop(data_dir)
        embedded.start(data_dir)
        statuses: list[int] = []

        def read_and_act() -> None:
            for _ in range(30):
                statuses.append(call("GET", f"{base}/games/{game['id']}")[0])
                statuses.append(call("POST", f"{base}/games", {"variant": "peek"})[0])

        clients = [threading.Thread(target=read_and_act) for _ in range(3)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()

        assert len(statuses) == 180
        assert sorted(set(statuses)) == [200, 201], f"{sum(s >= 500 for s in statuses)} of 180 failed: {statuses}"
    finally:
        stop(server)
