"""The referee: ends every entrant's game whose clock has run out, and closes every competition whose end has come.

A close takes turns: first every game of the competition is ended (timed out if still on) and revealed, its creation
and end entered in the public log as a daily game's are; then, once the public log holds every finish entry (whose
order breaks the last ties), the standings are ranked, rooted, and the root and the seed logged with the close.
Every process may referee; what one did is left as it is by the others (a game ended once, a competition closed once).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol
from uuid import UUID

from ...game.records import PublicEntry
from ...log import competition_entries as ce
from ...log.standings import ranked, standings_root
from ..games.acting import Acting
from .ports import CompetitionTables


class RefereeStore(CompetitionTables, Protocol):
    """The competitions, their games running out and those closing."""


class Referee:
    def __init__(self, store: RefereeStore, acting: Acting, clock: Callable[[], datetime]) -> None:
        self._store = store
        self._acting = acting
        self._clock = clock

    def turn(self, batch: int = 100) -> tuple[int, bool]:
        """One turn: the clocks run out by now, then the competitions due. How much it did, and whether a close
        waits for the public log (then the next turn comes soon, however little this one did)."""
        now = self._clock()
        done = sum(self._acting.time_out(game_id) for game_id in self._store.games_running_out(now, batch))
        waiting = False
        for competition_id in self._store.competitions_due(now, batch):
            closed, waits = self._close(competition_id, batch)
            done, waiting = done + closed, waiting or waits
        return done, waiting

    def next_due(self) -> datetime | None:
        """When the referee next has work by the clock: a clock running out, a competition's end."""
        return self._store.next_competition_due()

    def _close(self, competition_id: UUID, batch: int) -> tuple[int, bool]:
        games = self._store.unrevealed_competition_games(competition_id, batch)
        if games:
            return sum(self._acting.close_contest_game(game_id) for game_id in games), True
        if not self._store.finishes_logged(competition_id):
            return 0, True
        record = self._store.load_competition(competition_id)
        now = self._clock()
        rows = ranked([row.standing(record.terms.limit_ms, now, True) for row in self._store.load_standings(record.id)])
        root = standings_root(rows)
        seed = self._store.load_competition_seed(competition_id)
        entry = ce.closed(competition_id, now, seed, root, len(rows))
        logged = PublicEntry(competition_id, ce.COMPETITION_CLOSED, entry)
        return int(self._store.close_competition(competition_id, now, root, logged)), False
