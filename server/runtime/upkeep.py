"""The server's own chores, in each process (service.upkeep): every few seconds it opens today's daily deals (so
that their commitments enter the public log as the day begins), closes the games of the days that have ended,
and verifies the results of players' finished games, which count once verified. Every process may take a turn;
what one did is left as it is by the others (a game closed or a result verified once)."""

from __future__ import annotations

import logging
import os
import threading

from ..service.games import GameService
from ..service.ports import requester

log = logging.getLogger(__name__)

TURN_SECONDS = 10.0
"""How often a process looks when nothing waits: the seeds of a day are revealed, and a finished game counts,
within about this long."""


class Upkeep:
    def __init__(self, service: GameService, interval: float = TURN_SECONDS) -> None:
        self._service = service
        self._interval = interval
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="osmosis-upkeep", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        # The solver's time it takes (verifications) is counted as this process's upkeep's, apart from every
        # client's and from the other processes' upkeep.
        requester.set(f"upkeep/{os.getpid()}")
        while not self._stopped.wait(self._interval):
            while self.run_once():  # many games, a batch a turn, without waiting between batches
                if self._stopped.is_set():
                    return

    def run_once(self) -> int:
        """One turn; how much it did."""
        try:
            return self._service.upkeep()
        except Exception:
            log.warning("the upkeep's turn failed (closing days, verifying results); it is tried again", exc_info=True)
            return 0
