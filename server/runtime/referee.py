"""The competitions' referee, in each process (service/competitions/refereeing.py): it ends every entrant's game whose
clock has run out within REFEREE_SECONDS, and closes every competition whose end has come. It rests until the next
clock or close falls due (the store says when), or until woken by a game started or a competition announced, and
looks again at least every IDLE_SECONDS for work written by a process that died before its turn."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import UTC, datetime

from ..service.competitions.refereeing import Referee
from ..service.ports import requester
from .turns import Turns

log = logging.getLogger(__name__)

REFEREE_SECONDS = 0.25
"""The least time between two turns: how late after its deadline a game is ended, at most, besides the turn's own
time."""
IDLE_SECONDS = 30.0


class RefereeTurns(Turns):
    def __init__(
        self,
        referee: Referee,
        interval: float = REFEREE_SECONDS,
        idle_wait: float = IDLE_SECONDS,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        super().__init__("osmosis-referee", interval, idle_wait)
        self._referee = referee
        self._clock = clock

    def begin(self) -> None:
        requester.set(f"referee/{os.getpid()}")

    def turn(self) -> bool:
        try:
            done, waiting = self._referee.turn()
        except Exception:
            log.warning("the referee's turn failed (clocks, closes); it is tried again", exc_info=True)
            return True
        return bool(done) or waiting

    def resting(self) -> float:
        try:
            due = self._referee.next_due()
        except Exception:
            log.warning("the referee could not read when its next work falls due", exc_info=True)
            return super().resting()
        if due is None:
            return super().resting()
        return max(0.0, min(super().resting(), (due - self._clock()).total_seconds()))

    def run_once(self) -> int:
        """One turn; how much it did."""
        return self._referee.turn()[0]
