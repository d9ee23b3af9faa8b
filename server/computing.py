"""Long computations (the solver) off the event loop: under gevent they run in a native thread.

A gevent worker serves every request and stream of its process on one loop, so a search of a second
or two run on the loop would stall every other request and stream of that process. In a thread of
gevent's pool it only holds the interpreter lock, which Python hands over every few milliseconds, so
the loop keeps serving between. Without gevent (tests, the command line) the computation simply runs.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

THREADS = 2
"""Computations run at once per process; the rest wait their turn. More would not run any faster (they
share one interpreter lock) and would take more of it from the loop, slowing every other request."""


def computed(work: Callable[[], T]) -> T:
    if "gevent" in sys.modules:
        from gevent import monkey

        if monkey.is_module_patched("threading"):
            result: T = _pool().apply(work)
            return result
    return work()


@functools.cache
def _pool() -> Any:
    """Made on first use, so in the worker process that uses it, after gunicorn forked it."""
    from gevent.threadpool import ThreadPool

    return ThreadPool(THREADS)
