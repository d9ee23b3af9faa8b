"""The solver's searches (hints, analyses) under a real gevent worker: off the loop, so a worker busy
with them still answers everything else at once."""

import statistics
import threading
import time

import pytest

from tests.apps import free_port, gunicorn_on_a_new_database
from tests.databases import drop_database, migrated_database
from tests.processes import call, healthz_delays_while, start_gunicorn, stop
from tests.waiting import until

pytestmark = pytest.mark.drill


def test_a_worker_busy_with_hints_still_answers_other_requests_at_once(embedded_server_url):
    url = migrated_database(embedded_server_url)
    port = free_port()
    # One worker, so that every request below meets the searches in the same process; behind one proxy, so
    # that the hints can come from four clients (one client may have two solver jobs in flight).
    process = start_gunicorn(url, port, WEB_CONCURRENCY="1", PROXY_COUNT="1")
    base = f"http://127.0.0.1:{port}"
    try:
        games = [call("POST", f"{base}/games", {"variant": "osmosis-ablage", "deal_number": n})[1] for n in range(8)]
        statuses: list[int] = []

        def hints(client, mine):
            for game in mine:
                status, _, _ = call(
                    "POST",
                    f"{base}/games/{game['id']}/hint",
                    token=game["player_token"],
                    timeout=60,
                    headers={"X-Forwarded-For": client},
                )
                statuses.append(status)

        threads = [threading.Thread(target=hints, args=(f"10.0.0.{n}", games[2 * n : 2 * n + 2])) for n in range(4)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        delays = healthz_delays_while(base, threads)
        busy = time.monotonic() - started
    finally:
        stop(process)
        drop_database(embedded_server_url, url)

    assert statuses == [200] * 8
    # The eight searches kept the worker busy for a while, and /healthz never waited for one of them: worked
    # out on the loop, each would hold every other request for its whole length (half a second or more).
    assert busy > 1.0 and len(delays) >= 20, (busy, len(delays))
    assert statistics.median(delays) < 0.1 and max(delays) < 0.4, (statistics.median(delays), max(delays))


def log_of(process):
    process.log.seek(0)
    return process.log.read()


def test_a_refused_hint_is_an_answer_in_the_log_not_a_traceback(embedded_server_url):
    with gunicorn_on_a_new_database(embedded_server_url, WEB_CONCURRENCY="1", LOG_LEVEL="info") as (base, process):
        _, game, _ = call("POST", f"{base}/games", {"deal_number": 0})
        call("POST", f"{base}/games/{game['id']}/resign", token=game["player_token"])
        status, problem, _ = call("POST", f"{base}/games/{game['id']}/hint", token=game["player_token"])
        until(lambda: "/hint 409" in log_of(process), seconds=10)  # the worker has logged the answer
    log = log_of(process)

    assert (status, problem["code"]) == (409, "game-over")
    assert "/hint 409" in log
    assert "Traceback" not in log and "failed with GameOver" not in log
