"""The server's own chores, in each process (service.upkeep): every few seconds it opens today's daily deals (so
that their commitments enter the public log as the day begins), closes the games of the days that have ended,
and verifies the results of players' finished games, which count once verified. Every process may take a turn;
what one did is left as it is by the others (a game closed or a result verified once)."""

from __future__ import annotations

import logging
import os

from ..service.games import GameService
from ..service.ports import requester
from .turns import Turns

log = logging.getLogger(__name__)

TURN_SECONDS = 10.0
"""How often a process looks when nothing waits: the seeds of a day are revealed, and a finished game counts,
within about this long."""


class Upkeep(Turns):
    def __init__(self, service: GameService, interval: float = TURN_SECONDS) -> None:
        super().__init__("osmosis-upkeep", interval)
        self._service = service

    def begin(self) -> None:
        # The solver's time it takes (verifications) is counted as this process's upkeep's, apart from every
        # client's and from the other processes' upkeep.
        requester.set(f"upkeep/{os.getpid()}")

    def turn(self) -> None:
        while self.run_once() and not self.stopped:  # many games, a batch a turn, without waiting between
            pass

    def run_once(self) -> int:
        """One turn; how much it did."""
        try:
            return self._service.upkeep()
        except Exception:
            log.warning("the upkeep's turn failed (closing days, verifying results); it is tried again", exc_info=True)
            return 0
