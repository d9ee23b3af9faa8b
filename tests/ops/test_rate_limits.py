"""The rate limit a client is told is the one it gets: counted once for all the workers of a server, with
the default counters (shared memory) and with Redis, under gunicorn as deployed."""

import threading
import urllib.error
import urllib.request

import pytest
import redis

from tests.conftest import drop_database, free_port, migrated_database
from tests.processes import start_gunicorn, stop, wait_for_workers

LIMIT = 50
BURST = 200


def burst(base: str) -> list[tuple[int, dict[str, str]]]:
    """BURST requests from 8 threads, each on a connection of its own (so the workers share them)."""
    answers: list[tuple[int, dict[str, str]]] = []
    lock = threading.Lock()

    def send(count: int) -> None:
        for _ in range(count):
            try:
                with urllib.request.urlopen(f"{base}/variants", timeout=10) as response:
                    answer = (response.status, dict(response.headers))
            except urllib.error.HTTPError as error:
                answer = (error.code, dict(error.headers))
            with lock:
                answers.append(answer)

    threads = [threading.Thread(target=send, args=(BURST // 8,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.mark.parametrize("counters", ["default", "redis"])
def test_a_burst_on_four_workers_gets_exactly_the_limit_it_is_told(embedded_server_url, redis_url, counters):
    env = {"WEB_CONCURRENCY": "4", "RATE_LIMIT": f"{LIMIT} per minute"}
    if counters == "redis":
        redis.Redis.from_url(redis_url).flushdb()
        env["RATE_LIMIT_STORAGE_URI"] = redis_url
    url = migrated_database(embedded_server_url)
    port = free_port()
    process = start_gunicorn(url, port, **env)
    try:
        wait_for_workers(f"http://127.0.0.1:{port}", 4)
        answers = burst(f"http://127.0.0.1:{port}")
    finally:
        stop(process)
        drop_database(embedded_server_url, url)

    statuses = [status for status, _ in answers]
    workers = {headers["X-Request-ID"][:16] for _, headers in answers}  # a random half per process
    assert len(answers) == BURST and len(workers) >= 2, workers
    assert {headers["X-RateLimit-Limit"] for _, headers in answers} == {str(LIMIT)}
    assert statuses.count(200) == LIMIT and statuses.count(429) == BURST - LIMIT
    assert all(int(headers["Retry-After"]) >= 1 for status, headers in answers if status == 429)
