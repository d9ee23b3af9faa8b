"""The public log's sequencer in each process: it integrates pending entries and signs a checkpoint at most every
LOG_INTERVAL_MS, one process at a time across every instance (the store's lock), then asks the witnesses to
cosign it. Play never waits for it: actions only record their entries as pending, and the store wakes this
process's sequencer once they are committed. It turns every half interval while entries wait or a witness has
not cosigned the latest checkpoint, and otherwise rests: an idle server's sequencer sends no query, but one look
every IDLE_SECONDS, for entries whose writer died before its sequencer's turn."""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..service.public_log.guard import LogRefused
from ..service.public_log.log import KeyMismatch, PublicLog
from ..service.records import SignedCheckpoint
from .turns import Turns
from .witnessing import Witnesses

log = logging.getLogger(__name__)


IDLE_SECONDS = 30.0
"""How long a sequencer with nothing to do rests unless woken: the longest an entry whose writer died before waking
its sequencer waits for a checkpoint."""


class Sequencer(Turns):
    def __init__(
        self,
        public_log: PublicLog,
        interval: float,
        witnesses: Witnesses | None = None,
        idle_wait: float = IDLE_SECONDS,
        refusing: Callable[[bool], None] = lambda refused: None,
    ) -> None:
        """`refusing`: told after each turn whether the log's guard refused to sign (a metric)."""
        # Every half interval while there is work, so that an entry waits at most about one and a half for its
        # checkpoint; the store keeps checkpoints an interval apart whichever process signs them.
        super().__init__("osmosis-log-sequencer", interval / 2, idle_wait)
        self._log = public_log
        self._witnesses = witnesses
        self._refusing = refusing

    def turn(self) -> bool:
        try:
            signed = self._sequence(wait_for_witnesses=False)
            lagging = self._witnesses is not None and self._witnesses.lagging()
            behind = not self._log.caught_up()  # a checkpoint signed and not handed out: its turns go on
            return signed is not None or lagging or behind or self._log.has_pending()
        except Exception:
            log.warning("the public log's sequencer could not tell whether entries wait; it looks again", exc_info=True)
            return True

    def run_once(self) -> SignedCheckpoint | None:
        """One turn, and the witnesses' answers to it awaited (each in its own time): what the tests and the
        command line ask for; the sequencer's own thread hands checkpoints to the witnesses and goes on."""
        return self._sequence(wait_for_witnesses=True)

    def stop(self, timeout: float = 10.0) -> None:
        super().stop(timeout)
        if self._witnesses is not None:
            self._witnesses.stop()

    def _sequence(self, wait_for_witnesses: bool) -> SignedCheckpoint | None:
        try:
            signed = self._log.sequence()
            self._refusing(False)
            if self._witnesses is not None:
                # Also when nothing new was signed: a checkpoint is published only once every witness has
                # cosigned it, so one a witness missed (it was down) is offered again until it does.
                latest = signed or self._log.latest_signed()
                if latest is not None:
                    (self._witnesses.cosign if wait_for_witnesses else self._witnesses.offer)(latest)
        except KeyMismatch as error:
            log.error("the public log's sequencer is idle: %s", error)
            return None
        except LogRefused:
            self._refusing(True)
            return None  # the guard said why, once
        except Exception:
            log.warning("the public log's sequencing failed; it is tried again", exc_info=True)
            self._refusing(not self._log.caught_up())
            return None
        return signed
