"""The close of each day's daily deals, in each process: every few seconds it opens today's deals (so that their
commitments enter the public log as the day begins) and closes the games of the days that have ended. Every
process may take a turn; a game closed by one is left as it is by the others (service.close_daily_game)."""

from __future__ import annotations

import logging
import threading

from ..service.games import GameService

log = logging.getLogger(__name__)

TURN_SECONDS = 10.0
"""How often a process looks: the seeds of a day are revealed within about this long after midnight UTC."""


class DayCloser:
    def __init__(self, service: GameService, interval: float = TURN_SECONDS) -> None:
        self._service = service
        self._interval = interval
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="osmosis-day-closer", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stopped.wait(self._interval):
            while self.run_once():  # a day's many games, a batch a turn, without waiting between batches
                if self._stopped.is_set():
                    return

    def run_once(self) -> int:
        """One turn; how many games it closed."""
        try:
            return self._service.close_days()
        except Exception:
            log.warning("closing the days that have ended failed; it is tried again", exc_info=True)
            return 0
