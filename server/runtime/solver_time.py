"""Solver time, shared fairly between clients, and spent off the event loop (docs/security.md).

The solver's work (hints, winnable deals, analyses, verifications) takes up to a few seconds of a core.
Two things keep one client from taking that time from everyone:

- A cap on each client's jobs in flight on the whole server, counted in the counters every worker shares
  (server/runtime/shared_counters.py, or Redis): past it the request is refused at once with 429 `solver-busy`
  and Retry-After, before it costs anything.
- A fair queue in each worker: a job starts when one of the worker's THREADS is free and its client has no
  other job running in this worker, the first such in the order they came. So however many jobs one
  client keeps in flight, another client's job waits for no more than the jobs already running.

A gevent worker serves every request and stream of its process on one loop, so a search run on the loop
would stall all of them. In a native thread of gevent's pool it only holds the interpreter lock, which
Python hands over every few milliseconds, so the loop keeps serving between. Without gevent (tests, the
command line) the computation runs in the calling thread, under the same rules.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from limits.errors import StorageError
from limits.storage import Storage

from ..service.errors import IdenticalRequestFinished, SolverBusy, SolverSaturated
from ..service.ports import requesting

T = TypeVar("T")
log = logging.getLogger(__name__)

THREADS = 2
"""Computations running at once per process; the rest wait their turn. More would not run any faster (they
share one interpreter lock) and would take more of it from the loop, slowing every other request."""
JOBS_PER_CLIENT = 2
"""Solver jobs one client may have in flight (waiting or running) on the whole server."""
LEASE_SECONDS = 120
"""How long a job's place counts at most: should its worker die mid-job, the place frees itself then."""
QUEUE_SECONDS = 30.0
"""How long a job may wait for a thread before it is refused with 503 `solver-saturated`."""


class JobLeases:
    """Each client's places for jobs in flight, in counters every worker shares: place i of client c is the
    counter `osmosis/solver-jobs/c/i`, taken by whoever raises it from 0 to 1.

    Should the counters be out of reach (Redis down), a job goes ahead without a place, and this is logged:
    the fair queue of each worker still holds, and an outage of Redis stops no one's game.
    """

    def __init__(
        self, counters: Storage, per_client: int = JOBS_PER_CLIENT, lease_seconds: int = LEASE_SECONDS
    ) -> None:
        self._counters = counters
        self.per_client = per_client
        self._lease_seconds = lease_seconds

    def acquire(self, client: str) -> str | None:
        """The key of a free place of the client's, now taken ("" when the counters are out of reach); None
        when every place is taken."""
        try:
            for place in range(self.per_client):
                key = f"osmosis/solver-jobs/{client}/{place}"
                # A raise past 1 leaves the holder's count higher; its release clears the place all the same.
                if self._counters.incr(key, self._lease_seconds) == 1:
                    return key
        except StorageError:
            log.warning("the counters of solver jobs are out of reach: a job goes ahead uncounted", exc_info=True)
            return ""
        return None

    def release(self, key: str) -> None:
        if key:
            self._clear(key)

    def first_for(self, identity: str) -> bool:
        """Whether this is the only job in flight for `identity` (release it with `release_identity`)."""
        try:
            return self._counters.incr(self._identity_key(identity), self._lease_seconds) == 1
        except StorageError:
            return True

    def release_identity(self, identity: str) -> None:
        self._clear(self._identity_key(identity))

    def wait_for(self, identity: str) -> None:
        """Until the job in flight for `identity` has finished (or its lease has run out)."""
        deadline = time.monotonic() + self._lease_seconds
        with contextlib.suppress(StorageError):
            while self._counters.get(self._identity_key(identity)) and time.monotonic() < deadline:
                time.sleep(0.05)

    def _clear(self, key: str) -> None:
        try:
            self._counters.clear(key)
        except StorageError:
            log.warning(
                "could not free a solver job's place: it frees itself after %d s", self._lease_seconds, exc_info=True
            )

    @staticmethod
    def _identity_key(identity: str) -> str:
        return f"osmosis/solver-work/{identity}"


class ComputeQueue:
    """This process's solver threads, taken in a fair order (see the module's docstring)."""

    def __init__(self, leases: JobLeases | None, threads: int = THREADS, queue_seconds: float = QUEUE_SECONDS) -> None:
        self._leases = leases
        self._threads = threads
        self._queue_seconds = queue_seconds
        self._turns = threading.Condition()
        self._waiting: deque[tuple[object, str]] = deque()
        self._running: Counter[str] = Counter()

    def run(self, client: str, work: Callable[[], T], once_for: str | None = None) -> T:
        """`work()` for `client`, in its turn; raises SolverBusy or SolverSaturated instead of waiting long.

        `once_for` names the work of a request with an Idempotency-Key: a retry sent while the first is still
        at it does not work it out again, nor take a place of its client's; it waits for the first to finish
        and raises IdenticalRequestFinished, so that the caller answers with the first's stored response."""
        if once_for is not None and self._leases is not None:
            if not self._leases.first_for(once_for):
                self._leases.wait_for(once_for)
                raise IdenticalRequestFinished(once_for)
            try:
                return self.run(client, work)
            finally:
                self._leases.release_identity(once_for)
        if self._leases is None:
            with self._turn(client):
                return _off_the_loop(work, self._threads)
        lease = self._leases.acquire(client)
        if lease is None:
            raise SolverBusy(
                f"you have {self._leases.per_client} solver jobs in flight already (hints, winnable "
                "deals, analyses, verifications): retry once one has finished"
            )
        try:
            with self._turn(client):
                return _off_the_loop(work, self._threads)
        finally:
            self._leases.release(lease)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    @contextmanager
    def _turn(self, client: str) -> Iterator[None]:
        ticket = object()
        deadline = time.monotonic() + self._queue_seconds
        with self._turns:
            self._waiting.append((ticket, client))
            while self._next() is not ticket:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._waiting.remove((ticket, client))
                    self._turns.notify_all()
                    raise SolverSaturated(
                        f"the solver is busy with other clients' work: no thread came free within "
                        f"{self._queue_seconds:g} seconds"
                    )
                self._turns.wait(remaining)
            self._waiting.remove((ticket, client))
            self._running[client] += 1
        try:
            yield
        finally:
            with self._turns:
                self._running[client] -= 1
                if not self._running[client]:
                    del self._running[client]
                self._turns.notify_all()

    def _next(self) -> object | None:
        """The ticket whose turn it is: the first waiting whose client runs nothing here, if a thread is free."""
        if sum(self._running.values()) >= self._threads:
            return None
        return next((ticket for ticket, client in self._waiting if client not in self._running), None)


class SolverTurns:
    """The use cases' solver time (service.ports.SolverTime): each request's work in its client's fair turn of
    `queue`, the client being who the HTTP layer says the request comes from (service.ports.requesting)."""

    def __init__(self, queue: ComputeQueue) -> None:
        self._queue = queue

    def __call__(self, work: Callable[[], T], once_for: str | None = None) -> T:
        return self._queue.run(requesting() or "unknown", work, once_for)


def _off_the_loop(work: Callable[[], T], threads: int) -> T:
    if "gevent" in sys.modules:
        from gevent import monkey

        if monkey.is_module_patched("threading"):
            # gevent's pool prints a task's exception with its traceback to stderr; a refusal (a hint of a game
            # over: 409) is an answer, not a failure, so it comes back here as a value and is raised here.
            finished, value = _pool(threads).apply(_caught, (work,))
            if not finished:
                raise value
            result: T = value
            return result
    return work()


def _caught(work: Callable[[], T]) -> tuple[bool, Any]:
    try:
        return True, work()
    except Exception as error:
        return False, error


@functools.cache
def _pool(threads: int) -> Any:
    """Made on first use, so in the worker process that uses it, after gunicorn forked it."""
    from gevent.threadpool import ThreadPool

    return ThreadPool(threads)
