"""Fair solver time within one process: a cap on each client's jobs in flight, a fair queue to the threads,
and retries of one request waiting for its first; checked with real threads and the shared counters."""

import threading
import time

import pytest
from limits.storage import storage_from_string

from server.runtime.solver_time import ComputeQueue, JobLeases
from server.service.errors import IdenticalRequestFinished, SolverBusy, SolverSaturated


@pytest.fixture
def counters():
    storage = storage_from_string("memory://")
    yield storage
    storage.reset()


class Job:
    """Work that runs until released, noting when it started."""

    def __init__(self, name, log):
        self.name, self.log, self.release = name, log, threading.Event()

    def __call__(self):
        self.log.append(self.name)
        assert self.release.wait(10)
        return self.name


def submit(queue, client, work, results, once_for=None):
    def run():
        try:
            results[work.name if hasattr(work, "name") else client] = queue.run(client, work, once_for)
        except Exception as error:  # the test reads what each job got
            results[work.name if hasattr(work, "name") else client] = error

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def until(condition, seconds=5):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_clients_job_past_its_cap_is_refused_at_once_and_another_clients_is_not(counters):
    queue = ComputeQueue(JobLeases(counters, per_client=2), threads=2)
    log, results = [], {}
    first, second = Job("a1", log), Job("a2", log)
    # One after the other: threads started together reach the queue in any order.
    threads = [submit(queue, "a", first, results)]
    until(lambda: log == ["a1"])
    threads.append(submit(queue, "a", second, results))
    until(lambda: queue.waiting == 1)

    with pytest.raises(SolverBusy):
        queue.run("a", lambda: "a3")
    other = Job("b1", log)
    threads.append(submit(queue, "b", other, results))
    until(lambda: "b1" in log)

    for job in (first, second, other):
        job.release.set()
    for thread in threads:
        thread.join()
    assert results == {"a1": "a1", "a2": "a2", "b1": "b1"}
    assert queue.run("a", lambda: "again") == "again"  # every place freed


def test_a_client_runs_one_job_per_process_so_another_client_never_waits_behind_its_queue(counters):
    queue = ComputeQueue(JobLeases(counters, per_client=5), threads=2)
    log, results = [], {}
    mine = [Job(f"a{n}", log) for n in range(4)]
    # a0 running first, then the rest queued: threads started together reach the queue in any order.
    threads = [submit(queue, "a", mine[0], results)]
    until(lambda: log == ["a0"])
    threads += [submit(queue, "a", job, results) for job in mine[1:]]
    until(lambda: queue.waiting == 3)

    theirs = Job("b0", log)
    threads.append(submit(queue, "b", theirs, results))

    until(lambda: "b0" in log)
    assert log == ["a0", "b0"]  # before a1, a2 and a3, which came first
    for job in (*mine, theirs):
        job.release.set()
    for thread in threads:
        thread.join()
    assert sorted(log) == ["a0", "a1", "a2", "a3", "b0"]


def test_a_job_that_finds_no_free_thread_in_time_is_refused_and_frees_its_place(counters):
    queue = ComputeQueue(JobLeases(counters, per_client=1), threads=1, queue_seconds=0.2)
    log, results = [], {}
    blocking = Job("a", log)
    thread = submit(queue, "a", blocking, results)
    until(lambda: log == ["a"])

    started = time.monotonic()
    with pytest.raises(SolverSaturated):
        queue.run("b", lambda: "never")
    waited = time.monotonic() - started

    blocking.release.set()
    thread.join()
    assert 0.2 <= waited < 2
    assert queue.run("b", lambda: "b's place was freed") == "b's place was freed"


def test_retries_of_one_request_wait_for_the_first_instead_of_working_it_out_again(counters):
    queue = ComputeQueue(JobLeases(counters, per_client=1), threads=2)
    log, results = [], {}
    first = Job("first", log)
    thread = submit(queue, "a", first, results, once_for="game:1/key")
    until(lambda: log == ["first"])

    retries = [
        threading.Thread(
            target=lambda: results.setdefault("retries", []).append(
                _raised(lambda: queue.run("a", lambda: log.append("again"), "game:1/key"))
            )
        )
        for _ in range(3)
    ]
    for retry in retries:
        retry.start()
    time.sleep(0.2)
    assert all(retry.is_alive() for retry in retries)  # waiting, without a place (the cap is 1)
    first.release.set()
    thread.join()
    for retry in retries:
        retry.join()

    assert log == ["first"] and results["first"] == "first"
    assert results["retries"] == [IdenticalRequestFinished] * 3


def _raised(call):
    try:
        call()
    except Exception as error:
        return type(error)
    return None


def test_an_error_in_the_work_frees_the_place_and_reaches_the_caller(counters):
    queue = ComputeQueue(JobLeases(counters, per_client=1), threads=1)

    with pytest.raises(ZeroDivisionError):
        queue.run("a", lambda: 1 / 0)

    assert queue.run("a", lambda: "next") == "next"


def test_counters_out_of_reach_let_jobs_go_ahead():
    unreachable = storage_from_string("redis://127.0.0.1:1/0", wrap_exceptions=True)
    queue = ComputeQueue(JobLeases(unreachable, per_client=1), threads=1)

    assert queue.run("a", lambda: "ran", once_for="x") == "ran"
