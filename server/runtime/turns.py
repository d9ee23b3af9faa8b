"""A thread of the process that takes a turn when work wakes it, and keeps taking them while work remains: the public
log's sequencer and the upkeep are two. With nothing to do it costs nothing (no query, no wake-up) until woken, or
until its idle wait has passed: the one look on a clock, for work that no wake announced (written by a process that
died before its own turn, or due by the date)."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod


class Turns(ABC):
    def __init__(self, name: str, wait: float, idle_wait: float) -> None:
        """`wait`: the least time between turns, however often work wakes the thread (a burst is one turn's work).
        `idle_wait`: how long it rests, unless woken, after a turn that left nothing to do."""
        self._name = name
        self._wait = wait
        self._idle_wait = idle_wait
        self._stopped = threading.Event()
        self._woken = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Work waits: a turn within `wait`. Cheap enough to call on every write that makes work."""
        self._woken.set()

    def stop(self, timeout: float = 10.0) -> None:
        """No more turns; a turn under way finishes (its transaction commits or rolls back) before this returns."""
        self._stopped.set()
        self._woken.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def _run(self) -> None:
        self.begin()
        last = time.monotonic() - self._wait
        busy = True  # the first turn looks for work left from before the process started
        while not self._stopped.is_set():
            if not busy:
                self._woken.wait(self.resting())
            self._woken.clear()
            if (rest := last + self._wait - time.monotonic()) > 0:
                self._stopped.wait(rest)
            if self._stopped.is_set():
                break
            last = time.monotonic()
            busy = self.turn()

    def resting(self) -> float:
        """How long to rest, unless woken, after a turn that left nothing to do."""
        return self._idle_wait

    def begin(self) -> None:  # noqa: B027 -- most turns need nothing before the first
        """What the thread does once, before its first turn."""

    @abstractmethod
    def turn(self) -> bool:
        """One turn, and whether work may remain (then the next comes `wait` later, else the thread rests until
        woken). It must not raise: a turn that fails says so in the log, and answers True to be tried again."""
