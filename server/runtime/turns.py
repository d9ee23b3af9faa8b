"""A thread of the process that takes a turn every so often until it is stopped: the public log's sequencer and
the upkeep are two."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod


class Turns(ABC):
    def __init__(self, name: str, wait: float) -> None:
        """`wait`: seconds between turns."""
        self._name = name
        self._wait = wait
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """No more turns; a turn under way finishes (its transaction commits or rolls back) before this returns."""
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def _run(self) -> None:
        self.begin()
        while not self._stopped.wait(self._wait):
            self.turn()

    def begin(self) -> None:  # noqa: B027 -- most turns need nothing before the first
        """What the thread does once, before its first turn."""

    @abstractmethod
    def turn(self) -> None:
        """One turn: it must not raise (a turn that fails says so in the log, and the next tries again)."""
