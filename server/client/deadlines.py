"""A deadline on a whole exchange with a server, not on each read: a server that trickles a byte every few
seconds never trips a socket's timeout, which counts from the last byte. One thread of the process watches the
deadlines of every exchange under way and shuts down the socket of any that outlives its own; the reader then
sees its connection end and reports the deadline."""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass
class Deadline:
    """One exchange's deadline; `passed` tells, after it ended, whether it was cut short."""

    at: float
    cut: Callable[[], None]
    passed: bool = field(default=False)


class _Watch:
    def __init__(self) -> None:
        self._due: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, deadline: Deadline) -> None:
        with self._changed:
            heapq.heappush(self._due, (deadline.at, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="osmosis-client-deadlines", daemon=True)
                self._thread.start()
            elif self._due[0][2] is deadline:
                self._changed.notify()

    def remove(self, deadline: Deadline) -> None:
        with self._changed:
            deadline.cut = _nothing  # it ended in time: cutting it now would harm the next exchange

    def _run(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                while self._due and (self._due[0][0] <= now or self._due[0][2].cut is _nothing):
                    _, _, deadline = heapq.heappop(self._due)
                    if deadline.cut is not _nothing:
                        deadline.passed = True
                        with contextlib.suppress(OSError):
                            deadline.cut()
                self._changed.wait(self._due[0][0] - now if self._due else None)


def _nothing() -> None:
    return None


_WATCH = _Watch()


@contextlib.contextmanager
def deadline(seconds: float, sock: Callable[[], socket.socket | None]) -> Iterator[Deadline]:
    """Within the block, the socket `sock()` names (looked up when the time is up: it may be made meanwhile) is
    shut down once `seconds` have passed; the deadline yielded says whether that happened."""

    def cut() -> None:
        found = sock()
        if found is not None:
            found.shutdown(socket.SHUT_RDWR)

    watched = Deadline(time.monotonic() + seconds, cut)
    _WATCH.add(watched)
    try:
        yield watched
    finally:
        _WATCH.remove(watched)
