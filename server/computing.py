"""Long computations (the solver) off the event loop: under gevent they run in a native thread.

A gevent worker serves every request and stream of its process on one loop, so a search of a second
or two run on the loop would stall every other request and stream of that process. In a thread of
gevent's pool it only holds the interpreter lock, which Python hands over every few milliseconds, so
the loop keeps serving between. Without gevent (tests, the command line) the computation simply runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def computed(work: Callable[[], T]) -> T:
    if "gevent" in sys.modules:
        from gevent import get_hub, monkey

        if monkey.is_module_patched("threading"):
            result: T = get_hub().threadpool.apply(work)
            return result
    return work()
