"""The solver's searches (hints, analyses) under a real gevent worker: off the loop, so a worker busy
with them still answers everything else at once."""

import threading
import time

import psutil

from tests.conftest import drop_database, free_port, migrated_database
from tests.processes import call, start_gunicorn, stop


def test_a_worker_busy_with_hints_still_answers_other_requests_first(embedded_server_url):
    url = migrated_database(embedded_server_url)
    port = free_port()
    # One worker, so that every request below meets the searches in the same process.
    process = start_gunicorn(url, port, WEB_CONCURRENCY="1")
    base = f"http://127.0.0.1:{port}"
    try:
        games = [call("POST", f"{base}/games", {"variant": "osmosis-ablage", "deal_number": n})[1] for n in range(4)]
        finished: list[tuple[str, float, int]] = []
        healthz: list[tuple[float, int]] = []

        def hint(game):
            status, _, _ = call("POST", f"{base}/games/{game['id']}/hint", token=game["player_token"], timeout=60)
            finished.append(("hint", time.monotonic(), status))

        (worker,) = psutil.Process(process.pid).children()
        busy_from = worker.cpu_times().user
        threads = [threading.Thread(target=hint, args=(game,)) for game in games]
        for thread in threads:
            thread.start()
        # Until the worker has spent half a second of CPU on them: the hints are being worked out now.
        while worker.cpu_times().user - busy_from < 0.5 and any(thread.is_alive() for thread in threads):
            time.sleep(0.02)
        # Ask for /healthz again and again until the first hint is answered.
        while not finished:
            status, _, _ = call("GET", f"{base}/healthz")
            healthz.append((time.monotonic(), status))
        for thread in threads:
            thread.join()
    finally:
        stop(process)
        drop_database(embedded_server_url, url)

    assert [status for _, _, status in finished] == [200] * 4
    assert {status for _, status in healthz} == {200}
    first_hint = min(at for _, at, _ in finished)
    answered = sum(at < first_hint for at, _ in healthz)
    # Worked out on the loop, a hint would hold every other request until it paused for the database.
    assert answered >= 10, answered
