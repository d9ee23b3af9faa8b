"""The server's own chores, in each process (service.chores): it opens today's daily deals (so that their commitments
enter the public log as the day begins), closes the games of the days that have ended, and verifies the results of
players' finished games, which count once verified. Every process may take a turn; what one did is left as it is by
the others (a game closed or a result verified once).

Woken by work (the store tells of every write that gave the public log entries: a game begun or ended), it turns at
most every TURN_SECONDS; with nothing waking it, it looks once every IDLE_SECONDS, and at the turn of the UTC day, for
what falls due by the date alone (a day's close, a game left for three days, replies kept past their time)."""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime, timedelta

from ..service.chores import Chores
from ..service.ports import requester
from .turns import Turns

log = logging.getLogger(__name__)

TURN_SECONDS = 10.0
"""The least time between two turns: a finished game counts within about this long."""
IDLE_SECONDS = 60.0
"""How long a process with nothing to do rests, unless woken or the day turns."""


class Upkeep(Turns):
    def __init__(self, chores: Chores, interval: float = TURN_SECONDS, idle_wait: float = IDLE_SECONDS) -> None:
        super().__init__("osmosis-upkeep", interval, idle_wait)
        self._work = chores

    def begin(self) -> None:
        # The solver's time it takes (verifications) is counted as this process's upkeep's, apart from every
        # client's and from the other processes' upkeep.
        requester.set(f"upkeep/{os.getpid()}")

    def turn(self) -> bool:
        while (done := self._batch()) and not self.stopped:  # many games, a batch a turn, without waiting
            pass
        return done is None

    def resting(self) -> float:
        now = datetime.now(UTC)
        next_day = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
        return min(super().resting(), (next_day - now).total_seconds() + 1)

    def run_once(self) -> int:
        """One turn; how much it did (0 too when it failed)."""
        return self._batch() or 0

    def _batch(self) -> int | None:
        """How much one batch of chores did; None when it failed (it is tried again a turn later)."""
        try:
            return self._work.turn()
        except Exception:
            log.warning("the upkeep's turn failed (closing days, verifying results); it is tried again", exc_info=True)
            return None
