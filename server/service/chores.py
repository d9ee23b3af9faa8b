"""The server's own chores, a turn at a time (runtime/upkeep.py takes the turns): open today's daily deals, close
the days that have ended, end the games their players left, verify the results of players' finished games so that
they count, and forget the replies kept for retries past KEPT_FOR."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from .daily import Days
from .games.acting import Acting
from .games.idempotency import FORGOTTEN_A_TURN, KEPT_FOR
from .players.profiles import Profiles
from .players.stats import ABANDONED_AFTER
from .ports import DailyDeals, KeptResponses, Statistics


class ChoresStore(DailyDeals, Statistics, KeptResponses, Protocol):
    """The ports the chores find their work in: the days' games, the players' games left, the replies kept."""


class Chores:
    def __init__(
        self, store: ChoresStore, days: Days, acting: Acting, profiles: Profiles, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._days = days
        self._acting = acting
        self._profiles = profiles
        self._clock = clock

    def turn(self) -> int:
        """One turn of every chore; how much it did (0: nothing waits)."""
        forgotten = self._store.forget_responses(self._clock() - KEPT_FOR, FORGOTTEN_A_TURN)
        return self.close_days() + self.close_left_games() + self._profiles.verify_results() + forgotten

    def close_days(self, batch: int = 100) -> int:
        """Open today's daily deals if no one has yet, and close the days that have ended: each of their daily
        games not closed yet is ended and revealed (Acting.close_contest_game). How many games it closed; at most
        `batch` a call, so that a turn stays short (the next turn goes on)."""
        self._days.deals()
        return sum(
            self._acting.close_contest_game(game_id)
            for game_id in self._store.unrevealed_daily_games(self._days.today(), batch)
        )

    def close_left_games(self, batch: int = 100) -> int:
        """End the players' games left without an action for ABANDONED_AFTER (Acting.close_left_game), `batch` a
        turn."""
        return sum(
            self._acting.close_left_game(game_id)
            for game_id in self._store.left_games(self._clock() - ABANDONED_AFTER, batch)
        )
